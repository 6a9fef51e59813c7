// The insert of an event's deliveries on SQLite, shared by job-run events (events.ts) and operational events
// (operational-events.ts).
import type { Micros } from '../../core/time';
import type { NewDelivery } from '../../domain/delivery';
import type { SqliteDatabase } from './database';

/**
 * Prepares the insert of an event's deliveries, each due at once when pending, and returns the function that
 * writes them (job-run events here, operational events in operational-events.ts).
 */
export function prepareDeliveriesInsert(db: SqliteDatabase) {
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, created_at, updated_at)
     VALUES (@id, @eventId, @webhookId, @state, @payload, 0, @nextAttemptAt, @createdAt, @createdAt)`,
  );
  return (event: { id: string; createdAt: Micros }, deliveries: readonly NewDelivery[]): void => {
    for (const delivery of deliveries) {
      insertDelivery.run({
        id: delivery.id,
        eventId: event.id,
        webhookId: delivery.webhookId,
        state: delivery.state,
        payload: delivery.payloadHead,
        nextAttemptAt: delivery.state === 'pending' ? event.createdAt : null,
        createdAt: event.createdAt,
      });
    }
  };
}
