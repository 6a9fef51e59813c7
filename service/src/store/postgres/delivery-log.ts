// PostgreSQL access to the delivery log: every attempt, newest first, purged after the retention period in
// batches, so no purge holds a long transaction (which would keep vacuum from reclaiming the queue's rows).
import type pg from 'pg';
import { type AttemptLogEntry, type LoggedAttempt, withoutAnswer } from '../../domain/attempt';
import { type AttemptRow, attemptFromRow } from '../rows';
import type { DeliveryLogFilter, DeliveryLogStore } from '../store';
import { valuesOrThrow, writeTogetherOrApart } from '../write-apart';
import { HOUR_MICROS } from '../../domain/delivery-stats';
import { asColumns, type PgDatabase, prepared } from './database';
import { createPgStatsReads } from './delivery-stats';

/**
 * Written only while the webhook and the delivery exist (one deleted during the send, or a finished delivery
 * purged during a redelivery, has no log to add to); returns the id. The webhook's row is locked until the
 * insert commits, so a deletion of the webhook waits for it, and its trigger then deletes the row with the rest of
 * the webhook's log.
 */
const APPEND = `
  INSERT INTO delivery_attempts (delivery_id, webhook_id, event_id, event_type, attempt, requested_at, duration_ms,
                                 status_code, error, success, response_excerpt, response_headers, is_test)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13
   WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = $2 FOR KEY SHARE)
     AND ($1::text IS NULL OR EXISTS (SELECT 1 FROM deliveries WHERE webhook_id = $2 AND id = $1))
  RETURNING id`;

/** The values of APPEND, in its order. */
export function appendValues(entry: AttemptLogEntry): unknown[] {
  return [
    entry.deliveryId,
    entry.webhookId,
    entry.eventId,
    entry.eventType,
    entry.attempt,
    entry.requestedAt,
    entry.durationMs,
    entry.statusCode,
    entry.error,
    entry.success,
    entry.responseExcerpt,
    Object.keys(entry.responseHeaders).length === 0 ? null : JSON.stringify(entry.responseHeaders),
    entry.isTest,
  ];
}

/** APPEND for many rows at once, as one array per column; for webhooks the caller has locked. */
const APPEND_MANY = prepared(`
  INSERT INTO delivery_attempts (delivery_id, webhook_id, event_id, event_type, attempt, requested_at, duration_ms,
                                 status_code, error, success, response_excerpt, response_headers, is_test)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::bigint[], $7::integer[],
                       $8::text[], $9::text[], $10::boolean[], $11::text[], $12::text[], $13::boolean[])
  RETURNING id`);

/**
 * Appends the log rows of webhooks the caller's transaction has locked, in one statement; their ids, in the
 * order of `entries`. The identity column numbers the rows in the order unnest gives them, so the ids sorted
 * ascending are the entries' ids in order (RETURNING itself promises no order).
 */
export async function appendAttempts(
  client: Pick<pg.PoolClient, 'query'>,
  entries: readonly AttemptLogEntry[],
): Promise<number[]> {
  if (entries.length === 0) return [];
  const rows = entries.map(appendValues);
  const { rows: inserted } = await client.query<{ id: number }>(APPEND_MANY, asColumns(rows, rows[0]!.length));
  return inserted.map((r) => r.id).sort((a, b) => a - b);
}

/** Appends a log row on `client` (inside a transaction) or the pool; its id, or null when the webhook is gone. */
export async function appendAttempt(
  client: Pick<pg.PoolClient, 'query'>,
  entry: AttemptLogEntry,
): Promise<number | null> {
  const { rows } = await client.query<{ id: number }>(APPEND, appendValues(entry));
  return rows[0]?.id ?? null;
}

// An absent filter is a NULL that matches everything; the time window is always there, so the
// (webhook_id, requested_at) index serves.
const MATCHES = `webhook_id = $1 AND requested_at >= $2 AND requested_at < $3
  AND ($4::boolean IS NULL OR success = $4) AND ($5::text IS NULL OR event_type = $5)`;
const PAGE = `SELECT * FROM delivery_attempts WHERE ${MATCHES} ORDER BY requested_at DESC, id DESC LIMIT $6 OFFSET $7`;
const COUNT = `SELECT count(*) AS n FROM delivery_attempts WHERE ${MATCHES}`;
const OF_DELIVERY = `SELECT * FROM delivery_attempts WHERE webhook_id = $1 AND delivery_id = $2 ORDER BY requested_at, id`;

/** Rows deleted per statement: each batch is its own short transaction. */
const PURGE_BATCH = 5000;
const PURGE_ATTEMPTS = `
  DELETE FROM delivery_attempts WHERE id IN (
    SELECT id FROM delivery_attempts WHERE requested_at < $1 LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)`;
const PURGE_DELIVERIES = `
  DELETE FROM deliveries WHERE (webhook_id, id) IN (
    SELECT webhook_id, id FROM deliveries WHERE state <> 'pending' AND updated_at < $1
     LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)`;
const PURGE_EVENTS = `
  DELETE FROM events WHERE id IN (
    SELECT id FROM events WHERE created_at < $1 AND deliveries_left = 0
     LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)`;
// An hour of the rollup goes once it has ended by the cutoff (one row per webhook and hour: few at a time).
const PURGE_HOURS = `DELETE FROM delivery_stats WHERE hour <= $1`;

function filterValues(webhookId: string, filter: DeliveryLogFilter): unknown[] {
  return [
    webhookId,
    filter.since ?? 0,
    filter.until ?? Number.MAX_SAFE_INTEGER,
    filter.succeeded ?? null,
    filter.eventType ?? null,
  ];
}

/** Deletes in batches until a batch is not full; how many rows in all. */
async function deleteInBatches(db: PgDatabase, statement: string, cutoff: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = (await db.query(statement, [cutoff])).rowCount ?? 0;
    total += deleted;
    if (deleted < PURGE_BATCH) return total;
  }
}

export function createPgDeliveryLogStore(db: PgDatabase): DeliveryLogStore {
  return {
    append: async (entry) => {
      valuesOrThrow(
        await writeTogetherOrApart([entry], async ([one]) => [await appendAttempt(db.pool, one!)], withoutAnswer),
      );
    },
    list: async (webhookId, { offset, limit }, filter = {}) => {
      const values = filterValues(webhookId, filter);
      const [page, count] = await Promise.all([
        db.query<AttemptRow>(PAGE, [...values, limit, offset]),
        db.query<{ n: number }>(COUNT, values),
      ]);
      return { items: page.rows.map(attemptFromRow), total: count.rows[0]!.n };
    },
    attemptsOf: async (webhookId, deliveryId) =>
      (await db.query<AttemptRow>(OF_DELIVERY, [webhookId, deliveryId])).rows.map(attemptFromRow),
    purgeOlderThan: async (cutoff) => ({
      attempts: await deleteInBatches(db, PURGE_ATTEMPTS, cutoff),
      deliveries: await deleteInBatches(db, PURGE_DELIVERIES, cutoff),
      events: await deleteInBatches(db, PURGE_EVENTS, cutoff),
      hours: (await db.query(PURGE_HOURS, [cutoff - HOUR_MICROS])).rowCount ?? 0,
    }),
    ...createPgStatsReads(db),
  };
}
