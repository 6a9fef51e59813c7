// SQLite access to job-run events: recording an event and its fan-out to deliveries in one transaction, shared
// with the other events taken in at the same moment (group commit).
import type { SqliteDatabase } from './database';
import { createGroupCommit } from './group-commit';
import type { EventRecord } from '../../domain/event';
import type { PlannedDeliveries } from '../../domain/delivery';
import type { WebhookRecord } from '../../domain/webhook';
import type { EventsStore, IngestOutcome } from '../store';
import { webhookFromRow, type WebhookRow } from '../rows';
import { SELECT_WEBHOOK } from './webhooks';

export function createEventsStore(db: SqliteDatabase): EventsStore {
  const findEvent = db.prepare<[number, string, string], { id: string }>(
    'SELECT id FROM events WHERE account_id = ? AND run_id = ? AND event_type = ?',
  );
  const insertEvent = db.prepare(
    `INSERT INTO events (id, account_id, event_type, run_id, job_id, created_at, payload_tail)
     VALUES (@id, @accountId, @eventType, @runId, @jobId, @createdAt, @payloadTail)`,
  );
  const webhooksOf = db.prepare<[number], WebhookRow>(
    `${SELECT_WEBHOOK} WHERE w.account_id = ? ORDER BY w.created_at, w.id`,
  );
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, created_at, updated_at)
     VALUES (@id, @eventId, @webhookId, @state, @payload, 0, @nextAttemptAt, @createdAt, @createdAt)`,
  );

  // The events of one transaction are mostly one account's: its webhooks are read once per transaction, not
  // once per event. Nothing changes them inside the transaction, and the next one reads them afresh.
  let webhooksRead = new Map<number, WebhookRecord[]>();
  function webhooksOfAccount(accountId: number): WebhookRecord[] {
    let webhooks = webhooksRead.get(accountId);
    if (webhooks === undefined) {
      webhooks = webhooksOf.all(accountId).map(webhookFromRow);
      webhooksRead.set(accountId, webhooks);
    }
    return webhooks;
  }

  const recordInTransaction = createGroupCommit(
    db,
    (event: EventRecord, fanOut: (webhooks: WebhookRecord[]) => PlannedDeliveries): IngestOutcome => {
      const previous = findEvent.get(event.accountId, event.runId, event.eventType);
      if (previous) return { kind: 'duplicate', eventId: previous.id };
      const planned = fanOut(webhooksOfAccount(event.accountId));
      // An event no webhook wants is kept only to detect duplicates; it needs no payload.
      insertEvent.run({ ...event, payloadTail: planned.deliveries.length > 0 ? planned.payloadTail : null });
      const counts = { queued: 0, skipped: 0 };
      for (const delivery of planned.deliveries) {
        const pending = delivery.state === 'pending';
        insertDelivery.run({
          id: delivery.id,
          eventId: event.id,
          webhookId: delivery.webhookId,
          state: delivery.state,
          payload: delivery.payloadHead,
          nextAttemptAt: pending ? event.createdAt : null,
          createdAt: event.createdAt,
        });
        counts[pending ? 'queued' : 'skipped'] += 1;
      }
      return { kind: 'recorded', ...counts };
    },
    () => {
      webhooksRead = new Map();
    },
  );

  return {
    // Events taken in together are committed together; the duplicate check sees every event recorded before.
    record: (event, fanOut) => recordInTransaction(event, fanOut),
  };
}
