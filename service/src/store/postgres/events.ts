// PostgreSQL access to job-run events: an event and its fan-out to deliveries in one transaction, shared with the
// other events taken in during the same event-loop turn (group commit). De-duplication holds across instances:
// the unique (account_id, run_id, event_type) key decides, so two instances taking the same run at once record it
// once. Other instances hear of queued deliveries by NOTIFY, sent inside the transaction (delivered on commit).
import type pg from 'pg';
import { createTurnBatch } from '../../core/turn-batch';
import type { PlannedDeliveries } from '../../domain/delivery';
import type { EventRecord } from '../../domain/event';
import type { WebhookRecord } from '../../domain/webhook';
import type { EventsStore, IngestOutcome } from '../store';
import type { PgDatabase } from './database';
import { CHANNELS } from './migrations';
import { SELECT_WEBHOOK } from '../webhooks';
import { type PgWebhookRow, webhookFromPgRow } from './rows';

type FanOut = (webhooks: WebhookRecord[]) => PlannedDeliveries;

interface Queued {
  event: EventRecord;
  fanOut: FanOut;
  resolve: (outcome: IngestOutcome) => void;
  reject: (error: unknown) => void;
}

const FIND_EVENT = 'SELECT id FROM events WHERE account_id = $1 AND run_id = $2 AND event_type = $3';
const INSERT_EVENT = `
  INSERT INTO events (id, account_id, event_type, run_id, job_id, created_at, payload_tail)
  VALUES ($1, $2, $3, $4, $5, $6, $7)
  ON CONFLICT (account_id, run_id, event_type) DO NOTHING
  RETURNING id`;
const WEBHOOKS_OF_ACCOUNT = `${SELECT_WEBHOOK} WHERE w.account_id = $1 ORDER BY w.created_at, w.id`;
/** All of an event's deliveries in one statement. */
const INSERT_DELIVERIES = `
  INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, created_at, updated_at)
  SELECT d.id, $1, d.webhook_id, d.state, d.payload, 0,
         CASE WHEN d.state = 'pending' THEN $2::bigint END, $2, $2
    FROM unnest($3::text[], $4::text[], $5::text[], $6::bytea[]) AS d(id, webhook_id, state, payload)`;
const NOTIFY_DUE = `SELECT pg_notify('${CHANNELS.due}', '')`;

/** One transaction's view: each account's webhooks are read once for all of its events. */
type WebhooksRead = Map<number, WebhookRecord[]>;

async function webhooksOfAccount(client: pg.PoolClient, read: WebhooksRead, accountId: number) {
  let webhooks = read.get(accountId);
  if (webhooks === undefined) {
    webhooks = (await client.query<PgWebhookRow>(WEBHOOKS_OF_ACCOUNT, [accountId])).rows.map(webhookFromPgRow);
    read.set(accountId, webhooks);
  }
  return webhooks;
}

async function existingEventId(client: pg.PoolClient, event: EventRecord): Promise<string | null> {
  const { rows } = await client.query<{ id: string }>(FIND_EVENT, [event.accountId, event.runId, event.eventType]);
  return rows[0]?.id ?? null;
}

/** Records one event and its deliveries on `client`, inside the batch's transaction. */
async function recordOne(client: pg.PoolClient, read: WebhooksRead, queued: Queued): Promise<IngestOutcome> {
  const { event } = queued;
  const previous = await existingEventId(client, event);
  if (previous !== null) return { kind: 'duplicate', eventId: previous };
  const planned = queued.fanOut(await webhooksOfAccount(client, read, event.accountId));
  // An event no webhook wants is kept only to detect duplicates; it needs no payload.
  const tail = planned.deliveries.length > 0 ? planned.payloadTail : null;
  const inserted = await client.query(INSERT_EVENT, [
    event.id,
    event.accountId,
    event.eventType,
    event.runId,
    event.jobId,
    event.createdAt,
    tail,
  ]);
  // Another instance recorded the same run and type since the look above, and committed first.
  if (inserted.rowCount === 0) return { kind: 'duplicate', eventId: (await existingEventId(client, event))! };
  const { deliveries } = planned;
  if (deliveries.length > 0) {
    await client.query(INSERT_DELIVERIES, [
      event.id,
      event.createdAt,
      deliveries.map((d) => d.id),
      deliveries.map((d) => d.webhookId),
      deliveries.map((d) => d.state),
      deliveries.map((d) => d.payloadHead),
    ]);
  }
  const queuedCount = deliveries.filter((d) => d.state === 'pending').length;
  return { kind: 'recorded', queued: queuedCount, skipped: deliveries.length - queuedCount };
}

/** One transaction for the whole batch; resolves with each event's outcome, in order. */
function recordTogether(db: PgDatabase, batch: readonly Queued[]): Promise<IngestOutcome[]> {
  return db.transaction(async (client) => {
    const read: WebhooksRead = new Map();
    const outcomes: IngestOutcome[] = [];
    for (const queued of batch) outcomes.push(await recordOne(client, read, queued));
    if (outcomes.some((o) => o.kind === 'recorded' && o.queued > 0)) await client.query(NOTIFY_DUE);
    return outcomes;
  });
}

export function createPgEventsStore(db: PgDatabase): EventsStore {
  async function flush(batch: Queued[]): Promise<void> {
    let outcomes: IngestOutcome[];
    try {
      outcomes = await recordTogether(db, batch);
    } catch {
      // One event failed and took the batch back with it: each is recorded on its own, so only that one fails.
      await Promise.all(
        batch.map((queued) =>
          recordTogether(db, [queued]).then(([outcome]) => queued.resolve(outcome!), queued.reject),
        ),
      );
      return;
    }
    batch.forEach((queued, i) => queued.resolve(outcomes[i]!));
  }
  const queue = createTurnBatch<Queued>(flush);
  return {
    // A promise settles only after its transaction committed, so an accepted event is as durable as the database.
    record: (event, fanOut) => new Promise((resolve, reject) => queue.add({ event, fanOut, resolve, reject })),
  };
}
