// SQLite access to job-run events: recording an event and its fan-out to deliveries in one transaction, shared
// with the other events taken in at the same moment (group commit).
import type { SqliteDatabase } from './database';
import { createGroupCommit } from './group-commit';
import type { EventRecord, EventsStore, IngestOutcome, PlannedDeliveries, SubscriptionRecord } from './store';
import { SELECT_SUBSCRIPTION, subscriptionFromRow, type SubscriptionRow } from './subscriptions';

export function createEventsStore(db: SqliteDatabase): EventsStore {
  const findEvent = db.prepare<[number, string, string], { id: string }>(
    'SELECT id FROM events WHERE account_id = ? AND run_id = ? AND event_type = ?',
  );
  const insertEvent = db.prepare(
    `INSERT INTO events (id, account_id, event_type, run_id, job_id, created_at, payload_tail)
     VALUES (@id, @accountId, @eventType, @runId, @jobId, @createdAt, @payloadTail)`,
  );
  const subscriptionsOf = db.prepare<[number], SubscriptionRow>(`${SELECT_SUBSCRIPTION} WHERE s.account_id = ? ORDER BY s.created_at, s.id`);
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (id, event_id, subscription_id, state, payload, attempts, next_attempt_at, created_at, updated_at)
     VALUES (@id, @eventId, @subscriptionId, @state, @payload, 0, @nextAttemptAt, @createdAt, @createdAt)`,
  );

  // The events of one transaction are mostly one account's: its webhooks are read once per transaction, not
  // once per event. Nothing changes them inside the transaction, and the next one reads them afresh.
  let subscriptionsRead = new Map<number, SubscriptionRecord[]>();
  function subscriptionsOfAccount(accountId: number): SubscriptionRecord[] {
    let subscriptions = subscriptionsRead.get(accountId);
    if (subscriptions === undefined) {
      subscriptions = subscriptionsOf.all(accountId).map(subscriptionFromRow);
      subscriptionsRead.set(accountId, subscriptions);
    }
    return subscriptions;
  }

  const recordInTransaction = createGroupCommit(
    db,
    (event: EventRecord, fanOut: (subscriptions: SubscriptionRecord[]) => PlannedDeliveries): IngestOutcome => {
      const previous = findEvent.get(event.accountId, event.runId, event.eventType);
      if (previous) return { kind: 'duplicate', eventId: previous.id };
      const planned = fanOut(subscriptionsOfAccount(event.accountId));
      // An event no webhook wants is kept only to detect duplicates; it needs no payload.
      insertEvent.run({ ...event, payloadTail: planned.deliveries.length > 0 ? planned.payloadTail : null });
      const counts = { queued: 0, skipped: 0 };
      for (const delivery of planned.deliveries) {
        const pending = delivery.state === 'pending';
        insertDelivery.run({
          id: delivery.id,
          eventId: event.id,
          subscriptionId: delivery.subscriptionId,
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
      subscriptionsRead = new Map();
    },
  );

  return {
    // Events taken in together are committed together; the duplicate check sees every event recorded before.
    record: (event, fanOut) => recordInTransaction(event, fanOut),
  };
}
