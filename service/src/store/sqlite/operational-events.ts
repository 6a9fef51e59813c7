// SQLite writes of operational events (store/operational-plan.ts) inside the transaction of the results that made
// their facts true: each event's row, with its whole payload as the tail, and one delivery per endpoint.
import type { WebhookRecord } from '../../domain/webhook';
import { type OperationalEventMaker, planOperationalEvents } from '../operational-plan';
import type { OperationalFact } from '../results-plan';
import { type StoredWebhook, webhookFromRow, type WebhookRow } from '../rows';
import type { SqliteDatabase } from './database';
import { SELECT_WEBHOOK } from './webhook-select';
import { prepareDeliveriesInsert } from './deliveries-insert';

/** Prepares the statements once; the function returned writes a batch's facts, in the caller's transaction. */
export function prepareOperationalWrite(
  db: SqliteDatabase,
  health: { withHealth(webhook: StoredWebhook): WebhookRecord },
) {
  const webhookById = db.prepare<[string], WebhookRow>(`${SELECT_WEBHOOK} WHERE w.id = ?`);
  const endpointsOfAccount = db.prepare<[number], WebhookRow>(
    `${SELECT_WEBHOOK} WHERE w.account_id = ? AND w.kind = 'operational' ORDER BY w.created_at, w.id`,
  );
  // run_id is the event's own id: an operational event is never a duplicate of another.
  const insertEvent = db.prepare(
    `INSERT INTO events (id, account_id, event_type, run_id, created_at, payload_tail, traceparent, tracestate)
     VALUES (@id, @accountId, @eventType, @id, @createdAt, @payload, @traceparent, @tracestate)`,
  );
  const insertDeliveries = prepareDeliveriesInsert(db);
  const recordOf = (row: WebhookRow): WebhookRecord => health.withHealth(webhookFromRow(row));

  return (facts: readonly OperationalFact[], maker: OperationalEventMaker): void => {
    if (facts.length === 0) return;
    const subjects = new Map<string, WebhookRecord>();
    for (const webhookId of new Set(facts.map((f) => f.webhookId))) {
      const row = webhookById.get(webhookId);
      if (row) subjects.set(webhookId, recordOf(row));
    }
    const endpoints = new Map<number, WebhookRecord[]>();
    const endpointsOf = (accountId: number) => {
      let known = endpoints.get(accountId);
      if (known === undefined) endpoints.set(accountId, (known = endpointsOfAccount.all(accountId).map(recordOf)));
      return known;
    };
    for (const event of planOperationalEvents(facts, subjects, endpointsOf, maker)) {
      insertEvent.run({ ...event, ...event.trace });
      insertDeliveries(event, event.deliveries);
    }
  };
}
