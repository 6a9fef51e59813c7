// SQLite access to webhooks and the idempotency keys of their creation.
import type { Micros } from '../../core/time';
import { commitWithoutSync, type SqliteDatabase } from './database';
import { SELECT_WEBHOOK } from './webhook-select';
import type { InProcessEndpointHealth } from './endpoint-health';
import {
  type Flag,
  isSet,
  START_SLOT_COLUMNS,
  type StartSlotDbRow,
  startSlotFromRow,
  type StoredWebhook,
  webhookFromRow,
  type WebhookRow,
} from '../rows';
import { observeOtherConnections, type OtherConnections } from './other-connections';
import { createWebhookCache } from './webhook-cache';
import { ROTATED_KEY_PREFIX, type SecretChange, type WebhookChange, type WebhookRecord } from '../../domain/webhook';
import type { CreateWebhookOutcome, IdempotencyClaim, SecretChangeOutcome, WebhooksStore } from '../store';
import { decideStartOf, type StartDecision } from '../../domain/send-rate';
import { createDecision, keyedSecretChangeDecision, secretChangePlan, updatePlan } from '../webhook-plans';

/** The parameters of the writable and resettable columns, as the UPDATE and INSERT statements name them. */
function changeParams(change: WebhookChange) {
  return {
    name: change.name,
    description: change.description,
    clientUrl: change.clientUrl,
    eventTypes: JSON.stringify(change.eventTypes),
    jobIds: JSON.stringify(change.jobIds),
    active: change.active ? 1 : 0,
    maxRequestsPerSecond: change.maxRequestsPerSecond,
    updatedAt: change.updatedAt,
    consecutiveFailures: change.consecutiveFailures,
    failingSince: change.failingSince,
    lastFailureAt: change.lastFailureAt,
    archivedAt: change.archivedAt,
    archivedReason: change.archivedReason,
  };
}

export { SELECT_WEBHOOK };

/** An account's webhooks of one kind, counted before each create: from the (account_id, kind) index alone. */
export const COUNT_OF_KIND = 'SELECT count(*) AS n FROM webhooks WHERE account_id = ? AND kind = ?';

export function createWebhooksStore(
  db: SqliteDatabase,
  health: InProcessEndpointHealth,
  otherConnections: OtherConnections = observeOtherConnections(db),
): WebhooksStore {
  /**
   * A record with its endpoint's health, which this process keeps beside the row (endpoint-health.ts); frozen, as
   * the cached record it is made from, so no caller can change what another is handed. While neither the row nor
   * the health changes, the same record comes back, so a response written from it can be kept (http/frozen-body.ts).
   */
  const joined = new WeakMap<StoredWebhook, WebhookRecord>();
  const withHealth = (record: StoredWebhook): WebhookRecord => {
    const known = joined.get(record);
    if (known?.endpointHealth === health.of(record.id) && known.endpointHealthRevision === health.revisionOf(record.id))
      return known;
    const fresh: WebhookRecord = Object.freeze(health.withHealth(record));
    joined.set(record, fresh);
    return fresh;
  };
  const insert = db.prepare(
    `INSERT INTO webhooks (id, account_id, name, description, client_url, event_types, job_ids, active,
                                max_requests_per_second, sealed_secret, created_at, updated_at, http_status_code,
                                consecutive_failures, failing_since, last_failure_at, archived_at, archived_reason, kind)
     VALUES (@id, @accountId, @name, @description, @clientUrl, @eventTypes, @jobIds, @active,
             @maxRequestsPerSecond, @sealedSecret, @createdAt, @updatedAt, @httpStatusCode, @consecutiveFailures,
             @failingSince, @lastFailureAt, @archivedAt, @archivedReason, @kind)`,
  );
  const get = db.prepare<[number, string], WebhookRow>(`${SELECT_WEBHOOK} WHERE w.account_id = ? AND w.id = ?`);
  const cache = createWebhookCache(
    db,
    (accountId, id) => {
      const row = get.get(accountId, id);
      return row ? webhookFromRow(row) : null;
    },
    otherConnections,
  );
  const page = db.prepare<[number, string, number, number], WebhookRow>(
    `${SELECT_WEBHOOK} WHERE w.account_id = ? AND w.kind = ? ORDER BY w.created_at, w.id LIMIT ? OFFSET ?`,
  );
  const countForAccount = db.prepare<[number, string], { n: number }>(COUNT_OF_KIND);
  const update = db.prepare(
    `UPDATE webhooks
        SET name = @name, description = @description, client_url = @clientUrl, event_types = @eventTypes,
            job_ids = @jobIds, active = @active, max_requests_per_second = @maxRequestsPerSecond,
            updated_at = @updatedAt,
            consecutive_failures = @consecutiveFailures, failing_since = @failingSince,
            last_failure_at = @lastFailureAt, archived_at = @archivedAt, archived_reason = @archivedReason
      WHERE account_id = @accountId AND id = @id`,
  );
  const updateSecret = db.prepare(
    `UPDATE webhooks
        SET sealed_secret = @sealedSecret, previous_sealed_secret = @previousSealedSecret,
            previous_secret_until = @previousSecretUntil, updated_at = @updatedAt
      WHERE account_id = @accountId AND id = @id`,
  );
  const remove = db.prepare('DELETE FROM webhooks WHERE account_id = ? AND id = ?');
  const countArchived = db.prepare<[], { n: number }>(
    'SELECT count(*) AS n FROM webhooks WHERE archived_at IS NOT NULL',
  );
  const findKey = db.prepare<[number, string, number], { request_hash: string; webhook_id: string }>(
    'SELECT request_hash, webhook_id FROM idempotency_keys WHERE account_id = ? AND key = ? AND created_at >= ?',
  );
  const upsertKey = db.prepare(
    `INSERT INTO idempotency_keys (account_id, key, request_hash, webhook_id, created_at)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id, key) DO UPDATE SET
       request_hash = excluded.request_hash, webhook_id = excluded.webhook_id, created_at = excluded.created_at`,
  );

  const createInTransaction = db.transaction(
    (
      record: WebhookRecord,
      maxPerAccount: number,
      idempotency: Parameters<WebhooksStore['create']>[1]['idempotency'],
    ): CreateWebhookOutcome => {
      const key = idempotency && findKey.get(record.accountId, idempotency.key, idempotency.notBefore);
      const recorded = key ? { requestHash: key.request_hash, webhookId: key.webhook_id } : null;
      const outcome = createDecision(recorded, countForAccount.get(record.accountId, record.kind)!.n, maxPerAccount);
      if (outcome.kind !== 'created') return outcome;
      insert.run({
        ...changeParams(record),
        id: record.id,
        kind: record.kind,
        accountId: record.accountId,
        sealedSecret: record.sealedSecret,
        createdAt: record.createdAt,
        httpStatusCode: record.httpStatusCode,
      });
      if (idempotency) {
        upsertKey.run(record.accountId, idempotency.key, idempotency.requestHash, record.id, record.createdAt);
      }
      return outcome;
    },
  );

  const updateInTransaction = db.transaction(
    (
      accountId: number,
      id: string,
      change: (current: WebhookRecord) => WebhookChange,
    ): { updated: StoredWebhook; endpointRenewed: boolean } | null => {
      const row = get.get(accountId, id);
      if (!row) return null;
      const { next, endpointRenewed } = updatePlan(withHealth(webhookFromRow(row)), change);
      update.run({ ...changeParams(next), accountId, id });
      return { updated: webhookFromRow(get.get(accountId, id)!), endpointRenewed };
    },
  );

  // A create replayed by its Idempotency-Key must not show a secret a rotation made since (webhook-service.ts).
  const markKeysRotated = db.prepare(
    `UPDATE idempotency_keys SET request_hash = @prefix || request_hash
      WHERE account_id = @accountId AND webhook_id = @id AND substr(request_hash, 1, length(@prefix)) <> @prefix`,
  );
  // A replaced secret is dropped once its overlap is over: nothing signs with it any more.
  const dropEndedSecrets = db.prepare(
    `UPDATE webhooks SET previous_sealed_secret = NULL, previous_secret_until = NULL
      WHERE previous_secret_until IS NOT NULL AND previous_secret_until <= ?`,
  );
  const changeSecretInTransaction = db.transaction(
    (accountId: number, id: string, change: (current: WebhookRecord) => SecretChange): WebhookRecord | null => {
      const row = get.get(accountId, id);
      if (!row) return null;
      const { next, rotated } = secretChangePlan(withHealth(webhookFromRow(row)), change);
      updateSecret.run({ ...next, accountId, id });
      if (rotated) markKeysRotated.run({ prefix: ROTATED_KEY_PREFIX, accountId, id });
      return withHealth(webhookFromRow(get.get(accountId, id)!));
    },
  );
  // The key is recorded after the change has marked the webhook's earlier keys: it is the newest secret's.
  const changeSecretOnceInTransaction = db.transaction(
    (
      accountId: number,
      id: string,
      change: (current: WebhookRecord) => SecretChange,
      idempotency: IdempotencyClaim & { at: Micros },
    ): SecretChangeOutcome | null => {
      const key = findKey.get(accountId, idempotency.key, idempotency.notBefore);
      const decision = keyedSecretChangeDecision(
        key ? { requestHash: key.request_hash, webhookId: key.webhook_id } : null,
      );
      if ('replay' in decision) {
        const row = get.get(accountId, id);
        return row ? { record: withHealth(webhookFromRow(row)), replayed: decision.replay } : null;
      }
      const record = changeSecretInTransaction(accountId, id, change);
      if (record === null) return null;
      upsertKey.run(accountId, idempotency.key, idempotency.requestHash, id, idempotency.at);
      return { record, replayed: null };
    },
  );

  // A rate-limited webhook's next start (domain/send-rate.ts): on its row, so a restart keeps the spacing. Read with
  // whether the webhook still takes deliveries, which decideStartOf checks too.
  const readStartSlot = db.prepare<[string], StartSlotDbRow>(`SELECT ${START_SLOT_COLUMNS} FROM webhooks WHERE id = ?`);
  const writeRateNextAt = db.prepare<[Micros, string]>('UPDATE webhooks SET rate_next_at = ? WHERE id = ?');
  const takeStartSlotInTransaction = db.transaction((id: string, at: Micros, spacing: Micros): StartDecision => {
    const row = readStartSlot.get(id);
    const decision = decideStartOf(row === undefined ? null : startSlotFromRow(row), at, spacing);
    if (decision.granted) writeRateNextAt.run(decision.nextAt, id);
    return decision;
  });

  return {
    // IMMEDIATE takes the write lock first, so the count and key checks see every committed create.
    create: async (record, options) =>
      createInTransaction.immediate(record, options.maxPerAccount, options.idempotency),
    get: async (accountId, id) => {
      const record = cache.get(accountId, id);
      return record === null ? null : withHealth(record);
    },
    list: async (accountId, { offset, limit }, kind) => ({
      items: page.all(accountId, kind, limit, offset).map((row) => withHealth(webhookFromRow(row))),
      total: countForAccount.get(accountId, kind)!.n,
    }),
    update: async (accountId, id, change) => {
      const outcome = updateInTransaction.immediate(accountId, id, change);
      if (outcome === null) return null;
      // Once the update is committed: a failed commit leaves the health as it was, with the row.
      if (outcome.endpointRenewed) health.reset(id);
      return withHealth(outcome.updated);
    },
    changeSecret: async (accountId, id, change) => changeSecretInTransaction.immediate(accountId, id, change),
    changeSecretOnce: async (accountId, id, change, idempotency) =>
      changeSecretOnceInTransaction.immediate(accountId, id, change, idempotency),
    dropEndedSecrets: async (now) => dropEndedSecrets.run(now).changes,
    delete: async (accountId, id) => {
      const deleted = remove.run(accountId, id).changes === 1;
      if (deleted) health.forget(id);
      return deleted;
    },
    countArchived: async () => countArchived.get()!.n,
    // Not synced: only a power loss or a crash of the OS can take a slot back, and the machine's restart then
    // takes far longer than the webhook's spacing (a second at most), so no second holds more starts than the
    // rate. A synced commit would hold the main thread for the disk at every request of a rate-limited webhook.
    takeStartSlot: async (id, at, spacing) =>
      commitWithoutSync(db, () => takeStartSlotInTransaction.immediate(id, at, spacing)),
  };
}
