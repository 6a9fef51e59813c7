// The rows sealed with the secret key, in PostgreSQL: the webhooks' secrets and the key check. Re-sealing them
// all under a new key is one transaction, so a database never holds secrets under two keys.
import type { SecretKeysStore } from '../store';
import type { PgDatabase } from './database';

interface SealedRow {
  id: string;
  sealed_secret: string;
  previous_sealed_secret: string | null;
}

const SELECT_KEY_CHECK = 'SELECT sealed FROM secret_key_check WHERE id = 1';
const UPSERT_KEY_CHECK = `
  INSERT INTO secret_key_check (id, sealed) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET sealed = excluded.sealed`;
const SELECT_ANY_SECRET = 'SELECT sealed_secret FROM webhooks LIMIT 1';
// Row locks alone would let a webhook be created, under the old key, while the others are re-sealed: the table
// lock holds off every write of webhooks (and another re-seal), not reads, until the commit.
const LOCK_SEALED_TABLES = 'LOCK TABLE webhooks, secret_key_check IN SHARE ROW EXCLUSIVE MODE';
const SELECT_ALL_SECRETS_LOCKED =
  'SELECT id, sealed_secret, previous_sealed_secret FROM webhooks ORDER BY id FOR UPDATE';
/** One statement for every webhook: $1 ids, $2 secrets, $3 replaced secrets (null where none), index for index. */
const WRITE_SECRETS = `
  UPDATE webhooks w SET sealed_secret = n.sealed, previous_sealed_secret = n.previous
    FROM unnest($1::text[], $2::text[], $3::text[]) AS n(id, sealed, previous)
   WHERE w.id = n.id`;

export function createPgSecretKeysStore(db: PgDatabase): SecretKeysStore {
  return {
    keyCheck: async () => (await db.query<{ sealed: string }>(SELECT_KEY_CHECK)).rows[0]?.sealed ?? null,
    anySealedSecret: async () =>
      (await db.query<{ sealed_secret: string }>(SELECT_ANY_SECRET)).rows[0]?.sealed_secret ?? null,
    setKeyCheck: async (sealed) => {
      await db.query(UPSERT_KEY_CHECK, [sealed]);
    },
    resealAll: (resealOne, keyCheck) =>
      db.transaction(async (client) => {
        await client.query(LOCK_SEALED_TABLES);
        const { rows } = await client.query<SealedRow>(SELECT_ALL_SECRETS_LOCKED);
        // A rotation's replaced secret too: it signs until its overlap ends.
        const sealed = rows.map((row) => resealOne(row.sealed_secret));
        const previous = rows.map((row) =>
          row.previous_sealed_secret === null ? null : resealOne(row.previous_sealed_secret),
        );
        if (rows.length > 0) await client.query(WRITE_SECRETS, [rows.map((row) => row.id), sealed, previous]);
        await client.query(UPSERT_KEY_CHECK, [keyCheck]);
        return rows.length;
      }),
  };
}
