// PostgreSQL access to webhooks and the idempotency keys of their creation. Several instances write at once: a
// create holds its account's row, so the key lookup, the limit count and the insert see every create that
// committed before, and an update holds the webhook's row.
//
// A webhook is read from the database every time, not kept in memory: behind a load balancer, a client that
// changed a webhook through one instance reads it back through another (Terraform and Pulumi do after every
// apply), and a kept row could still be the old one until that instance heard of the change. Webhooks are read
// by id only by the management API and the delivery log (the dispatcher and ingestion read them in their own
// statements), so the cache would save one primary-key lookup per request and no round trip. The row also holds
// its endpoint's health (endpoint-health.ts), which an update resets when the webhook gets another endpoint.
import type pg from 'pg';
import { decideStartOf, type StartSlotRow } from '../../domain/send-rate';
import { ROTATED_KEY_PREFIX, type SecretChange, type WebhookChange, type WebhookRecord } from '../../domain/webhook';
import type { CreateWebhookOutcome, IdempotencyClaim, SecretChangeOutcome, WebhooksStore } from '../store';
import { createDecision, keyedSecretChangeDecision, secretChangePlan, updatePlan } from '../webhook-plans';
import { type PgDatabase, prepared } from './database';
import { RESET_HEALTH } from './endpoint-health';
import { type PgWebhookRow, SELECT_WEBHOOK, webhookFromPgRow } from './rows';
import { START_SLOT_COLUMNS, type StartSlotDbRow, startSlotFromRow } from '../rows';

// A rate-limited webhook's next start (domain/send-rate.ts), shared by every instance: read with whether the
// webhook still takes deliveries, decided in decideStartOf, and written only if no instance moved it and no one
// deactivated or archived the webhook since the read (compare and set; the row's lock orders the writers, and a
// writer that lost re-reads the row after the winner's commit and finds it changed).
const READ_START_SLOT = prepared(`SELECT ${START_SLOT_COLUMNS} FROM webhooks WHERE id = $1`);
// Granted only if the endpoint read with the slot is still the webhook's: a PUT or a rotation committed between the
// read and this write makes the slot be decided again, on the new row.
const MOVE_RATE_NEXT_AT = prepared(`
  UPDATE webhooks SET rate_next_at = $3
   WHERE id = $1 AND rate_next_at IS NOT DISTINCT FROM $2 AND active AND archived_at IS NULL
     AND client_url = $4 AND sealed_secret = $5`);

/** Holds the account's row against other creates (not against inserts that only reference it: KEY SHARE). */
const LOCK_ACCOUNT = 'SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE';
const FIND_KEY = `
  SELECT request_hash, webhook_id FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND created_at >= $3`;
const COUNT_FOR_ACCOUNT = 'SELECT count(*) AS n FROM webhooks WHERE account_id = $1 AND kind = $2';
const INSERT_WEBHOOK = `
  INSERT INTO webhooks (id, account_id, sealed_secret, created_at, http_status_code,
                        name, description, client_url, event_types, job_ids, active, updated_at,
                        consecutive_failures, failing_since, last_failure_at, archived_at, archived_reason,
                        max_requests_per_second, kind)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`;
const UPSERT_KEY = `
  INSERT INTO idempotency_keys (account_id, key, request_hash, webhook_id, created_at)
  VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (account_id, key) DO UPDATE SET
    request_hash = excluded.request_hash, webhook_id = excluded.webhook_id, created_at = excluded.created_at`;
const SELECT_ONE = `${SELECT_WEBHOOK} WHERE w.account_id = $1 AND w.id = $2`;
const SELECT_ONE_LOCKED = `${SELECT_ONE} FOR UPDATE OF w`;
const SELECT_PAGE = `${SELECT_WEBHOOK} WHERE w.account_id = $1 AND w.kind = $4 ORDER BY w.created_at, w.id LIMIT $2 OFFSET $3`;
/** $3.. are changeValues' order. */
const UPDATE_WEBHOOK = `
  UPDATE webhooks
     SET name = $3, description = $4, client_url = $5, event_types = $6, job_ids = $7, active = $8,
         updated_at = $9, consecutive_failures = $10, failing_since = $11, last_failure_at = $12,
         archived_at = $13, archived_reason = $14, max_requests_per_second = $15
   WHERE account_id = $1 AND id = $2`;
const RESET_ENDPOINT_HEALTH = `UPDATE webhooks SET ${RESET_HEALTH} WHERE id = $1`;
const UPDATE_SECRET = `
  UPDATE webhooks
     SET sealed_secret = $3, previous_sealed_secret = $4, previous_secret_until = $5, updated_at = $6
   WHERE account_id = $1 AND id = $2`;
// A create replayed by its Idempotency-Key must not show a secret a rotation made since (webhook-service.ts).
const MARK_KEYS_ROTATED = `
  UPDATE idempotency_keys SET request_hash = $1 || request_hash
   WHERE account_id = $2 AND webhook_id = $3 AND NOT starts_with(request_hash, $1)`;
// A replaced secret is dropped once its overlap is over: nothing signs with it any more.
const DROP_ENDED_SECRETS = `
  UPDATE webhooks SET previous_sealed_secret = NULL, previous_secret_until = NULL
   WHERE previous_secret_until IS NOT NULL AND previous_secret_until <= $1`;
// Its deliveries and statistics go with it (their foreign keys cascade), and its log (a trigger, migration 18).
const DELETE_WEBHOOK = 'DELETE FROM webhooks WHERE account_id = $1 AND id = $2';
const COUNT_ARCHIVED = 'SELECT count(*) AS n FROM webhooks WHERE archived_at IS NOT NULL';

interface KeyRow {
  request_hash: string;
  webhook_id: string;
}

interface CountRow {
  n: number;
}

/** The writable and resettable columns, in the order of UPDATE_WEBHOOK ($3..$15) and INSERT_WEBHOOK ($6..$18). */
function changeValues(change: WebhookChange): unknown[] {
  return [
    change.name,
    change.description,
    change.clientUrl,
    JSON.stringify(change.eventTypes),
    JSON.stringify(change.jobIds),
    change.active,
    change.updatedAt,
    change.consecutiveFailures,
    change.failingSince,
    change.lastFailureAt,
    change.archivedAt,
    change.archivedReason,
    change.maxRequestsPerSecond,
  ];
}

async function createInTransaction(
  client: pg.PoolClient,
  record: WebhookRecord,
  maxPerAccount: number,
  idempotency: IdempotencyClaim | null,
): Promise<CreateWebhookOutcome> {
  await client.query(LOCK_ACCOUNT, [record.accountId]);
  const key = idempotency
    ? (await client.query<KeyRow>(FIND_KEY, [record.accountId, idempotency.key, idempotency.notBefore])).rows[0]
    : undefined;
  const recorded = key ? { requestHash: key.request_hash, webhookId: key.webhook_id } : null;
  const { rows } = await client.query<CountRow>(COUNT_FOR_ACCOUNT, [record.accountId, record.kind]);
  const outcome = createDecision(recorded, rows[0]!.n, maxPerAccount);
  if (outcome.kind !== 'created') return outcome;
  await client.query(INSERT_WEBHOOK, [
    record.id,
    record.accountId,
    record.sealedSecret,
    record.createdAt,
    record.httpStatusCode,
    ...changeValues(record),
    record.kind,
  ]);
  if (idempotency) {
    await client.query(UPSERT_KEY, [
      record.accountId,
      idempotency.key,
      idempotency.requestHash,
      record.id,
      record.createdAt,
    ]);
  }
  return outcome;
}

/** The webhook's row, held until the transaction ends; null when absent. */
async function lockedWebhook(client: pg.PoolClient, accountId: number, id: string): Promise<WebhookRecord | null> {
  const { rows } = await client.query<PgWebhookRow>(SELECT_ONE_LOCKED, [accountId, id]);
  return rows[0] ? webhookFromPgRow(rows[0]) : null;
}

/** Writes a secret change to a webhook the transaction holds; the webhook as it is then. */
async function changeSecretOf(
  client: pg.PoolClient,
  current: WebhookRecord,
  change: (current: WebhookRecord) => SecretChange,
): Promise<WebhookRecord> {
  const { accountId, id } = current;
  const { next, rotated } = secretChangePlan(current, change);
  await client.query(UPDATE_SECRET, [
    accountId,
    id,
    next.sealedSecret,
    next.previousSealedSecret,
    next.previousSecretUntil,
    next.updatedAt,
  ]);
  if (rotated) await client.query(MARK_KEYS_ROTATED, [ROTATED_KEY_PREFIX, accountId, id]);
  return rereadWebhook(client, accountId, id);
}

async function rereadWebhook(client: pg.PoolClient, accountId: number, id: string): Promise<WebhookRecord> {
  const { rows } = await client.query<PgWebhookRow>(SELECT_ONE, [accountId, id]);
  return webhookFromPgRow(rows[0]!);
}

export function createPgWebhooksStore(db: PgDatabase): WebhooksStore {
  return {
    create: (record, options) =>
      db.transaction((client) => createInTransaction(client, record, options.maxPerAccount, options.idempotency)),
    get: async (accountId, id) => {
      const { rows } = await db.query<PgWebhookRow>(SELECT_ONE, [accountId, id]);
      return rows[0] ? webhookFromPgRow(rows[0]) : null;
    },
    list: async (accountId, { offset, limit }, kind) => {
      const [page, count] = await Promise.all([
        db.query<PgWebhookRow>(SELECT_PAGE, [accountId, limit, offset, kind]),
        db.query<CountRow>(COUNT_FOR_ACCOUNT, [accountId, kind]),
      ]);
      return { items: page.rows.map(webhookFromPgRow), total: count.rows[0]!.n };
    },
    update: (accountId, id, change) =>
      db.transaction(async (client) => {
        const current = await lockedWebhook(client, accountId, id);
        if (current === null) return null;
        const { next, endpointRenewed } = updatePlan(current, change);
        await client.query(UPDATE_WEBHOOK, [accountId, id, ...changeValues(next)]);
        if (endpointRenewed) await client.query(RESET_ENDPOINT_HEALTH, [id]);
        return rereadWebhook(client, accountId, id);
      }),
    changeSecret: (accountId, id, change) =>
      db.transaction(async (client) => {
        const current = await lockedWebhook(client, accountId, id);
        return current === null ? null : changeSecretOf(client, current, change);
      }),
    // The webhook's row lock, taken first, orders two requests with one key: the second finds the first's record.
    changeSecretOnce: (accountId, id, change, idempotency) =>
      db.transaction(async (client): Promise<SecretChangeOutcome | null> => {
        const current = await lockedWebhook(client, accountId, id);
        if (current === null) return null;
        const key = (await client.query<KeyRow>(FIND_KEY, [accountId, idempotency.key, idempotency.notBefore])).rows[0];
        const decision = keyedSecretChangeDecision(
          key === undefined ? null : { requestHash: key.request_hash, webhookId: key.webhook_id },
        );
        if ('replay' in decision) return { record: current, replayed: decision.replay };
        const record = await changeSecretOf(client, current, change);
        // After the change has marked the webhook's earlier keys: this one is the newest secret's.
        await client.query(UPSERT_KEY, [accountId, idempotency.key, idempotency.requestHash, id, idempotency.at]);
        return { record, replayed: null };
      }),
    dropEndedSecrets: async (now) => (await db.query(DROP_ENDED_SECRETS, [now])).rowCount ?? 0,
    delete: async (accountId, id) => (await db.query(DELETE_WEBHOOK, [accountId, id])).rowCount === 1,
    countArchived: async () => (await db.query<CountRow>(COUNT_ARCHIVED)).rows[0]!.n,
    async takeStartSlot(id, at, spacing) {
      for (;;) {
        const row = (await db.query<StartSlotDbRow>(READ_START_SLOT, [id])).rows[0];
        const webhook = row === undefined ? null : startSlotFromRow(row);
        const decision = decideStartOf(webhook, at, spacing);
        if (!decision.granted) return decision;
        // Granted, so the row was there (a missing one is refused).
        const { clientUrl, sealedSecret } = decision.endpoint;
        const moved = await db.query(MOVE_RATE_NEXT_AT, [
          id,
          webhook!.nextAt,
          decision.nextAt,
          clientUrl,
          sealedSecret,
        ]);
        if (moved.rowCount === 1) return decision;
        // Another instance took a slot between the read and the write (or the webhook is gone): decide again.
      }
    },
  };
}
