// SQLite access to job-run events: the events taken in at the same moment, and their fan-out to deliveries, in
// one transaction (group commit), as events-plan.ts plans them.
import type { SqliteDatabase } from './database';
import { oncePerKey } from '../../core/once-per-key';
import { createGroupCommit } from './group-commit';
import { type EventToRecord, planEvents, recordedOutcome, runKeyOf, storedPayloadTail } from '../events-plan';
import type { EventsStore, IngestOutcome } from '../store';
import type { FanOutWebhook } from '../../domain/webhook';
import { FAN_OUT_COLUMNS, type FanOutRow, fanOutWebhookFromRow } from '../rows';
import { prepareDeliveriesInsert } from './deliveries-insert';

export function createEventsStore(db: SqliteDatabase): EventsStore {
  const findEvent = db.prepare<[number, string, string], { id: string }>(
    'SELECT id FROM events WHERE account_id = ? AND run_id = ? AND event_type = ?',
  );
  const insertEvent = db.prepare(
    `INSERT INTO events (id, account_id, event_type, run_id, created_at, payload_tail, traceparent, tracestate)
     VALUES (@id, @accountId, @eventType, @runId, @createdAt, @payloadTail, @traceparent, @tracestate)`,
  );
  const webhooksOf = db.prepare<[number], FanOutRow>(
    `SELECT ${FAN_OUT_COLUMNS} FROM webhooks WHERE account_id = ? ORDER BY created_at, id`,
  );
  const insertDeliveries = prepareDeliveriesInsert(db);

  /** The batch's runs already recorded, by runKeyOf. */
  function recorded(batch: readonly EventToRecord[]): Map<string, string> {
    const found = new Map<string, string>();
    for (const { event } of batch) {
      const row = findEvent.get(event.accountId, event.runId, event.eventType);
      if (row) found.set(runKeyOf(event), row.id);
    }
    return found;
  }

  /** Each account's webhooks as the fan-out reads them, read once per transaction: nothing changes them inside it. */
  const webhooksOfAccounts = () =>
    oncePerKey((accountId: number): FanOutWebhook[] => webhooksOf.all(accountId).map(fanOutWebhookFromRow));

  const record = createGroupCommit(db, (batch: readonly EventToRecord[]): IngestOutcome[] => {
    const { fresh, duplicateOf } = planEvents(batch, recorded(batch), webhooksOfAccounts());
    const outcomes = new Map<EventToRecord, IngestOutcome>();
    for (const { item, planned } of fresh) {
      const { event } = item;
      insertEvent.run({
        id: event.id,
        accountId: event.accountId,
        eventType: event.eventType,
        runId: event.runId,
        createdAt: event.createdAt,
        payloadTail: storedPayloadTail(planned),
        traceparent: event.trace.traceparent,
        tracestate: event.trace.tracestate,
      });
      insertDeliveries(event, planned.deliveries);
      outcomes.set(item, recordedOutcome(planned));
    }
    for (const [item, eventId] of duplicateOf) outcomes.set(item, { kind: 'duplicate', eventId });
    return batch.map((item) => outcomes.get(item)!);
  });

  return {
    // Events taken in together are committed together; the duplicate check sees every event recorded before.
    record: (event, fanOut) => record({ event, fanOut }),
  };
}
