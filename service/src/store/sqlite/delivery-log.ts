// SQLite access to the delivery log: every attempt, newest first, purged after the retention period.
import type { Micros } from '../../core/time';
import type { SqliteDatabase } from './database';
import { attemptFromRow, type AttemptRow } from '../rows';
import { type AttemptLogEntry, type LoggedAttempt, withoutAnswer } from '../../domain/attempt';
import { HOUR_MICROS } from '../../domain/delivery-stats';
import type { DeliveryLogFilter, DeliveryLogStore } from '../store';
import { createStatsReads } from './delivery-stats';
import { valuesOrThrow, writeTogetherOrApart } from '../write-apart';

/**
 * The one statement that writes a delivery-log row, for the test endpoint's sends and the dispatcher's
 * attempts alike. It writes only while the webhook and the delivery exist (one deleted during the send, or a
 * finished delivery purged during a redelivery, has no log to add to) and returns the row's id, or null when
 * nothing was written.
 */
export function prepareAttemptAppend(db: SqliteDatabase): (entry: AttemptLogEntry) => number | null {
  const insert = db.prepare(
    `INSERT INTO delivery_attempts (delivery_id, webhook_id, event_id, event_type, attempt, requested_at, duration_ms,
                                    status_code, error, success, response_excerpt, response_headers, is_test)
     SELECT @deliveryId, @webhookId, @eventId, @eventType, @attempt, @requestedAt, @durationMs,
            @statusCode, @error, @success, @responseExcerpt, @responseHeaders, @isTest
      WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = @webhookId)
        AND (@deliveryId IS NULL OR EXISTS (SELECT 1 FROM deliveries WHERE id = @deliveryId))`,
  );
  return (entry) => {
    const result = insert.run({
      ...entry,
      success: entry.success ? 1 : 0,
      isTest: entry.isTest ? 1 : 0,
      responseHeaders: Object.keys(entry.responseHeaders).length === 0 ? null : JSON.stringify(entry.responseHeaders),
    });
    return result.changes === 1 ? Number(result.lastInsertRowid) : null;
  };
}

interface FilterParams {
  webhookId: string;
  since: Micros;
  until: Micros;
  success: number | null;
  eventType: string | null;
}

function filterParams(webhookId: string, filter: DeliveryLogFilter): FilterParams {
  return {
    webhookId,
    since: filter.since ?? 0,
    until: filter.until ?? Number.MAX_SAFE_INTEGER,
    success: filter.succeeded === undefined ? null : filter.succeeded ? 1 : 0,
    eventType: filter.eventType ?? null,
  };
}

export function createDeliveryLogStore(db: SqliteDatabase): DeliveryLogStore {
  const append = prepareAttemptAppend(db);
  // One statement for every combination of filters: an absent filter is a NULL that matches everything, and the
  // time window is always there (0 to the end of time by default), so the (webhook_id, requested_at) index serves.
  const MATCHES = `webhook_id = @webhookId AND requested_at >= @since AND requested_at < @until
      AND (@success IS NULL OR success = @success) AND (@eventType IS NULL OR event_type = @eventType)`;
  const page = db.prepare<[FilterParams & { limit: number; offset: number }], AttemptRow>(
    `SELECT * FROM delivery_attempts WHERE ${MATCHES} ORDER BY requested_at DESC, id DESC LIMIT @limit OFFSET @offset`,
  );
  const count = db.prepare<[FilterParams], { n: number }>(
    `SELECT count(*) AS n FROM delivery_attempts WHERE ${MATCHES}`,
  );
  const ofDelivery = db.prepare<[string, string], AttemptRow>(
    // `+webhook_id`: the delivery's own index finds its few rows; the webhook's would read its whole log.
    'SELECT * FROM delivery_attempts WHERE +webhook_id = ? AND delivery_id = ? ORDER BY requested_at, id',
  );
  const purgeAttempts = db.prepare('DELETE FROM delivery_attempts WHERE requested_at < ?');
  const purgeDeliveries = db.prepare(`DELETE FROM deliveries WHERE state <> 'pending' AND updated_at < ?`);
  const purgeEvents = db.prepare(
    `DELETE FROM events WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)`,
  );

  // An hour of the rollup goes once it has ended by the cutoff: the hour the cutoff falls in stays, though the
  // log has lost its start, until the next purge after it ends.
  const purgeHours = db.prepare('DELETE FROM delivery_stats WHERE hour <= ?');

  const purgeInTransaction = db.transaction((cutoff: number) => ({
    attempts: purgeAttempts.run(cutoff).changes,
    deliveries: purgeDeliveries.run(cutoff).changes,
    events: purgeEvents.run(cutoff).changes,
    hours: purgeHours.run(cutoff - HOUR_MICROS).changes,
  }));

  return {
    append: async (entry) => {
      valuesOrThrow(await writeTogetherOrApart([entry], async ([one]) => [append(one!)], withoutAnswer));
    },
    list: async (webhookId, { offset, limit }, filter = {}) => {
      const params = filterParams(webhookId, filter);
      return { items: page.all({ ...params, limit, offset }).map(attemptFromRow), total: count.get(params)!.n };
    },
    attemptsOf: async (webhookId, deliveryId) => ofDelivery.all(webhookId, deliveryId).map(attemptFromRow),
    purgeOlderThan: async (cutoff) => purgeInTransaction.immediate(cutoff),
    ...createStatsReads(db),
  };
}
