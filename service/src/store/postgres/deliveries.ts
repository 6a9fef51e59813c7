// PostgreSQL access to deliveries: leasing due ones to the dispatchers of several instances, and recording each
// attempt's result. A claim takes a webhook only if it gets that webhook's transaction-scoped advisory lock, so
// instances claiming at the same moment split the webhooks between them; the lease itself re-checks that the
// row is still pending and due, so no delivery is ever leased twice, lock or not. A claim passes over webhooks
// whose endpoint's circuit is open, and reads the others' endpoint health for the dispatcher to go by.
import type pg from 'pg';
import type { EventType } from '@jobhooks/client/contract';
import { type AttemptResult, type LoggedAttempt, resultWithoutAnswer } from '../../domain/attempt';
import type { ClaimedDelivery, DeliveryRecord, DeliveryState, DueCandidate } from '../../domain/delivery';
import type { DispatchState, WebhookKind } from '../../domain/webhook';
import type { ClaimRequest, ClaimWindow, DeliveriesStore, WebhookBacklog } from '../store';
import { sendRateOf } from '../../domain/send-rate';
import { asColumns, type PgDatabase, prepared } from './database';
import {
  claimedFromRow,
  type ClaimedRow,
  deliveryFromRow,
  type DeliveryRow,
  type DispatchRow,
  dispatchStateFromRow,
} from '../rows';
import { appendAttempts } from './delivery-log';
import { writeOperationalEvents } from './operational-events';
import type { OperationalEventMaker } from '../operational-plan';
import { addStatsHours } from './delivery-stats';
import {
  applyHealthChanges,
  healthColumnsOf,
  healthFromRow,
  type HealthRow,
  keptHealthFromRow,
} from './endpoint-health';
import { ADVISORY_LOCKS } from './migrate';
import { CHANNELS } from './migrations';
import { createSerialBatches } from './serial-batches';
import { settleAll, type Waiting, writeTogetherOrApart } from '../write-apart';
import {
  type LeasedMove,
  loggedAttempts,
  type NextDispatchState,
  operationalFactsWritten,
  planResults,
  type ResultsPlan,
  rollupOf,
} from '../results-plan';

/**
 * Webhooks one claim looks at, those whose oldest due delivery is oldest first: no claim can send to more webhooks
 * than the dispatcher has request slots (256 by default), and each is an advisory lock held until the claim ends.
 */
const WEBHOOKS_PER_CLAIM = 256;

// A claim is two statements. The first locks the webhooks to look at. The second, whose snapshot is taken once the
// locks are held, counts their leases in flight elsewhere and reads their due deliveries and health: a claim of
// another instance that held one of these locks has committed by then, so its leases are counted (read in the
// same statement as the locks, they could be missed, and the webhook's in-flight limit overshot).
// Both are prepared: they reach deliveries only through deliveries_pending_by_webhook, one webhook at a time, in
// the index's order and with a LIMIT, a plan that a table grown since does not make worse (prepared, in the bench
// run that grows a table from empty to 50,000 deliveries to one webhook, the first took 0.16 ms a call).
// A webhook whose circuit is open, or whose rate holds its next start back (domain/send-rate.ts, startsAllowed), is
// passed over in the first, so its backlog takes none of the claim's places while others wait. The first also says
// how many webhooks it looked at, locked or not (looked_at): all it may, and more may have deliveries due.
// The webhooks the dispatcher leaves out ($2) can number thousands (unproven ones held while their share of the
// slots is used: dispatch-stages.ts), so each webhook is looked up in a hash of them (NOT IN a subquery): the
// prepared statement's generic plan compares each row with every element of a plain `= ANY($2)`.
const LOCK_DUE_WEBHOOKS = prepared(`
  WITH heads AS MATERIALIZED (
    SELECT w.id AS webhook_id, h.next_attempt_at
      FROM webhooks w
      CROSS JOIN LATERAL (SELECT d.next_attempt_at FROM deliveries d
                           WHERE d.state = 'pending' AND d.webhook_id = w.id AND d.next_attempt_at <= $1
                           ORDER BY d.next_attempt_at LIMIT 1) h
     WHERE w.id NOT IN (SELECT unnest($2::text[])) AND NOT coalesce(w.circuit_until > $1, false)
       AND NOT (w.max_requests_per_second IS NOT NULL AND coalesce(w.rate_next_at > $1, false))
     ORDER BY h.next_attempt_at LIMIT ${WEBHOOKS_PER_CLAIM}
  )
  SELECT webhook_id, (SELECT count(*) FROM heads)::int AS looked_at
    FROM heads WHERE pg_try_advisory_xact_lock(${ADVISORY_LOCKS.claims}, hashtext(webhook_id))`);
const DUE_CANDIDATES = prepared(`
  WITH busy AS MATERIALIZED (
    SELECT w.id AS webhook_id, w.account_id, w.max_requests_per_second, w.rate_next_at, ${healthColumnsOf('w')},
           (SELECT count(*) FROM deliveries l
             WHERE l.state = 'pending' AND l.webhook_id = w.id AND l.lease_owner IS NOT NULL
               AND l.next_attempt_at > $1 AND left(l.lease_owner, length($4)) <> $4)::int AS elsewhere
      FROM webhooks w
     WHERE w.id = ANY($2::text[]) AND NOT coalesce(w.circuit_until > $1, false)
  )
  SELECT c.id, busy.webhook_id, busy.account_id, c.next_attempt_at AS due_at, busy.elsewhere,
         busy.max_requests_per_second, busy.rate_next_at, ${healthColumnsOf('busy')}
    FROM busy CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at FROM deliveries d
       WHERE d.state = 'pending' AND d.webhook_id = busy.webhook_id AND d.next_attempt_at <= $1
       ORDER BY d.next_attempt_at LIMIT $3) c`);

// While leased, next_attempt_at holds the lease's end: an expired lease is simply due again. The WHERE is checked
// again on the newest row, so a delivery another instance leased meanwhile is left alone.
// LEASE and MOVE_LEASED find their rows by id in a table that can grow fast from empty: prepared, their generic
// plan, made while the table was small, kept scanning all of it (3 ms a call in a bench run of 50,000 deliveries
// to one webhook, against 1 ms planned at each call), so they are planned at each call, for the table as it is.
// Each finds its rows through the primary key alone, by webhook and id (the key leads with the webhook, so that a
// webhook's deliveries need no other index). A plain `d.state = 'pending'` lets the planner read the whole
// of deliveries_pending_by_webhook as well (its condition holds the partial index's own), and with a small backlog
// among many finished rows it did, at every call: the lease wraps the condition in IS TRUE, which no index answers,
// and a result or skip needs none, as only a pending row holds a lease (each way out of pending clears it).
const LEASE = `
  WITH leased AS (
    UPDATE deliveries d SET lease_owner = $1, next_attempt_at = $2
      FROM unnest($3::text[], $4::text[]) AS k(webhook_id, id)
     WHERE d.webhook_id = k.webhook_id AND d.id = k.id AND (d.state = 'pending' AND d.next_attempt_at <= $5) IS TRUE
    RETURNING d.id, d.event_id, d.webhook_id, d.payload, d.attempts, d.last_attempt)
  SELECT l.*, e.event_type, e.payload_tail, e.traceparent, e.tracestate, w.client_url, w.sealed_secret, w.previous_sealed_secret,
         w.previous_secret_until, w.active, w.archived_at
    FROM leased l JOIN events e ON e.id = l.event_id JOIN webhooks w ON w.id = l.webhook_id`;

const DISPATCH_COLUMNS = `http_status_code, dispatched_at, consecutive_failures, failing_since, last_failure_at,
  archived_at, archived_reason`;
/**
 * Sorted ids: every transaction locks webhooks in the same order, so two never wait for each other. Held until the
 * batch commits, the lock also keeps a webhook's deletion waiting until the batch's log rows are in.
 */
export const LOCK_DISPATCH_STATES = prepared(`
  SELECT w.id, w.kind, w.client_url, ${DISPATCH_COLUMNS}, ${healthColumnsOf('w')}
    FROM webhooks w WHERE w.id = ANY($1::text[]) ORDER BY w.id FOR NO KEY UPDATE`);
// The statements of a batch of results take one array per column, so a batch costs the same few round trips
// however many results it holds.
const SET_DISPATCH_STATES = prepared(`
  UPDATE webhooks w SET http_status_code = u.http_status_code, dispatched_at = u.dispatched_at,
                        consecutive_failures = u.consecutive_failures, failing_since = u.failing_since,
                        last_failure_at = u.last_failure_at, archived_at = u.archived_at,
                        archived_reason = u.archived_reason
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::integer[], $5::bigint[], $6::bigint[], $7::bigint[],
                $8::text[])
         AS u(id, http_status_code, dispatched_at, consecutive_failures, failing_since, last_failure_at, archived_at,
              archived_reason)
   WHERE w.id = u.id`);
const MOVE_LEASED = `
  UPDATE deliveries d SET state = u.state, attempts = u.attempts, next_attempt_at = u.next_attempt_at,
                          lease_owner = NULL, updated_at = u.now,
                          last_attempt = CASE WHEN u.state = 'pending' THEN d.last_attempt ELSE 0 END
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::bigint[], $7::bigint[])
         AS u(webhook_id, id, lease, state, attempts, next_attempt_at, now)
   WHERE d.webhook_id = u.webhook_id AND d.id = u.id AND d.lease_owner = u.lease
  RETURNING d.id`;
// A manual redelivery touches only a finished delivery, so it cannot race a dispatcher.
const MOVE_FINISHED = `
  UPDATE deliveries SET state = coalesce($2, state), attempts = greatest(attempts, $3), updated_at = $4
   WHERE webhook_id = $5 AND id = $1 AND state <> 'pending'`;
const SKIP_PENDING_OF = `
  UPDATE deliveries SET state = 'skipped', next_attempt_at = NULL, lease_owner = NULL,
                        updated_at = $2, last_attempt = 0
   WHERE webhook_id = $1 AND state = 'pending'`;
const SKIP_LEASED = `
  UPDATE deliveries SET state = 'skipped', next_attempt_at = NULL, lease_owner = NULL,
                        updated_at = $4, last_attempt = 0
    FROM unnest($1::text[], $2::text[]) AS k(webhook_id, id)
   WHERE deliveries.webhook_id = k.webhook_id AND deliveries.id = k.id AND lease_owner = $3`;
/** The statements that find leased rows by id, for the test of their plans. */
export const BY_ID_STATEMENTS = { lease: LEASE, moveLeased: MOVE_LEASED, skipLeased: SKIP_LEASED };
/** The claim's first statement, for the test of its plan. */
export const CLAIM_LOCK_STATEMENT = LOCK_DUE_WEBHOOKS.text;

const GET_DELIVERY = `
  SELECT d.id, d.event_id, e.event_type, d.webhook_id, d.payload, e.payload_tail, e.traceparent, e.tracestate,
         d.attempts, d.state
    FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.webhook_id = $1 AND d.id = $2`;
const COUNT_DUE = `SELECT count(*) AS n FROM deliveries WHERE state = 'pending' AND next_attempt_at <= $1`;
// Through deliveries_pending_by_webhook: the backlog's rows, never the finished ones.
const BACKLOG_OF = `
  SELECT d.webhook_id AS "webhookId", count(*)::int AS pending,
         count(*) FILTER (WHERE d.next_attempt_at <= $2)::int AS due
    FROM webhooks w JOIN deliveries d ON d.webhook_id = w.id AND d.state = 'pending'
   WHERE w.account_id = $1 GROUP BY d.webhook_id`;
// The webhook's failed deliveries created in [since, until) are due again, oldest first, one microsecond apart so
// the dispatcher keeps their order, each for one attempt more.
const RECOVER_FAILED = `
  UPDATE deliveries d SET state = 'pending', last_attempt = 1, updated_at = $4, next_attempt_at = $4 + ranked.n
    FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM deliveries
           WHERE webhook_id = $1 AND state = 'failed' AND created_at >= $2 AND created_at < $3) AS ranked
   WHERE d.webhook_id = $1 AND d.id = ranked.id`;
const NOTIFY_DUE = `SELECT pg_notify('${CHANNELS.due}', '')`;

interface CandidateRow extends HealthRow {
  id: string;
  webhook_id: string;
  account_id: number;
  due_at: number;
  elsewhere: number;
  max_requests_per_second: number | null;
  rate_next_at: number | null;
}

/** The dispatch and health columns of a webhook row and its id, as LOCK_DISPATCH_STATES selects them. */
type PgDispatchRow = DispatchRow & HealthRow & { id: string; kind: WebhookKind; client_url: string };

/** The columns of MOVE_LEASED. */
function leasedMoveColumns(moves: readonly LeasedMove[]): unknown[][] {
  return asColumns(
    moves.map((m) => [m.webhookId, m.deliveryId, m.lease, m.state, m.attempts, m.nextAttemptAt, m.now]),
    7,
  );
}

function dispatchStateColumns(states: ReadonlyMap<string, DispatchState>): unknown[][] {
  const rows = [...states].map(([webhookId, s]) => [
    webhookId,
    s.httpStatusCode,
    s.dispatchedAt,
    s.consecutiveFailures,
    s.failingSince,
    s.lastFailureAt,
    s.archivedAt,
    s.archivedReason,
  ]);
  return asColumns(rows, 8);
}

/**
 * Writes what planResults decided (results-plan.ts), one statement per table, for webhooks the caller holds, and the
 * operational events of its facts.
 */
async function writePlan(
  client: pg.PoolClient,
  plan: ResultsPlan,
  maker: OperationalEventMaker | null,
): Promise<number[]> {
  const ids = await appendAttempts(
    client,
    plan.logged.map(({ entry }) => entry),
  );
  const moved = new Set<string>();
  if (plan.leasedMoves.length > 0) {
    const { rows } = await client.query<{ id: string }>(MOVE_LEASED, leasedMoveColumns(plan.leasedMoves));
    for (const { id } of rows) moved.add(id);
  }
  await addStatsHours(
    client,
    rollupOf(plan.rollup, (deliveryId) => moved.has(deliveryId)),
  );
  for (const m of plan.finishedMoves)
    await client.query(MOVE_FINISHED, [m.deliveryId, m.state, m.attempts, m.now, m.webhookId]);
  if (plan.dispatchStates.size > 0) await client.query(SET_DISPATCH_STATES, dispatchStateColumns(plan.dispatchStates));
  for (const { webhookId, at } of plan.archived) await client.query(SKIP_PENDING_OF, [webhookId, at]);
  // After the skips: an operational endpoint archived by this batch gets its events as skipped deliveries.
  if (maker !== null)
    await writeOperationalEvents(
      client,
      operationalFactsWritten(plan.operational, (id) => moved.has(id)),
      maker,
    );
  return ids;
}

async function recordInTransaction(
  client: pg.PoolClient,
  results: readonly AttemptResult[],
  next: NextDispatchState,
  maker: OperationalEventMaker | null,
): Promise<Array<LoggedAttempt | null>> {
  const webhookIds = [...new Set(results.map((r) => r.log.webhookId))].sort();
  const { rows } = await client.query<PgDispatchRow>(LOCK_DISPATCH_STATES, [webhookIds]);
  const plan = planResults(
    results,
    new Map(rows.map((row) => [row.id, dispatchStateFromRow(row)])),
    next,
    new Set(rows.filter((row) => row.kind === 'operational').map((row) => row.id)),
    new Map(rows.map((row) => [row.id, row.client_url])),
  );
  const ids = await writePlan(client, plan, maker);
  // The endpoint health of answers that changed nothing their instance knew: the row may say otherwise (another
  // instance's answers), and it is held here anyway. Written only where it changes. Last, after every statement
  // that could refuse a row: a deferred change marks itself applied when it runs (endpoint-health.ts), so a
  // batch refused after it ran and written again apart would lose it.
  // The circuit's operational events are written with it, last too (only a failing database refuses them).
  if (plan.healthChanges.length > 0) {
    const healthBefore = new Map(rows.map((row) => [row.id, keptHealthFromRow(row)]));
    await applyHealthChanges(client, healthBefore, plan.healthChanges, maker);
  }
  return loggedAttempts(results, plan, ids);
}

interface WaitingResults extends Waiting<Array<LoggedAttempt | null>> {
  results: readonly AttemptResult[];
  next: NextDispatchState;
  maker: OperationalEventMaker | null;
}

/**
 * Results are written one transaction at a time per instance, each taking every result that arrived while the
 * previous one ran. Results of one moment lock the same webhooks: transactions started side by side would only
 * wait for each other's locks, holding a connection each, where one larger transaction commits them all at once.
 * A result the database refuses is written apart (write-apart.ts), so it costs no other caller its results.
 */
function createResultsWriter(db: PgDatabase) {
  async function writeTogether(group: WaitingResults[]): Promise<void> {
    const { next, maker } = group[0]!;
    const written = await writeTogetherOrApart(
      group.flatMap((w) => w.results),
      (results) => db.transaction((client) => recordInTransaction(client, results, next, maker)),
      resultWithoutAnswer,
    );
    let offset = 0;
    for (const w of group) {
      const own = written.slice(offset, offset + w.results.length);
      offset += w.results.length;
      settleAll(w, own);
    }
  }

  const enqueue = createSerialBatches<WaitingResults>(async (taken) => {
    // Results folded by different rules or makers (never the case in the service: every caller passes the same) go
    // apart.
    const groups: WaitingResults[][] = [];
    for (const w of taken) {
      const same = groups.find((g) => g[0]!.next === w.next && g[0]!.maker === w.maker);
      if (same === undefined) groups.push([w]);
      else same.push(w);
    }
    for (const group of groups) await writeTogether(group);
  });

  return (results: readonly AttemptResult[], next: NextDispatchState, maker: OperationalEventMaker | null) =>
    new Promise<Array<LoggedAttempt | null>>((resolve, reject) => enqueue({ results, next, maker, resolve, reject }));
}

export function createPgDeliveriesStore(db: PgDatabase): DeliveriesStore {
  let claimsMade = 0;
  const writeResults = createResultsWriter(db);

  async function claimInTransaction(
    client: pg.PoolClient,
    request: ClaimRequest,
    choose: (candidates: DueCandidate[], window: ClaimWindow) => DueCandidate[],
  ): Promise<ClaimedDelivery[]> {
    const locked = await client.query<{ webhook_id: string; looked_at: number }>(LOCK_DUE_WEBHOOKS, [
      request.now,
      request.excludeWebhookIds,
    ]);
    if (locked.rows.length === 0) return [];
    const { rows } = await client.query<CandidateRow>(DUE_CANDIDATES, [
      request.now,
      locked.rows.map((row) => row.webhook_id),
      request.perWebhook,
      // Every lease this process makes starts so (see `lease` below); any other lease is in flight elsewhere.
      `${request.owner}/`,
    ]);
    const chosen = choose(
      rows.map((r) => ({
        id: r.id,
        webhookId: r.webhook_id,
        accountId: r.account_id,
        dueAt: r.due_at,
        inFlightElsewhere: r.elsewhere,
        endpointHealth: healthFromRow(r),
        endpointHealthRevision: r.endpoint_health_revision,
        sendRate: sendRateOf(r.max_requests_per_second, r.rate_next_at),
      })),
      { full: locked.rows[0]!.looked_at >= WEBHOOKS_PER_CLAIM },
    );
    if (chosen.length === 0) return [];
    const lease = `${request.owner}/${(claimsMade += 1)}`;
    const leased = await client.query<ClaimedRow>(LEASE, [
      lease,
      request.leaseUntil,
      chosen.map((c) => c.webhookId),
      chosen.map((c) => c.id),
      request.now,
    ]);
    const byId = new Map(leased.rows.map((row) => [row.id, row]));
    // In the order the fairness rule chose them.
    return chosen.flatMap((c) => {
      const row = byId.get(c.id);
      return row === undefined ? [] : [claimedFromRow(row, c, lease)];
    });
  }

  return {
    claimDue: (request, choose) => db.transaction((client) => claimInTransaction(client, request, choose)),
    recordAttempts: async (results, next, maker = null) =>
      results.length === 0 ? [] : writeResults(results, next, maker),
    skip: async (keys, lease, now) => {
      if (keys.length > 0)
        await db.query(SKIP_LEASED, [keys.map((k) => k.webhookId), keys.map((k) => k.id), lease, now]);
    },
    get: async (webhookId, deliveryId): Promise<DeliveryRecord | null> => {
      const { rows } = await db.query<DeliveryRow>(GET_DELIVERY, [webhookId, deliveryId]);
      return rows[0] ? deliveryFromRow(rows[0]) : null;
    },
    countDue: async (now) => (await db.query<{ n: number }>(COUNT_DUE, [now])).rows[0]!.n,
    backlogOf: async (accountId, now) => (await db.query<WebhookBacklog>(BACKLOG_OF, [accountId, now])).rows,
    recoverFailed: (webhookId, window, now) =>
      db.transaction(async (client) => {
        const recovered =
          (await client.query(RECOVER_FAILED, [webhookId, window.since, window.until, now])).rowCount ?? 0;
        // Other instances' dispatchers hear of it; this one's is woken by the caller.
        if (recovered > 0) await client.query(NOTIFY_DUE);
        return recovered;
      }),
  };
}
