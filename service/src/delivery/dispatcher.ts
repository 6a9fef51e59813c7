// The delivery worker. Each delivery goes through four stages: claim (lease due rows), prepare (sign the
// fixed payload bytes, once per delivery: a retry reuses the stored signature), send, record (log row,
// delivery and webhook state in one transaction).
import { BoundedMap } from '../core/bounded-map';
import { type Clock, nowMicros } from '../core/clock';
import type { RandomBytes } from '../core/random';
import type { SecretBox } from '../security/secret-box';
import type { AttemptResult } from '../domain/attempt';
import type { ClaimedDelivery, DeliveryChange } from '../domain/delivery';
import type { Store } from '../store/store';
import { nextDispatchState } from './archive-policy';
import { attemptLogEntry } from './attempt-log-entry';
import { chooseClaims, type ClaimRoom, saturatedWebhooks } from './claim-choice';
import { signedRequest } from './outgoing-request';
import { planNextStep, verdictOf } from './retry-policy';
import type { Send, SendOutcome } from './sender';
import { signatureOf } from './signer';

/** The outcome of an attempt whose webhook secret cannot be opened: nothing was sent. */
const UNSIGNABLE: SendOutcome = {
  kind: 'no_response',
  error: "not sent: the webhook's secret cannot be decrypted with this service's key (JOBHOOKS_SECRET_KEY or secret.key)",
  durationMs: 0,
};

export interface DispatcherLimits {
  /** Requests in flight at once, over all endpoints. */
  maxInFlight: number;
  /** Requests in flight at once to one webhook. */
  maxInFlightPerEndpoint: number;
  /** How long a claim lasts; longer than an attempt (10 s) plus recording it. */
  leaseMicros: number;
  /** How often to look for due deliveries when nothing wakes the dispatcher. */
  pollIntervalMs: number;
}

export interface DispatchObserver {
  attemptFinished(outcome: SendOutcome): void;
}

export interface DispatcherDeps {
  store: Store;
  clock: Clock;
  send: Send;
  random: RandomBytes;
  secretBox: SecretBox;
  /** This dispatcher's name on its leases; unique per process. */
  owner: string;
  retryDelaysSeconds: readonly number[];
  limits: DispatcherLimits;
  observer?: DispatchObserver;
  onError: (error: unknown, stage: string) => void;
}

export interface Dispatcher {
  start(): void;
  /** Looks for due deliveries now (after ingestion, or after a test moved the clock). */
  wake(): void;
  /** Stops claiming, waits up to `graceMs` for requests in flight, and records their results. */
  stop(graceMs: number): Promise<void>;
  /** Requests in flight now. */
  inFlight(): number;
}

/** Decrypted webhook secrets kept at most; past that the cache starts over (one decryption per webhook again). */
const OPENED_SECRETS_KEPT = 10_000;

/** A uniform number in [0, 1) from the injected random source. */
function fraction(random: RandomBytes): number {
  return random(4).readUInt32BE(0) / 2 ** 32;
}

export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const { store, clock, limits, owner } = deps;
  /** Requests in flight, in all and per webhook: what the limits bound. */
  let sending = 0;
  const inFlightByWebhook = new Map<string, number>();
  const openedSecrets = new BoundedMap<string, string>(OPENED_SECRETS_KEPT);
  /** Deliveries being worked on, from claim until their result is written: what stop waits for. */
  const running = new Set<Promise<void>>();
  let results: AttemptResult[] = [];
  let flushing: Promise<void> | null = null;
  let started = false;
  let stopping = false;
  let pumping: Promise<void> | null = null;
  let wakeAgain = false;
  let wakeQueued = false;
  let timer: NodeJS.Timeout | null = null;

  function room(): ClaimRoom {
    return { total: limits.maxInFlight - sending, perWebhook: limits.maxInFlightPerEndpoint, inFlight: inFlightByWebhook };
  }

  function countWebhook(id: string, delta: number): void {
    const next = (inFlightByWebhook.get(id) ?? 0) + delta;
    if (next <= 0) inFlightByWebhook.delete(id);
    else inFlightByWebhook.set(id, next);
  }

  // Stage 1: lease as many due deliveries as there is room for.
  async function claim(): Promise<ClaimedDelivery[]> {
    const now = nowMicros(clock);
    const current = room();
    return store.deliveries.claimDue(
      {
        owner,
        now,
        leaseUntil: now + limits.leaseMicros,
        perWebhook: Math.min(current.perWebhook, current.total),
        excludeWebhookIds: saturatedWebhooks(current),
      },
      (candidates) => chooseClaims(candidates, current),
    );
  }

  /** Each webhook's secret is decrypted once, not once per attempt; keyed by the sealed form, so a new secret misses. */
  function secretOf(sealed: string): string {
    let secret = openedSecrets.get(sealed);
    if (secret === undefined) {
      secret = deps.secretBox.open(sealed);
      openedSecrets.set(sealed, secret);
    }
    return secret;
  }

  /**
   * Stage 2: an archived or deactivated webhook gets no request; the others get the signed fixed bytes. A
   * secret this key cannot open (the service starts only with the database's key, so a damaged row) makes a
   * failed attempt that says so, instead of an error that would lease the delivery again forever.
   */
  function prepare(delivery: ClaimedDelivery) {
    if (!delivery.active || delivery.archived) return null;
    const attempt = delivery.attempts + 1;
    let signature: string;
    try {
      signature = signatureOf(delivery, () => secretOf(delivery.sealedSecret));
    } catch {
      return { attempt, signature: null, request: null };
    }
    return { attempt, signature, request: signedRequest({ url: delivery.clientUrl, body: delivery.payload, signature, eventId: delivery.eventId, attempt }) };
  }

  // Stage 4 (planning): what the outcome means for the delivery and, through the archive rules, the webhook.
  function resultOf(delivery: ClaimedDelivery, sent: { attempt: number; signature: string | null }, requestedAt: number, outcome: SendOutcome): AttemptResult {
    const { attempt, signature } = sent;
    const finishedAt = nowMicros(clock);
    const step = planNextStep({ outcome, attempt, delaysSeconds: deps.retryDelaysSeconds, jitter: fraction(deps.random), nowMillis: finishedAt / 1000 });
    const change: DeliveryChange =
      step.kind === 'retry'
        ? { state: 'pending', nextAttemptAt: finishedAt + step.delayMicros, signature }
        : { state: step.kind === 'succeeded' ? 'succeeded' : 'failed' };
    const log = attemptLogEntry(
      { deliveryId: delivery.id, webhookId: delivery.webhookId, eventId: delivery.eventId, eventType: delivery.eventType, attempt },
      outcome,
      requestedAt,
    );
    return {
      log: { ...log, deliveryId: delivery.id },
      facts: { requestedAt, statusCode: log.statusCode, verdict: verdictOf(outcome), exhausted: step.kind === 'exhausted', manual: false },
      delivery: change,
      leaseOwner: owner,
    };
  }

  /** Writes the results gathered so far in one transaction; attempts finishing together share it. */
  function flush(): Promise<void> {
    flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const batch = results;
      results = [];
      flushing = null;
      try {
        await store.deliveries.recordAttempts(batch, nextDispatchState);
      } catch (error) {
        // Nothing is lost: the leases run out and the deliveries are sent again.
        deps.onError(error, 'record');
      }
    });
    return flushing;
  }

  /** `requestEnded` frees the delivery's slot under the limits; it is called once its request is over. */
  async function deliver(delivery: ClaimedDelivery, requestEnded: () => void): Promise<void> {
    try {
      const prepared = prepare(delivery);
      if (prepared === null) {
        await store.deliveries.skip([delivery.id], owner, nowMicros(clock));
        return;
      }
      const requestedAt = nowMicros(clock);
      // Stage 3.
      const outcome = prepared.request === null ? UNSIGNABLE : await deps.send(prepared.request);
      // The endpoint has answered: its slot can take the next request while this result waits to be written
      // (the delivery stays leased until then, so no claim can take it again).
      requestEnded();
      deps.observer?.attemptFinished(outcome);
      results.push(resultOf(delivery, prepared, requestedAt, outcome));
      await flush();
    } catch (error) {
      deps.onError(error, 'deliver');
    }
  }

  function launch(delivery: ClaimedDelivery): void {
    sending += 1;
    countWebhook(delivery.webhookId, 1);
    let ended = false;
    const requestEnded = () => {
      if (ended) return;
      ended = true;
      sending -= 1;
      countWebhook(delivery.webhookId, -1);
      wake();
    };
    const task: Promise<void> = deliver(delivery, requestEnded).finally(() => {
      running.delete(task);
      requestEnded();
    });
    running.add(task);
  }

  /** One claim per wake-up; every finished attempt wakes the dispatcher again, so free room is refilled. */
  async function pump(): Promise<void> {
    if (stopping || room().total <= 0) return;
    for (const delivery of await claim()) launch(delivery);
  }

  function schedulePoll(): void {
    if (timer !== null || stopping) return;
    timer = setTimeout(() => {
      timer = null;
      wake();
    }, limits.pollIntervalMs);
    timer.unref();
  }

  /**
   * Claims once for all the wake-ups of one event-loop turn (every finished attempt and every ingestion
   * wakes the dispatcher), so a busy dispatcher claims in batches instead of once per attempt.
   */
  function wake(): void {
    if (!started || stopping || wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      pumpNow();
    });
  }

  function pumpNow(): void {
    if (stopping) return;
    if (pumping !== null) {
      wakeAgain = true;
      return;
    }
    pumping = pump()
      .catch((error: unknown) => deps.onError(error, 'claim'))
      .finally(() => {
        pumping = null;
        if (wakeAgain) {
          wakeAgain = false;
          wake();
        } else {
          schedulePoll();
        }
      });
  }

  return {
    start() {
      started = true;
      wake();
    },
    wake,
    inFlight: () => sending,
    async stop(graceMs) {
      stopping = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      await pumping;
      let graceTimer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        graceTimer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.allSettled([...running]), grace]);
      clearTimeout(graceTimer);
      await flush();
    },
  };
}
