// How many requests a webhook's endpoint may have in flight, by how it has been answering: a capacity that
// starts at one and grows with each healthy answer and halves with each sick one (additive increase,
// multiplicative decrease), and a circuit breaker that stops sending to an endpoint whose recent attempts all
// failed, then sends it one probe. Only a timeout, a failed connection or a 5xx is sick: a 4xx is the
// receiver's answer, and a slow 2xx is healthy. Pure rules over an injected time, so they are tested on a fake
// clock; the registry below keeps what the store keeps for each webhook (on its row for every instance on
// PostgreSQL, in the one process's memory on SQLite) (docs/decisions.md#19-delivery-concurrency-and-leases).
import type { Micros } from '../core/time';
import {
  type Circuit,
  type EndpointHealth,
  type EndpointHealthChange,
  type KeptHealth,
  sameHealth,
  UNKNOWN_ENDPOINT,
} from '../domain/endpoint-health';
import type { OperationalEventMaker } from '../store/operational-plan';
import type { EndpointHealthStore } from '../store/store';
import type { SendOutcome } from './sender';

export { type Circuit, type EndpointHealth, type EndpointHealthChange, UNKNOWN_ENDPOINT };

export interface HealthRules {
  /** The most requests one endpoint may have in flight (JOBHOOKS_DELIVERY_CONCURRENCY_PER_ENDPOINT). */
  maxInFlight: number;
  /** Sick answers in a row that open the circuit. */
  openAfterSickInARow: number;
  /** How long the circuit stays open the first time, in microseconds; each failed probe doubles it... */
  firstOpenMicros: Micros;
  /** ...up to this. Well under a day, so a dead endpoint's failing probes keep its days of failing going. */
  maxOpenMicros: Micros;
}

export const DEFAULT_HEALTH_RULES: Omit<HealthRules, 'maxInFlight'> = {
  openAfterSickInARow: 5,
  firstOpenMicros: 10 * 1_000_000,
  maxOpenMicros: 5 * 60 * 1_000_000,
};

/** An open period is stretched by up to this fraction, so endpoints that failed together are not probed together. */
export const OPEN_JITTER_FRACTION = 0.2;

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
export function circuitAt(health: EndpointHealth, now: Micros): Circuit {
  const { circuit } = health;
  return circuit.state === 'open' && now >= circuit.until ? { state: 'probing', since: circuit.since } : circuit;
}

/** Requests the endpoint may have in flight at `now`: none while open, one probe, else its limit. */
export function allowedInFlight(health: EndpointHealth, now: Micros): number {
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
  now: Micros;
  /** When the request that got this answer was sent. */
  sentAt: Micros;
  /** A uniform number in [0, 1) that stretches an open period. */
  jitter: number;
  /** A request a person asked for (redelivery, test): it can close the circuit, never open it. */
  manual: boolean;
}

/** The endpoint's health after one answer. */
export function afterAnswer(health: EndpointHealth, answer: Answer, rules: HealthRules): EndpointHealth {
  const circuit = circuitAt(health, answer.now);
  if (answer.signal === 'healthy') {
    // One that came in before the circuit opened, applied late (another instance's, or one written with its
    // attempt's result), was overtaken by the sick answers that opened it. A person's request still closes it.
    if (circuit.state !== 'closed' && answer.now < circuit.since && !answer.manual) return health;
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
/** Deferred answers kept per webhook: far more than its requests in flight, whose results take them. */
const DEFERRED_KEPT = 1_000;

/** An answer whose change waits for its attempt's result; `taken` once one path has applied it. */
interface Deferred {
  change: EndpointHealthChange;
  taken: boolean;
}

/**
 * The health of every webhook's endpoint as this process knows it, keyed by webhook id.
 *
 * The record is the store's (EndpointHealthStore: the webhook's row on PostgreSQL, the one process's memory on
 * SQLite), and each claim reads the health of the webhooks it looks at (`adopt`, which keeps the newest revision
 * of it); the claim itself leaves webhooks with an open circuit alone. An answer that changes what this instance
 * knows is written to the store before the request's slot is freed, so no instance sees the slot free and the
 * health from before the answer. One that changes nothing here (a healthy endpoint at full speed, a sick one
 * behind an open circuit) costs no statement of its own: its change goes with the attempt's result and is applied
 * with the result (on PostgreSQL in the transaction that writes it, which holds the row anyway). So a healthy answer
 * still resets the sick count that another instance wrote meanwhile. This instance's answers still reach the store
 * in the order they came in: a change written at once takes along the deferred ones that came before it, and
 * whichever of the two paths applies a deferred change first is the only one that does.
 */
export class EndpointHealthRegistry {
  private readonly states = new Map<string, KeptHealth>();
  /** Each webhook's answers not written yet, in the order they came in (see `record`). */
  private readonly deferred = new Map<string, Set<Deferred>>();
  /** When each webhook last pointed at another endpoint (renewed): answers to requests sent before are the old one's. */
  private readonly renewedAt = new Map<string, Micros>();

  /**
   * `jitter` gives a uniform number in [0, 1) for each open period. `kept.store` is where the health is kept;
   * `kept.onError` hears a failed write (its change then goes with the attempt's result).
   */
  constructor(
    private readonly rules: HealthRules,
    private readonly jitter: () => number,
    private readonly kept: {
      store: EndpointHealthStore;
      onError: (error: unknown) => void;
      /** Makes the circuit's operational events as the health is written (docs/operational-webhooks.md). */
      operationalEvents?: OperationalEventMaker;
    },
  ) {}

  of(webhookId: string): EndpointHealth {
    return this.states.get(webhookId)?.health ?? UNKNOWN_ENDPOINT;
  }

  allowedInFlight(webhookId: string, now: Micros): number {
    return allowedInFlight(this.of(webhookId), now);
  }

  /**
   * Takes the health the store keeps for the webhook (read by a claim, or written by an answer), unless what this
   * instance knows is newer: a claim's snapshot can be older than an answer's write that was taken in while the
   * claim ran, and taking it would undo that answer (a capacity just grown by a 2xx would shrink back until the
   * next claim). Revisions only go up, so this holds in whatever order reads and writes come back.
   */
  adopt(webhookId: string, health: EndpointHealth, revision: number): void {
    const known = this.states.get(webhookId);
    if (known !== undefined && known.revision > revision) return;
    if (known === undefined && this.states.size >= ENDPOINTS_KEPT) {
      const oldest = this.states.keys().next();
      if (!oldest.done) this.forget(oldest.value);
    }
    this.states.set(webhookId, { health, revision });
  }

  /**
   * Resolves with the change still to be written with the attempt's result: the answer changed nothing this
   * instance knows, or its write failed; null when nothing is left to write.
   */
  async record(webhookId: string, answer: Answer): Promise<EndpointHealthChange | null> {
    // An answer to a request sent before the webhook was moved is about the endpoint it had: nothing to learn.
    if (answer.sentAt < (this.renewedAt.get(webhookId) ?? Number.NEGATIVE_INFINITY)) return null;
    const change: EndpointHealthChange = (health) => afterAnswer(health, answer, this.rules);
    const known = this.of(webhookId);
    const next = change(known);
    // A person's request is written at once, whatever this instance knew: its 2xx closes the circuit for all.
    if (!answer.manual && sameHealth(known, next)) return this.defer(webhookId, change);
    // The answers deferred before this one go first, so the row sees them in the order they came in.
    const inOrder = [...this.takeDeferred(webhookId), change];
    const all: EndpointHealthChange = (health) => inOrder.reduce((h, c) => c(h), health);
    try {
      const written = await this.kept.store.change(webhookId, all, this.kept.operationalEvents ?? null);
      if (written === null) this.forget(webhookId);
      else this.adopt(webhookId, written.health, written.revision);
      return null;
    } catch (error) {
      this.kept.onError(error);
      // Not on record: applied to what is known now (a claim may have read a newer revision meanwhile), and under
      // its revision, so the next read of the row, of the same revision or newer, puts the record back.
      const current = this.states.get(webhookId);
      this.adopt(webhookId, change(current?.health ?? UNKNOWN_ENDPOINT), current?.revision ?? 0);
      return all;
    }
  }

  /** Keeps the change for the result's transaction; it is applied there unless a later write took it along. */
  private defer(webhookId: string, change: EndpointHealthChange): EndpointHealthChange {
    const entry: Deferred = { change, taken: false };
    const waiting = this.deferred.get(webhookId) ?? new Set<Deferred>();
    // Bounded: a result that is never written leaves its entry until a later write takes it along.
    if (waiting.size >= DEFERRED_KEPT) waiting.delete(waiting.values().next().value!);
    waiting.add(entry);
    this.deferred.set(webhookId, waiting);
    return (health) => {
      if (entry.taken) return health;
      entry.taken = true;
      const left = this.deferred.get(webhookId);
      left?.delete(entry);
      if (left?.size === 0) this.deferred.delete(webhookId);
      return change(health);
    };
  }

  /** The webhook's deferred changes not applied yet, in order; from now on only the caller applies them. */
  private takeDeferred(webhookId: string): EndpointHealthChange[] {
    // An entry leaves the set when it is applied, so all that are still in it are untaken.
    const untaken = [...(this.deferred.get(webhookId) ?? [])];
    this.deferred.delete(webhookId);
    for (const entry of untaken) entry.taken = true;
    return untaken.map((entry) => entry.change);
  }

  /**
   * Takes in what an attempt to the webhook's endpoint got: `sentAt` when its request went out, `manual` for a
   * redelivery or a test send. Resolves once the health is written where it is kept, with what is left to write
   * with the attempt's result (see `record`).
   */
  answered(
    webhookId: string,
    outcome: SendOutcome,
    at: { sentAt: Micros; now: Micros },
    manual = false,
  ): Promise<EndpointHealthChange | null> {
    const signal = healthSignalOf(outcome);
    return this.record(webhookId, { signal, now: at.now, sentAt: at.sentAt, jitter: this.jitter(), manual });
  }

  /**
   * The webhook points at another endpoint now (a new client_url, a reactivation): the store reset its health, at
   * `revision`, with that change. What was learnt of the old endpoint no longer applies, answers of it waiting for
   * their results are dropped, and a read or a write of it from before the reset that comes back later is older.
   */
  renewed(webhookId: string, health: EndpointHealth, revision: number, at: Micros): void {
    this.deferred.delete(webhookId);
    if (this.renewedAt.size >= ENDPOINTS_KEPT) this.renewedAt.clear();
    this.renewedAt.set(webhookId, at);
    this.adopt(webhookId, health, revision);
  }

  /** The webhook is gone: what was learnt of its endpoint no longer applies. */
  forget(webhookId: string): void {
    this.states.delete(webhookId);
    this.deferred.delete(webhookId);
    this.renewedAt.delete(webhookId);
  }

  standing(webhookId: string): Standing {
    return standingOf(this.of(webhookId));
  }

  /** Endpoints whose circuit is not closed (open, or waiting for or sending its probe), in the whole cluster. */
  notClosed(): Promise<number> {
    return this.kept.store.countNotClosed();
  }
}
