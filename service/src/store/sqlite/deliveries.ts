// SQLite access to deliveries: leasing due ones to a dispatcher and recording each attempt's result.
import type { Micros } from '../../core/time';
import { oncePerKey } from '../../core/once-per-key';
import type { DispatchState, WebhookKind } from '../../domain/webhook';
import { type AttemptResult, type LoggedAttempt, resultWithoutAnswer } from '../../domain/attempt';
import type { ClaimedDelivery, DeliveryKey, DeliveryRecord, DueCandidate } from '../../domain/delivery';
import type { SqliteDatabase } from './database';
import type { InProcessEndpointHealth } from './endpoint-health';
import { prepareAttemptAppend } from './delivery-log';
import { prepareStatsWrite } from './delivery-stats';
import {
  claimedFromRows,
  type ClaimedEventRow,
  type ClaimedWebhookRow,
  deliveryFromRow,
  type DeliveryRow,
  type DispatchRow,
  dispatchStateFromRow,
  type LeasedRow,
} from '../rows';
import type { OperationalEventMaker } from '../operational-plan';
import { prepareOperationalWrite } from './operational-events';
import {
  type FinishedMove,
  type LeasedMove,
  loggedAttempts,
  type NextDispatchState,
  operationalFactsWritten,
  planResults,
  type ResultsPlan,
  rollupOf,
} from '../results-plan';
import type { ClaimRequest, ClaimWindow, DeliveriesStore, WebhookBacklog } from '../store';
import { sendRateOf } from '../../domain/send-rate';
import { valuesOrThrow, writeTogetherOrApart } from '../write-apart';

/** The claim's statements, named so a test can check SQLite answers them from an index, not a scan. */
export const CLAIM_QUERIES = {
  nextPendingWebhook: `SELECT webhook_id AS webhookId FROM deliveries
      WHERE state = 'pending' AND webhook_id > ? ORDER BY webhook_id LIMIT 1`,
  dueOfWebhook: `SELECT id, next_attempt_at AS dueAt FROM deliveries
      WHERE state = 'pending' AND webhook_id = ? AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?`,
} as const;

export function createDeliveriesStore(db: SqliteDatabase, health: InProcessEndpointHealth): DeliveriesStore {
  // A claim looks at each webhook with pending deliveries through the partial index
  // deliveries_pending_by_webhook: one seek to find the next webhook, one range read of its oldest due
  // rows. Its cost grows with the number of such webhooks and log(backlog), never with the backlog itself:
  // a busy webhook's thousands of due rows are not read while it has no room.
  const nextPendingWebhook = db.prepare<[string], { webhookId: string }>(CLAIM_QUERIES.nextPendingWebhook);
  const dueOfWebhook = db.prepare<[string, number, number], { id: string; dueAt: Micros }>(CLAIM_QUERIES.dueOfWebhook);
  // The account a claim's fairness needs, and the webhook's delivery rate: read once per webhook with due
  // deliveries, not joined into every row.
  const accountOfWebhook = db.prepare<
    [string],
    { accountId: number; perSecond: number | null; rateNextAt: Micros | null }
  >(
    `SELECT account_id AS accountId, max_requests_per_second AS perSecond, rate_next_at AS rateNextAt
       FROM webhooks WHERE id = ?`,
  );
  // While leased, next_attempt_at holds the lease expiry: an expired lease is simply due again. lease_owner holds
  // the claim's own lease (the owner and a claim number), so a result applies only to the claim that made it.
  // The lease returns the row's own part of what is sent; its event's and webhook's parts are read once per claim,
  // as the deliveries of one claim share a few events and webhooks.
  const lease = db.prepare<[{ id: string; lease: string; leaseUntil: Micros }], LeasedRow>(
    `UPDATE deliveries SET lease_owner = @lease, next_attempt_at = @leaseUntil
      WHERE id = @id AND state = 'pending'
      RETURNING id, event_id, webhook_id, payload, attempts, last_attempt`,
  );
  const eventOfClaimed = db.prepare<[string], ClaimedEventRow>(
    'SELECT event_type, payload_tail, traceparent, tracestate FROM events WHERE id = ?',
  );
  const webhookOfClaimed = db.prepare<[string], ClaimedWebhookRow>(
    `SELECT client_url, sealed_secret, previous_sealed_secret, previous_secret_until, active, archived_at
       FROM webhooks WHERE id = ?`,
  );
  const appendAttempt = prepareAttemptAppend(db);
  const addStats = prepareStatsWrite(db);
  const moveLeased = db.prepare<[LeasedMove]>(
    `UPDATE deliveries SET state = @state, attempts = @attempts, next_attempt_at = @nextAttemptAt,
                           lease_owner = NULL, updated_at = @now,
                           last_attempt = CASE WHEN @state = 'pending' THEN last_attempt ELSE 0 END
      WHERE id = @deliveryId AND state = 'pending' AND lease_owner = @lease`,
  );
  // A recovery: the webhook's failed deliveries created in [since, until) are due again, oldest first, one
  // microsecond apart so the dispatcher keeps their order, each for one attempt more.
  const recoverFailed = db.prepare(
    `UPDATE deliveries
        SET state = 'pending', last_attempt = 1, updated_at = @now, next_attempt_at = @now + ranked.n
       FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM deliveries
              WHERE webhook_id = @webhookId AND state = 'failed' AND created_at >= @since AND created_at < @until) AS ranked
      WHERE deliveries.id = ranked.id`,
  );

  // A manual redelivery touches only a finished delivery, so it cannot race the dispatcher.
  const moveFinished = db.prepare<[FinishedMove]>(
    `UPDATE deliveries SET state = coalesce(@state, state), attempts = max(attempts, @attempts), updated_at = @now
      WHERE id = @deliveryId AND state <> 'pending'`,
  );
  const dispatchStateOf = db.prepare<[string], DispatchRow & { kind: WebhookKind; client_url: string }>(
    `SELECT http_status_code, dispatched_at, consecutive_failures, failing_since, last_failure_at, archived_at, archived_reason,
            kind, client_url
       FROM webhooks WHERE id = ?`,
  );
  const writeOperational = prepareOperationalWrite(db, health);
  const setDispatchState = db.prepare(
    `UPDATE webhooks
        SET http_status_code = @httpStatusCode, dispatched_at = @dispatchedAt, consecutive_failures = @consecutiveFailures,
            failing_since = @failingSince, last_failure_at = @lastFailureAt, archived_at = @archivedAt, archived_reason = @archivedReason
      WHERE id = @id`,
  );
  const skipPendingOf = db.prepare(
    `UPDATE deliveries SET state = 'skipped', next_attempt_at = NULL, lease_owner = NULL, updated_at = ?,
                           last_attempt = 0
      WHERE webhook_id = ? AND state = 'pending'`,
  );
  const skipLeased = db.prepare(
    `UPDATE deliveries SET state = 'skipped', next_attempt_at = NULL, lease_owner = NULL, updated_at = ?,
                           last_attempt = 0
      WHERE id = ? AND state = 'pending' AND lease_owner = ?`,
  );
  const getDelivery = db.prepare<[string, string], DeliveryRow>(
    `SELECT d.id, d.event_id, e.event_type, d.webhook_id, d.payload, e.payload_tail, e.traceparent, e.tracestate,
            d.attempts, d.state
       FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.webhook_id = ? AND d.id = ?`,
  );
  const countDue = db.prepare<[number], { n: number }>(
    `SELECT count(*) AS n FROM deliveries WHERE state = 'pending' AND next_attempt_at <= ?`,
  );
  // Through deliveries_pending_by_webhook: the backlog's rows, never the finished ones.
  const backlogOf = db.prepare<[number, number], WebhookBacklog>(
    `SELECT d.webhook_id AS webhookId, count(*) AS pending,
            sum(CASE WHEN d.next_attempt_at <= ? THEN 1 ELSE 0 END) AS due
       FROM webhooks w JOIN deliveries d ON d.webhook_id = w.id AND d.state = 'pending'
      WHERE w.account_id = ? GROUP BY d.webhook_id`,
  );

  /** The oldest due deliveries of every webhook that has room (the dispatcher chooses among them). */
  function dueCandidates(request: ClaimRequest): DueCandidate[] {
    const excluded = new Set(request.excludeWebhookIds);
    const rows: DueCandidate[] = [];
    for (let after = nextPendingWebhook.get(''); after; after = nextPendingWebhook.get(after.webhookId)) {
      const { webhookId } = after;
      // A webhook whose endpoint's circuit is open gets nothing until its probe is due.
      if (excluded.has(webhookId) || health.isClosedOff(webhookId, request.now)) continue;
      const due = dueOfWebhook.all(webhookId, request.now, request.perWebhook);
      if (due.length === 0) continue;
      const webhook = accountOfWebhook.get(webhookId);
      if (webhook === undefined) continue; // deleted since: its deliveries go with it
      const { accountId } = webhook;
      const sendRate = sendRateOf(webhook.perSecond, webhook.rateNextAt);
      // One process owns a SQLite database (the file lock), so every lease in flight is this process's own.
      const endpointHealth = health.of(webhookId);
      const endpointHealthRevision = health.revisionOf(webhookId);
      for (const { id, dueAt } of due) {
        rows.push({
          id,
          webhookId,
          accountId,
          dueAt,
          inFlightElsewhere: 0,
          endpointHealth,
          endpointHealthRevision,
          sendRate,
        });
      }
    }
    return rows;
  }

  let claimsMade = 0;
  /** A row of a leased delivery's event or webhook: its delivery's foreign key says it is there. */
  function rowOf<Row>(read: { get(id: string): Row | undefined }, id: string): Row {
    const row = read.get(id);
    if (row === undefined) throw new Error(`The row ${id} of a leased delivery is missing`);
    return row;
  }

  const claimInTransaction = db.transaction(
    (request: ClaimRequest, choose: (candidates: DueCandidate[], window: ClaimWindow) => DueCandidate[]) => {
      const candidates = dueCandidates(request);
      const leaseOfClaim = `${request.owner}/${(claimsMade += 1)}`;
      const eventRows = oncePerKey((id: string) => rowOf(eventOfClaimed, id));
      const webhookRows = oncePerKey((id: string) => rowOf(webhookOfClaimed, id));
      const result: ClaimedDelivery[] = [];
      // Every webhook with due deliveries is looked at: the window is never full.
      for (const candidate of choose(candidates, { full: false })) {
        const leased = lease.get({ id: candidate.id, lease: leaseOfClaim, leaseUntil: request.leaseUntil });
        if (leased === undefined) continue;
        const event = eventRows(leased.event_id);
        const webhook = webhookRows(leased.webhook_id);
        result.push(claimedFromRows(leased, event, webhook, candidate, leaseOfClaim));
      }
      return result;
    },
  );

  /**
   * Each webhook's dispatch state as this transaction reads it (a deleted webhook has none), which of them are
   * operational endpoints, and each one's URL.
   */
  function statesOf(results: readonly AttemptResult[]) {
    const states = new Map<string, DispatchState>();
    const operational = new Set<string>();
    const clientUrls = new Map<string, string>();
    for (const webhookId of new Set(results.map((r) => r.log.webhookId))) {
      const row = dispatchStateOf.get(webhookId);
      if (row) states.set(webhookId, dispatchStateFromRow(row));
      if (row) clientUrls.set(webhookId, row.client_url);
      if (row?.kind === 'operational') operational.add(webhookId);
    }
    return { states, operational, clientUrls };
  }

  /** Writes what planResults decided (results-plan.ts), row by row, and the operational events of its facts. */
  function writePlan(plan: ResultsPlan, maker: OperationalEventMaker | null): number[] {
    // Every webhook in the plan exists: read in this transaction.
    const ids = plan.logged.map(({ entry }) => appendAttempt(entry)!);
    const moved = new Set<string>();
    for (const move of plan.leasedMoves) if (moveLeased.run(move).changes === 1) moved.add(move.deliveryId);
    addStats(rollupOf(plan.rollup, (deliveryId) => moved.has(deliveryId)));
    for (const move of plan.finishedMoves) moveFinished.run(move);
    for (const [id, state] of plan.dispatchStates) setDispatchState.run({ ...state, id });
    for (const { webhookId, at } of plan.archived) skipPendingOf.run(at, webhookId);
    // After the skips: an operational endpoint archived by this batch gets its events as skipped deliveries.
    if (maker !== null)
      writeOperational(
        operationalFactsWritten(plan.operational, (id) => moved.has(id)),
        maker,
      );
    return ids;
  }

  const recordInTransaction = db.transaction(
    (results: readonly AttemptResult[], next: NextDispatchState, maker: OperationalEventMaker | null) => {
      const { states, operational, clientUrls } = statesOf(results);
      const plan = planResults(results, states, next, operational, clientUrls);
      return { logged: loggedAttempts(results, plan, writePlan(plan, maker)), healthChanges: plan.healthChanges };
    },
  );

  /**
   * The batch's transaction, then the endpoint health of answers that changed nothing when they came in
   * (delivery/endpoint-health.ts), for the webhooks that still exist: once committed, so a failed commit leaves the
   * health as it was, with the results.
   */
  function record(
    batch: readonly AttemptResult[],
    next: NextDispatchState,
    maker: OperationalEventMaker | null,
  ): Array<LoggedAttempt | null> {
    const { logged, healthChanges } = recordInTransaction.immediate(batch, next, maker);
    health.applyDeferred(healthChanges, maker);
    return logged;
  }

  const skipInTransaction = db.transaction((keys: readonly DeliveryKey[], leaseOfClaim: string, now: Micros) => {
    for (const { id } of keys) skipLeased.run(now, id, leaseOfClaim);
  });

  return {
    claimDue: async (request, choose) => claimInTransaction.immediate(request, choose),
    recordAttempts: async (results, next, maker = null) =>
      valuesOrThrow(
        await writeTogetherOrApart(
          results,
          async (batch) => (batch.length > 0 ? record(batch, next, maker) : []),
          resultWithoutAnswer,
        ),
      ),
    skip: async (keys, leaseOfClaim, now) => {
      if (keys.length > 0) skipInTransaction.immediate(keys, leaseOfClaim, now);
    },
    get: async (webhookId, deliveryId): Promise<DeliveryRecord | null> => {
      const row = getDelivery.get(webhookId, deliveryId);
      return row ? deliveryFromRow(row) : null;
    },
    countDue: async (now) => countDue.get(now)!.n,
    backlogOf: async (accountId, now) => backlogOf.all(now, accountId),
    recoverFailed: async (webhookId, window, now) =>
      recoverFailed.run({ webhookId, since: window.since, until: window.until, now }).changes,
  };
}
