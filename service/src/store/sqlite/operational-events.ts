// SQLite writes of operational events (store/operational-plan.ts) inside the transaction of the results that made
// their facts true: each event's row, with its whole payload as the tail, and one delivery per endpoint.
import type { WebhookRecord } from '../../domain/webhook';
import { type OperationalEventMaker, planOperationalEvents } from '../operational-plan';
import type { OperationalFact } from '../results-plan';
import { webhookFromRow, type WebhookRow } from '../rows';
import type { SqliteDatabase } from './database';
import type { EndpointHealth } from '../../domain/endpoint-health';
import { SELECT_WEBHOOK } from './webhook-select';

/** Prepares the statements once; the function returned writes a batch's facts, in the caller's transaction. */
export function prepareOperationalWrite(db: SqliteDatabase, health: { of(webhookId: string): EndpointHealth }) {
  const webhookById = db.prepare<[string], WebhookRow>(`${SELECT_WEBHOOK} WHERE w.id = ?`);
  const endpointsOfAccount = db.prepare<[number], WebhookRow>(
    `${SELECT_WEBHOOK} WHERE w.account_id = ? AND w.kind = 'operational' ORDER BY w.created_at, w.id`,
  );
  // run_id is the event's own id: an operational event is never a duplicate of another.
  const insertEvent = db.prepare(
    `INSERT INTO events (id, account_id, event_type, run_id, created_at, payload_tail)
     VALUES (@id, @accountId, @eventType, @id, @createdAt, @payload)`,
  );
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, created_at, updated_at)
     VALUES (@id, @eventId, @webhookId, @state, @payload, 0, @nextAttemptAt, @createdAt, @createdAt)`,
  );
  const recordOf = (row: WebhookRow): WebhookRecord => ({ ...webhookFromRow(row), endpointHealth: health.of(row.id) });

  /** Resolves with how many deliveries it queued. */
  return (facts: readonly OperationalFact[], maker: OperationalEventMaker): number => {
    if (facts.length === 0) return 0;
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
    let queued = 0;
    for (const event of planOperationalEvents(facts, subjects, endpointsOf, maker)) {
      insertEvent.run(event);
      for (const delivery of event.deliveries) {
        insertDelivery.run({
          id: delivery.id,
          eventId: event.id,
          webhookId: delivery.webhookId,
          state: delivery.state,
          payload: delivery.payloadHead,
          nextAttemptAt: delivery.state === 'pending' ? event.createdAt : null,
          createdAt: event.createdAt,
        });
        if (delivery.state === 'pending') queued += 1;
      }
    }
    return queued;
  };
}
