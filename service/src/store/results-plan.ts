// What a batch of attempt results writes, decided once for both backends from what the transaction read (each
// webhook's dispatch state): every log row, every delivery moved on, each webhook's new dispatch state, and the
// webhooks the batch archived, whose other pending deliveries are then skipped, and what the batch adds to the hourly
// rollup of the log, and the operational facts the batch made true (delivery/operational-rules.ts), each written as
// an operational event in the same transaction. Each backend only writes the plan: row by row on SQLite, one statement per table on PostgreSQL.
import { type Micros, MICROS_PER_MILLI } from '../core/time';
import type { AttemptFacts, AttemptLogEntry, AttemptResult, LoggedAttempt } from '../domain/attempt';
import { addInto, durationBucketOf, emptyHour, hourOf, type StatsHour } from '../domain/delivery-stats';
import { skippedByArchive } from '../domain/delivery-lifecycle';
import type { DispatchState } from '../domain/webhook';
import type { EndpointHealthChange } from '../domain/endpoint-health';
import type { OperationalFact } from '../domain/operational-fact';

export type { OperationalFact };
import { thresholdsCrossed } from '../domain/failing-thresholds';

export type NextDispatchState = (current: DispatchState, facts: AttemptFacts) => DispatchState;

/** A dispatcher's attempt: the delivery moves on only while it still holds the lease the attempt was made under. */
export interface LeasedMove {
  webhookId: string;
  deliveryId: string;
  lease: string;
  state: 'pending' | 'succeeded' | 'failed' | 'skipped';
  attempts: number;
  /** When a pending delivery is due again; null once it is finished. */
  nextAttemptAt: Micros | null;
  /** When the attempt ended, in microseconds. */
  now: Micros;
}

/** A person's redelivery of a finished delivery: a success marks it succeeded, a failure leaves its state. */
export interface FinishedMove {
  webhookId: string;
  deliveryId: string;
  /** Null: the state stays. */
  state: 'succeeded' | 'failed' | null;
  attempts: number;
  now: Micros;
}

export interface ResultsPlan {
  /** The results whose webhook still exists, in order, each with its position in the batch: their rows are logged. */
  logged: Array<{ index: number; entry: AttemptLogEntry }>;
  leasedMoves: LeasedMove[];
  finishedMoves: FinishedMove[];
  /** Each webhook's dispatch state after the batch, for every webhook the batch touched. */
  dispatchStates: Map<string, DispatchState>;
  /**
   * The endpoint-health changes that waited for their attempts' results (delivery/endpoint-health.ts), in order,
   * of the webhooks that still exist.
   */
  healthChanges: Array<readonly [webhookId: string, change: EndpointHealthChange]>;
  /** The webhooks the batch archived, and when: none of their pending deliveries is attempted any more. */
  archived: Array<{ webhookId: string; at: Micros }>;
  /** Each logged attempt as the hourly rollup counts it, in order (rollupOf sums them). */
  rollup: RollupEntry[];
  /** What the batch made true that an account's operational endpoints hear of, in order (operationalFactsWritten). */
  operational: OperationalFact[];
}

/**
 * The facts a written plan made true: a delivery failed for good only if its move was written (`moved`, as for the
 * rollup), since a result recorded after its lease was taken over moves nothing.
 */
export function operationalFactsWritten(
  facts: readonly OperationalFact[],
  moved: (deliveryId: string) => boolean,
): OperationalFact[] {
  return facts.filter((fact) => fact.type !== 'delivery.exhausted' || moved(fact.deliveryId));
}

/** The operational facts of one result: its delivery failing for good, its webhook crossing thresholds or archived. */
function factsOf(
  result: AttemptResult,
  leased: LeasedMove | null,
  current: DispatchState,
  after: DispatchState,
  now: Micros,
): OperationalFact[] {
  const { webhookId } = result.log;
  const facts: OperationalFact[] = [];
  if (leased !== null && leased.state === 'failed') {
    const { deliveryId, eventId, eventType, attempt } = result.log;
    if (deliveryId !== null)
      facts.push({ type: 'delivery.exhausted', webhookId, at: now, deliveryId, eventId, eventType, attempts: attempt });
  }
  for (const thresholdPercent of thresholdsCrossed(current.consecutiveFailures, after.consecutiveFailures)) {
    facts.push({
      type: 'webhook.failing',
      webhookId,
      at: now,
      thresholdPercent,
      consecutiveFailures: after.consecutiveFailures,
    });
  }
  if (current.archivedAt === null && after.archivedAt !== null)
    facts.push({ type: 'webhook.archived', webhookId, at: now, reason: after.archivedReason ?? '' });
  return facts;
}

/** One logged attempt for the rollup: counted in the hour it was requested. */
export interface RollupEntry {
  webhookId: string;
  hour: Micros;
  success: boolean;
  durationMs: number;
  /** The delivery this attempt finished, if it did (a dispatcher's last attempt; a redelivery finishes none). */
  finishes: { deliveryId: string; state: 'succeeded' | 'failed' } | null;
}

/**
 * The rows the batch adds to the rollup, one per webhook and hour. A finished delivery counts only if its move was
 * written (`moved`): a result recorded after its lease was taken over moves nothing, and the attempt that does
 * finish the delivery later counts it then, so no delivery is counted twice.
 */
export function rollupOf(entries: readonly RollupEntry[], moved: (deliveryId: string) => boolean): StatsHour[] {
  const hours = new Map<string, StatsHour>();
  for (const entry of entries) {
    const key = `${entry.webhookId} ${entry.hour}`;
    const row = emptyHour(entry.webhookId, entry.hour);
    if (entry.success) row.attemptsSucceeded = 1;
    else row.attemptsFailed = 1;
    row.durations[durationBucketOf(entry.durationMs)] = 1;
    if (entry.finishes !== null && moved(entry.finishes.deliveryId)) {
      if (entry.finishes.state === 'succeeded') row.deliveriesSucceeded = 1;
      else row.deliveriesFailed = 1;
    }
    const known = hours.get(key);
    hours.set(key, known === undefined ? row : addInto(known, row));
  }
  return [...hours.values()];
}

/** When an attempt ended: its request time plus its duration. */
export function endOf(entry: AttemptLogEntry): Micros {
  return entry.requestedAt + entry.durationMs * MICROS_PER_MILLI;
}

/**
 * Where the result moves its delivery. `archived`: its webhook was archived before this result, by an earlier one
 * of the same batch: the delivery is skipped, as the archive skips every delivery not yet finished, so an attempt
 * that ran beside the one that archived ends the same whether its result is written with it or after it.
 */
function moveOf(
  result: AttemptResult,
  now: Micros,
  archived: boolean,
): { leased: LeasedMove } | { finished: FinishedMove } {
  const { delivery, log } = result;
  if (result.lease === null) {
    const state = delivery.state === 'unchanged' || delivery.state === 'pending' ? null : delivery.state;
    return { finished: { webhookId: log.webhookId, deliveryId: log.deliveryId, state, attempts: log.attempt, now } };
  }
  if (delivery.state === 'unchanged') throw new Error('a leased delivery always moves on');
  const change = archived ? skippedByArchive() : delivery;
  return {
    leased: {
      webhookId: log.webhookId,
      deliveryId: log.deliveryId,
      lease: result.lease,
      state: change.state,
      attempts: log.attempt,
      nextAttemptAt: change.state === 'pending' ? change.nextAttemptAt : null,
      now,
    },
  };
}

function rollupEntryOf(entry: AttemptLogEntry, leased: LeasedMove | null): RollupEntry {
  const finishes =
    leased === null || (leased.state !== 'succeeded' && leased.state !== 'failed')
      ? null
      : { deliveryId: leased.deliveryId, state: leased.state };
  return {
    webhookId: entry.webhookId,
    hour: hourOf(entry.requestedAt),
    success: entry.success,
    durationMs: entry.durationMs,
    finishes,
  };
}

/**
 * Whether the result answers for an endpoint the webhook no longer has: its request went to a URL other than the
 * webhook's `client_url` as the transaction read it (a PUT moved the webhook while the request was out).
 */
function fromFormerEndpoint(result: AttemptResult, clientUrl: string | undefined): boolean {
  return result.sentTo !== undefined && clientUrl !== undefined && result.sentTo !== clientUrl;
}

/**
 * The move of a result from a former endpoint: a success delivered the event, and a delivery the archive skips
 * stays skipped; a failure leaves the delivery pending and due at once, for the endpoint the webhook has now (a 410
 * or the last retry of the former one ends nothing). Its attempt still counts.
 */
function moveForCurrentEndpoint(move: LeasedMove): LeasedMove {
  if (move.state !== 'failed' && move.state !== 'pending') return move;
  return { ...move, state: 'pending', nextAttemptAt: move.now };
}

/**
 * Folds `next` over each webhook's results in order, from the state `before` holds; a result whose webhook is not
 * in `before` (deleted while its attempt ran, with its deliveries and log) writes nothing. `operationalEndpoints`:
 * the webhooks among them that are operational endpoints, whose results make no operational fact, so an endpoint
 * that fails cannot make events about itself without end, and add nothing to the rollup. `clientUrls`: each
 * webhook's URL as the transaction read it; a result from a former URL is logged and moves its delivery
 * (moveForCurrentEndpoint), and changes nothing else: not the webhook's status, failures or archiving, nor its
 * endpoint's health, and it makes no operational fact. A 410 from an endpoint a webhook was just moved away from
 * must not archive it.
 */
export function planResults(
  results: readonly AttemptResult[],
  before: ReadonlyMap<string, DispatchState>,
  next: NextDispatchState,
  operationalEndpoints: ReadonlySet<string> = new Set(),
  clientUrls: ReadonlyMap<string, string> = new Map(),
): ResultsPlan {
  const plan: ResultsPlan = {
    logged: [],
    leasedMoves: [],
    finishedMoves: [],
    dispatchStates: new Map(),
    healthChanges: [],
    archived: [],
    rollup: [],
    operational: [],
  };
  results.forEach((result, index) => {
    const { webhookId } = result.log;
    const current = plan.dispatchStates.get(webhookId) ?? before.get(webhookId);
    if (current === undefined) return;
    const now = endOf(result.log);
    plan.logged.push({ index, entry: result.log });
    const former = fromFormerEndpoint(result, clientUrls.get(webhookId));
    const move = moveOf(result, now, current.archivedAt !== null);
    const leased = 'leased' in move ? (former ? moveForCurrentEndpoint(move.leased) : move.leased) : null;
    if (leased !== null) plan.leasedMoves.push(leased);
    else if ('finished' in move) plan.finishedMoves.push(move.finished);
    if (former) {
      if (!operationalEndpoints.has(webhookId)) plan.rollup.push(rollupEntryOf(result.log, leased));
      return;
    }
    if (result.endpointHealthChange) plan.healthChanges.push([webhookId, result.endpointHealthChange]);
    const after = next(current, result.facts);
    if (current.archivedAt === null && after.archivedAt !== null) plan.archived.push({ webhookId, at: now });
    plan.dispatchStates.set(webhookId, after);
    // The account's statistics are about its job-run webhooks: an operational endpoint's attempts are logged, not
    // counted there.
    if (operationalEndpoints.has(webhookId)) return;
    plan.rollup.push(rollupEntryOf(result.log, leased));
    plan.operational.push(...factsOf(result, leased, current, after, now));
  });
  return plan;
}

/** Each result's log row with the id the backend gave it, or null for a result the plan left out. */
export function loggedAttempts(
  results: readonly AttemptResult[],
  plan: ResultsPlan,
  ids: readonly number[],
): Array<LoggedAttempt | null> {
  const logged: Array<LoggedAttempt | null> = results.map(() => null);
  plan.logged.forEach(({ index, entry }, i) => {
    logged[index] = { ...entry, id: ids[i]! };
  });
  return logged;
}
