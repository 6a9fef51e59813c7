// PostgreSQL writes of operational events (store/operational-plan.ts) inside the transaction of the results that
// made their facts true: each event's row, with its whole payload as the tail, and one delivery per endpoint.
import type pg from 'pg';
import type { WebhookRecord } from '../../domain/webhook';
import { type OperationalEventMaker, planOperationalEvents } from '../operational-plan';
import type { OperationalFact } from '../results-plan';
import { asColumns } from './database';
import { INSERT_DELIVERIES } from './events';
import { CHANNELS } from './migrations';
import { type PgWebhookRow, SELECT_WEBHOOK, webhookFromPgRow } from './rows';

// Not prepared: their columns are the table's (w.*), which a newer instance's migration may change.
const WEBHOOKS_BY_ID = `${SELECT_WEBHOOK} WHERE w.id = ANY($1::text[])`;
const ENDPOINTS_OF_ACCOUNTS = `${SELECT_WEBHOOK} WHERE w.account_id = ANY($1::bigint[]) AND w.kind = 'operational'
  ORDER BY w.created_at, w.id`;
// run_id is the event's own id: an operational event is never a duplicate of another.
const INSERT_EVENTS = `
  INSERT INTO events (id, account_id, event_type, run_id, created_at, payload_tail, traceparent, tracestate,
                      deliveries_left)
  SELECT e.id, e.account_id, e.event_type, e.id, e.created_at, e.payload, e.traceparent, e.tracestate, e.deliveries
    FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bytea[], $6::text[], $7::text[],
                $8::integer[])
         AS e(id, account_id, event_type, created_at, payload, traceparent, tracestate, deliveries)`;
const NOTIFY_DUE = `SELECT pg_notify('${CHANNELS.due}', '')`;

/** Writes a batch's facts in the caller's transaction; other instances' dispatchers hear of what it queued. */
export async function writeOperationalEvents(
  client: pg.PoolClient,
  facts: readonly OperationalFact[],
  maker: OperationalEventMaker,
): Promise<void> {
  if (facts.length === 0) return;
  const subjects = new Map(
    (await client.query<PgWebhookRow>(WEBHOOKS_BY_ID, [[...new Set(facts.map((f) => f.webhookId))]])).rows.map(
      (row) => [row.id, webhookFromPgRow(row)] as const,
    ),
  );
  const accountIds = [...new Set([...subjects.values()].map((s) => s.accountId))];
  const endpoints = new Map<number, WebhookRecord[]>(accountIds.map((id) => [id, []]));
  for (const row of (await client.query<PgWebhookRow>(ENDPOINTS_OF_ACCOUNTS, [accountIds])).rows)
    endpoints.get(row.account_id)?.push(webhookFromPgRow(row));
  const events = planOperationalEvents(facts, subjects, (accountId) => endpoints.get(accountId) ?? [], maker);
  if (events.length === 0) return;
  await client.query(
    INSERT_EVENTS,
    asColumns(
      events.map((e) => [
        e.id,
        e.accountId,
        e.eventType,
        e.createdAt,
        e.payload,
        e.trace.traceparent,
        e.trace.tracestate,
        e.deliveries.length,
      ]),
      8,
    ),
  );
  await client.query(
    INSERT_DELIVERIES,
    asColumns(
      events.flatMap((e) => e.deliveries.map((d) => [d.id, e.id, d.webhookId, d.state, d.payloadHead, e.createdAt])),
      6,
    ),
  );
  if (events.some((e) => e.deliveries.some((d) => d.state === 'pending'))) await client.query(NOTIFY_DUE);
}
