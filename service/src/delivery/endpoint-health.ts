// How many requests a webhook's endpoint may have in flight, by how it has been answering: a capacity that
// starts at one and grows with each healthy answer and halves with each sick one (additive increase,
// multiplicative decrease), and a circuit breaker that stops sending to an endpoint whose recent attempts all
// failed, then sends it one probe. Only a timeout, a failed connection or a 5xx is sick: a 4xx is the
// receiver's answer, and a slow 2xx is healthy. Pure rules over an injected time, so they are tested on a fake
// clock; the registry below keeps one state per webhook for this process
// (docs/decisions.md#19-delivery-concurrency-and-leases).
import type { SendOutcome } from './sender';

export interface HealthRules {
  /** The most requests one endpoint may have in flight (JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT). */
  maxInFlight: number;
  /** Sick answers in a row that open the circuit. */
  openAfterSickInARow: number;
  /** How long the circuit stays open the first time, in microseconds; each failed probe doubles it... */
  firstOpenMicros: number;
  /** ...up to this. Well under a day, so a probe keeps the archiving rule's "failed within 24 hours" true. */
  maxOpenMicros: number;
}

export const DEFAULT_HEALTH_RULES: Omit<HealthRules, 'maxInFlight'> = {
  openAfterSickInARow: 5,
  firstOpenMicros: 10 * 1_000_000,
  maxOpenMicros: 5 * 60 * 1_000_000,
};

/** An open period is stretched by up to this fraction, so endpoints that failed together are not probed together. */
const OPEN_JITTER_FRACTION = 0.2;

/** `since`: when the circuit opened; an answer to a request sent before that says nothing new. */
export type Circuit =
  { state: 'closed' } | { state: 'open'; since: number; until: number } | { state: 'probing'; since: number };

export interface EndpointHealth {
  /** Whether the endpoint has answered in this process (healthily or not). */
  heard: boolean;
  /** Requests allowed in flight while the circuit is closed. */
  limit: number;
  sickInARow: number;
  /** Times the circuit opened since the endpoint last answered healthily: the open period doubles with each. */
  opens: number;
  circuit: Circuit;
}

/** An endpoint not heard from yet: one request at a time until it answers. */
export const UNKNOWN_ENDPOINT: EndpointHealth = {
  heard: false,
  limit: 1,
  sickInARow: 0,
  opens: 0,
  circuit: { state: 'closed' },
};

/**
 * `slow-down` is a 429: the receiver is alive and asks for fewer requests, so its capacity halves, but it is
 * not sick and cannot open the circuit.
 */
export type HealthSignal = 'healthy' | 'sick' | 'slow-down';

/**
 * Where an endpoint stands, for the order of claims and the share of slots: `proven` answered healthily last,
 * `unknown` has not answered yet, `sick` answered sick last (or its circuit is not closed).
 */
export type Standing = 'proven' | 'unknown' | 'sick';

export function standingOf(health: EndpointHealth): Standing {
  if (!health.heard) return 'unknown';
  return health.sickInARow === 0 && health.circuit.state === 'closed' ? 'proven' : 'sick';
}

export function healthSignalOf(outcome: SendOutcome): HealthSignal {
  if (outcome.kind === 'no_response' || outcome.status >= 500) return 'sick';
  return outcome.status === 429 ? 'slow-down' : 'healthy';
}

/** The circuit as it stands at `now`: an open circuit whose time is up is waiting for its probe. */
export function circuitAt(health: EndpointHealth, now: number): Circuit {
  const { circuit } = health;
  return circuit.state === 'open' && now >= circuit.until ? { state: 'probing', since: circuit.since } : circuit;
}

/** Requests the endpoint may have in flight at `now`: none while open, one probe, else its limit. */
export function allowedInFlight(health: EndpointHealth, now: number): number {
  const circuit = circuitAt(health, now);
  if (circuit.state === 'open') return 0;
  return circuit.state === 'probing' ? 1 : health.limit;
}

function openPeriod(opens: number, rules: HealthRules, jitter: number): number {
  const doubled = Math.min(rules.maxOpenMicros, rules.firstOpenMicros * 2 ** opens);
  return Math.round(doubled * (1 + OPEN_JITTER_FRACTION * jitter));
}

export interface Answer {
  signal: HealthSignal;
  now: number;
  /** When the request that got this answer was sent. */
  sentAt: number;
  /** A uniform number in [0, 1) that stretches an open period. */
  jitter: number;
  /** A request a person asked for (redelivery, test): it can close the circuit, never open it. */
  manual: boolean;
}

/** The endpoint's health after one answer. */
export function afterAnswer(health: EndpointHealth, answer: Answer, rules: HealthRules): EndpointHealth {
  const circuit = circuitAt(health, answer.now);
  if (answer.signal === 'healthy') {
    // A probe (or any answer while not closed) that is healthy restores full speed; otherwise one more slot.
    const limit = circuit.state === 'closed' ? Math.min(rules.maxInFlight, health.limit + 1) : rules.maxInFlight;
    return { heard: true, limit, sickInARow: 0, opens: 0, circuit: { state: 'closed' } };
  }
  if (answer.signal === 'slow-down')
    return { ...health, heard: true, limit: Math.max(1, Math.floor(health.limit / 2)) };
  if (answer.manual) return health;
  // A sick answer while open, or to a request sent before the circuit opened, is one the circuit already knows.
  if (circuit.state === 'open' || (circuit.state === 'probing' && answer.sentAt < circuit.since)) return health;
  const sickInARow = health.sickInARow + 1;
  const limit = Math.max(1, Math.floor(health.limit / 2));
  if (circuit.state === 'closed' && sickInARow < rules.openAfterSickInARow) {
    return { ...health, heard: true, limit, sickInARow };
  }
  const until = answer.now + openPeriod(health.opens, rules, answer.jitter);
  const opened: Circuit = { state: 'open', since: answer.now, until };
  return { heard: true, limit, sickInARow, opens: health.opens + 1, circuit: opened };
}

/** Endpoint states kept at most; past that the one recorded first is forgotten (it is unknown again). */
const ENDPOINTS_KEPT = 100_000;

/** The health of every webhook's endpoint in this process, keyed by webhook id. */
export class EndpointHealthRegistry {
  private readonly states = new Map<string, EndpointHealth>();
  /** Webhooks whose circuit is open or waiting for its probe: what a claim must look at, kept apart. */
  private readonly notClosedIds = new Set<string>();

  /** `jitter` gives a uniform number in [0, 1) for each open period. */
  constructor(
    private readonly rules: HealthRules,
    private readonly jitter: () => number = () => 0,
  ) {}

  of(webhookId: string): EndpointHealth {
    return this.states.get(webhookId) ?? UNKNOWN_ENDPOINT;
  }

  allowedInFlight(webhookId: string, now: number): number {
    return allowedInFlight(this.of(webhookId), now);
  }

  record(webhookId: string, answer: Answer): void {
    if (!this.states.has(webhookId) && this.states.size >= ENDPOINTS_KEPT) {
      const oldest = this.states.keys().next();
      if (!oldest.done) this.forget(oldest.value);
    }
    const next = afterAnswer(this.of(webhookId), answer, this.rules);
    this.states.set(webhookId, next);
    if (next.circuit.state === 'closed') this.notClosedIds.delete(webhookId);
    else this.notClosedIds.add(webhookId);
  }

  /**
   * Takes in what an attempt to the webhook's endpoint got: `sentAt` when its request went out, `manual` for a
   * redelivery or a test send.
   */
  answered(webhookId: string, outcome: SendOutcome, at: { sentAt: number; now: number }, manual = false): void {
    const signal = healthSignalOf(outcome);
    this.record(webhookId, { signal, now: at.now, sentAt: at.sentAt, jitter: this.jitter(), manual });
  }

  /** The webhook is gone, or points at another endpoint now: what was learnt of its endpoint no longer applies. */
  forget(webhookId: string): void {
    this.states.delete(webhookId);
    this.notClosedIds.delete(webhookId);
  }

  standing(webhookId: string): Standing {
    return standingOf(this.of(webhookId));
  }

  circuitOf(webhookId: string, now: number): Circuit {
    return circuitAt(this.of(webhookId), now);
  }

  /** Webhooks that may have no request in flight now (open circuits): a claim leaves their deliveries alone. */
  blocked(now: number): string[] {
    return [...this.notClosedIds].filter((id) => this.allowedInFlight(id, now) === 0);
  }

  /** Endpoints whose circuit is not closed: open, or waiting for or sending its probe. */
  notClosed(): number {
    return this.notClosedIds.size;
  }
}
