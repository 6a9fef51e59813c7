// The delivery worker: the scheduler (scheduler.ts) decides when to look for work and how much may run; each
// claimed delivery then goes through the stages of dispatch-stages.ts: prepare, attempt (attempt.ts: sign and
// send), record. The life of a delivery, step by step: docs/life-of-a-delivery.md.
import type { Micros, Millis } from '../core/time';
import { type Clock, nowMicros } from '../core/clock';
import { type RandomBytes, uniformFraction } from '../core/random';
import type { Tracing } from '../core/tracing';
import type { ClaimedDelivery } from '../domain/delivery';
import type { SecretBox } from '../security/secret-box';
import type { Store } from '../store/store';
import { makeAttempt } from './attempt';
import { createDispatchStages } from './dispatch-stages';
import type { OperationalEventMaker } from '../store/operational-plan';
import type { EndpointHealthRegistry } from './endpoint-health';
import { createScheduler, type EndRequest, type SchedulerLimits } from './scheduler';
import { createStartSlots, slotDelayMs, WEBHOOK_STOPPED } from './start-slots';
import type { Send, SendOutcome } from './sender';

/**
 * Claims one turn makes at most. Only a claim that looked at all the webhooks it may (256 on PostgreSQL) and found
 * some it could send nothing to (full on other instances, or unproven with their share of the slots used) is
 * followed by another, so one turn gets past 768 such webhooks; the next turn goes on from there, as they stay left
 * out for a second.
 */
const CLAIMS_PER_TURN = 4;

export interface DispatcherLimits extends SchedulerLimits {
  /** How long a claim lasts; longer than an attempt (10 s) plus recording it. */
  leaseMicros: Micros;
}

export interface DispatchObserver {
  /** `waitedMicros`: from the time the attempt came due to the time its request started. */
  attemptFinished(outcome: SendOutcome, waitedMicros: Micros): void;
}

export interface DispatcherDeps {
  store: Store;
  clock: Clock;
  send: Send;
  random: RandomBytes;
  secretBox: SecretBox;
  /** Each attempt's `traceparent`, and its span when traces are exported. */
  tracing: Tracing;
  /** This dispatcher's name on its leases; unique per process. */
  owner: string;
  retryDelaysSeconds: readonly number[];
  limits: DispatcherLimits;
  /** Each endpoint's health: how many requests it may have in flight, and its circuit. */
  health: EndpointHealthRegistry;
  observer?: DispatchObserver;
  /** Makes the operational events the results make true (docs/operational-webhooks.md); none when absent. */
  operationalEvents?: OperationalEventMaker;
  onError: (error: unknown, stage: string) => void;
}

export interface Dispatcher {
  start(): void;
  /** Looks for due deliveries now (after ingestion, or after a test moved the clock). */
  wake(): void;
  /** Stops claiming, waits up to `graceMs` for requests in flight, and records their results. */
  stop(graceMs: Millis): Promise<void>;
  /** Requests in flight now. */
  inFlight(): number;
}

export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const stages = createDispatchStages({ ...deps, leaseMicros: deps.limits.leaseMicros });

  const wakeAt = (at: Micros) => scheduler.wakeAfter(slotDelayMs(at, nowMicros(deps.clock)));
  const startSlots = createStartSlots({ webhooks: deps.store.webhooks, clock: deps.clock, wakeAt });

  async function deliver(delivery: ClaimedDelivery, leaseUntil: Micros, endRequest: EndRequest): Promise<void> {
    const prepared = stages.prepare(delivery);
    if (prepared.kind === 'skip') return stages.skip(delivery);
    let plan = prepared.plan;
    // A rate-limited webhook's request starts only in a start slot, its recorded start (start-slots.ts). Waiting for
    // it, the delivery holds its request slot here: it counts as in flight to its webhook, and at most one waits per
    // webhook (the claim leaves the webhook alone meanwhile).
    if (delivery.maxRequestsPerSecond !== null) {
      const slot = await startSlots.take(delivery.webhookId, delivery.maxRequestsPerSecond, leaseUntil);
      // Deactivated, archived or deleted while it waited: skipped, as a claim after the change would have.
      if (slot === WEBHOOK_STOPPED) return stages.skip(delivery);
      // No slot in time: the lease runs out, and the delivery is due again then, its attempts unchanged.
      if (slot === null) return;
      // Sent to the client_url, and signed with the secrets, the webhook has now: it may have waited most of its
      // lease, and a new URL or a rotation without overlap since the claim must not get the old ones.
      const current = stages.prepare({ ...delivery, ...slot.endpoint });
      if (current.kind === 'skip') return stages.skip(delivery);
      plan = { ...current.plan, startedAt: slot.at };
    }
    // makeAttempt tells the endpoint's health what it answered before the slot is freed below.
    const made = await makeAttempt(deps, plan);
    // The endpoint has answered: its slot can take the next request while this result waits to be written
    // (the delivery stays leased until then, so no claim can take it again).
    endRequest();
    deps.observer?.attemptFinished(made.outcome, made.requestedAt - delivery.dueAt);
    const retryDueAt = await stages.record(delivery, made);
    // A retry is claimed when it falls due, not at the first poll after (a short schedule is not rounded up to it).
    if (retryDueAt !== null) wakeAt(retryDueAt);
  }

  /**
   * One claim per turn; every finished attempt wakes the scheduler again, so free room is refilled. A claim that
   * found webhooks it could send nothing to is followed at once by another that leaves them out (a few at most), so
   * webhooks with due deliveries further down wait for no poll.
   */
  async function turn(): Promise<void> {
    for (let claims = 0; claims < CLAIMS_PER_TURN; claims += 1) {
      const room = scheduler.room(nowMicros(deps.clock));
      if (room.total <= 0) return;
      const claimed = await stages.claim(room, startSlots.waiting());
      for (const delivery of claimed.deliveries) {
        scheduler.launch(delivery, (endRequest) =>
          deliver(delivery, claimed.leaseUntil, endRequest).catch((error: unknown) => deps.onError(error, 'deliver')),
        );
      }
      if (claimed.rateWakeAt !== null) wakeAt(claimed.rateWakeAt);
      if (claimed.newlyHeldOut === 0) return;
    }
  }

  const capacity = {
    allowed: (webhookId: string, now: Micros) => deps.health.allowedInFlight(webhookId, now),
    standing: (webhookId: string) => deps.health.standing(webhookId),
  };
  const scheduler = createScheduler(
    deps.limits,
    turn,
    (error) => deps.onError(error, 'claim'),
    capacity,
    () => uniformFraction(deps.random),
  );

  return {
    start: scheduler.start,
    wake: scheduler.wake,
    inFlight: scheduler.inFlight,
    async stop(graceMs) {
      startSlots.stop();
      await scheduler.stop(graceMs);
      await stages.recorded();
    },
  };
}
