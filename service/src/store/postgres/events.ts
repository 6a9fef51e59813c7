// PostgreSQL access to job-run events: an event and its fan-out to deliveries in one transaction, shared with the
// other events taken in while the previous transaction was written (one at a time per instance). De-duplication
// holds across instances: the unique (account_id, run_id, event_type) key decides, so two instances taking the
// same run at once record it once. Other instances hear of queued deliveries by NOTIFY, sent inside the
// transaction (delivered on commit).
import type pg from 'pg';
import type { EventRecord } from '../../domain/event';
import type { FanOutWebhook } from '../../domain/webhook';
import {
  type EventsPlan,
  type EventToRecord,
  planEvents,
  recordedOutcome,
  runKeyOf,
  storedPayloadTail,
} from '../events-plan';
import type { EventsStore, IngestOutcome } from '../store';
import { settleEach, type Waiting, writeTogetherOrApart } from '../write-apart';
import { asColumns, type PgDatabase, prepared } from './database';
import { createSerialBatches } from './serial-batches';
import { CHANNELS } from './migrations';
import { FAN_OUT_COLUMNS, type FanOutRow, fanOutWebhookFromRow } from '../rows';

interface Queued extends EventToRecord, Waiting<IngestOutcome> {}

// Every statement takes the whole batch as one array per column: a batch costs the same few round trips however
// many events it holds.
// Planned at each call, like a lease (deliveries.ts): its join by key would keep a plan made while the table was small.
const FIND_EVENTS = `
  SELECT e.id, e.account_id, e.run_id, e.event_type
    FROM events e
    JOIN unnest($1::bigint[], $2::text[], $3::text[]) AS k(account_id, run_id, event_type)
      ON e.account_id = k.account_id AND e.run_id = k.run_id AND e.event_type = k.event_type`;
const INSERT_EVENTS = prepared(`
  INSERT INTO events (id, account_id, event_type, run_id, created_at, payload_tail, traceparent, tracestate,
                      deliveries_left)
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::bytea[], $7::text[], $8::text[],
                       $9::integer[])
  ON CONFLICT (account_id, run_id, event_type) DO NOTHING
  RETURNING id`);
// What the fan-out reads of the webhooks of the batch's accounts, in each account's order of creation. Prepared: its
// columns are named, so a newer instance's migration that adds columns leaves its result as it is.
const WEBHOOKS_OF_ACCOUNTS = prepared(`
  SELECT account_id, ${FAN_OUT_COLUMNS} FROM webhooks WHERE account_id = ANY($1::bigint[])
   ORDER BY account_id, created_at, id`);
/** An event's deliveries, each due at once when pending; one array per column (operational-events.ts too). */
export const INSERT_DELIVERIES = prepared(`
  INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, created_at, updated_at)
  SELECT d.id, d.event_id, d.webhook_id, d.state, d.payload, 0,
         CASE WHEN d.state = 'pending' THEN d.created_at END, d.created_at, d.created_at
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[], $6::bigint[])
         AS d(id, event_id, webhook_id, state, payload, created_at)`);
const NOTIFY_DUE = `SELECT pg_notify('${CHANNELS.due}', '')`;

/** The batch's events already recorded (by anyone), by their key. */
async function recordedEvents(client: pg.PoolClient, events: readonly EventRecord[]): Promise<Map<string, string>> {
  const { rows } = await client.query<{ id: string; account_id: number; run_id: string; event_type: string }>(
    FIND_EVENTS,
    [events.map((e) => e.accountId), events.map((e) => e.runId), events.map((e) => e.eventType)],
  );
  return new Map(
    rows.map((r) => [runKeyOf({ accountId: r.account_id, runId: r.run_id, eventType: r.event_type }), r.id]),
  );
}

/** Each account's webhooks as the fan-out reads them, for all of the batch's events in one statement. */
async function webhooksOfAccounts(client: pg.PoolClient, accountIds: readonly number[]) {
  const read = new Map<number, FanOutWebhook[]>(accountIds.map((accountId) => [accountId, []]));
  const { rows } = await client.query<FanOutRow & { account_id: number }>(WEBHOOKS_OF_ACCOUNTS, [[...read.keys()]]);
  for (const row of rows) read.get(row.account_id)!.push(fanOutWebhookFromRow(row));
  return read;
}

type Planned = EventsPlan<Queued>['fresh'][number];

async function insertEvents(client: pg.PoolClient, fresh: readonly Planned[]): Promise<Set<string>> {
  const events = fresh.map(({ item }) => item.event);
  const { rows } = await client.query<{ id: string }>(INSERT_EVENTS, [
    events.map((e) => e.id),
    events.map((e) => e.accountId),
    events.map((e) => e.eventType),
    events.map((e) => e.runId),
    events.map((e) => e.createdAt),
    fresh.map(({ planned }) => storedPayloadTail(planned)),
    events.map((e) => e.trace.traceparent),
    events.map((e) => e.trace.tracestate),
    // Every delivery planned, skipped ones included: insertDeliveries writes them all in this transaction.
    fresh.map(({ planned }) => planned.deliveries.length),
  ]);
  return new Set(rows.map((r) => r.id));
}

async function insertDeliveries(client: pg.PoolClient, inserted: readonly Planned[]): Promise<void> {
  const rows = inserted.flatMap(({ item: { event }, planned }) =>
    planned.deliveries.map((d) => [d.id, event.id, d.webhookId, d.state, d.payloadHead, event.createdAt]),
  );
  if (rows.length === 0) return;
  await client.query(INSERT_DELIVERIES, asColumns(rows, 6));
}

/** One transaction for the whole batch; resolves with each event's outcome, in order. */
function recordTogether(db: PgDatabase, batch: readonly Queued[]): Promise<IngestOutcome[]> {
  return db.transaction(async (client) => {
    const events = batch.map((q) => q.event);
    const webhooks = await webhooksOfAccounts(
      client,
      events.map((e) => e.accountId),
    );
    const { fresh, duplicateOf } = planEvents(batch, await recordedEvents(client, events), (accountId) =>
      webhooks.get(accountId)!,
    );
    const insertedIds = await insertEvents(client, fresh);
    const inserted = fresh.filter(({ item }) => insertedIds.has(item.event.id));
    await insertDeliveries(client, inserted);
    // Another instance recorded some of the same runs since the look above, and committed first.
    const lost = fresh.filter(({ item }) => !insertedIds.has(item.event.id)).map(({ item }) => item.event);
    const recordedMeanwhile = lost.length > 0 ? await recordedEvents(client, lost) : new Map<string, string>();
    const outcomes = new Map<Queued, IngestOutcome>();
    for (const { item, planned } of fresh) {
      outcomes.set(
        item,
        insertedIds.has(item.event.id)
          ? recordedOutcome(planned)
          : { kind: 'duplicate', eventId: recordedMeanwhile.get(runKeyOf(item.event))! },
      );
    }
    for (const [queued, eventId] of duplicateOf) {
      // A duplicate of an event of this batch that lost its race is a duplicate of the winner.
      const winner = recordedMeanwhile.get(runKeyOf(queued.event)) ?? eventId;
      outcomes.set(queued, { kind: 'duplicate', eventId: winner });
    }
    if (inserted.some(({ planned }) => planned.deliveries.some((d) => d.state === 'pending')))
      await client.query(NOTIFY_DUE);
    return batch.map((queued) => outcomes.get(queued)!);
  });
}

export function createPgEventsStore(db: PgDatabase): EventsStore {
  async function flush(batch: Queued[]): Promise<void> {
    // One event that fails takes the batch back with it: each is then recorded on its own (write-apart.ts).
    settleEach(batch, await writeTogetherOrApart(batch, (events) => recordTogether(db, events)));
  }
  const enqueue = createSerialBatches<Queued>(flush);
  return {
    // A promise settles only after its transaction committed, so an accepted event is as durable as the database.
    record: (event, fanOut) => new Promise((resolve, reject) => enqueue({ event, fanOut, resolve, reject })),
  };
}
