// The rows sealed with the secret key, in PostgreSQL: the webhooks' secrets and the key check. Re-sealing them
// all under a new key is one transaction, so a database never holds secrets under two keys, and it is refused
// while another jobhooks process is connected: each instance holds the key in its environment and would go on
// sealing new secrets with the old one.
import type pg from 'pg';
import { ConfigurationError } from '../../core/errors';
import type { SecretKeysStore } from '../store';
import type { PgDatabase } from './database';
import { LISTENER_NAME, type Notifications } from './notifications';

interface SealedRow {
  id: string;
  sealed_secret: string;
  previous_sealed_secret: string | null;
}

// FOR SHARE: an instance starting while a rotation runs waits for its commit and then reads the new check, which
// its old key does not open, so it refuses to start; without the wait it would read the old check and start.
const SELECT_KEY_CHECK = 'SELECT sealed FROM secret_key_check WHERE id = 1 FOR SHARE';
const HOLD_KEY_CHECK = 'SELECT sealed FROM secret_key_check WHERE id = 1 FOR UPDATE';
// Every running instance holds its LISTEN connection from before it reads the key check until it stops; the
// re-sealing process's own (the command's) is not one of them.
const OTHER_INSTANCES = `
  SELECT count(*)::int AS n FROM pg_stat_activity
   WHERE datname = current_database() AND application_name = $1 AND pid IS DISTINCT FROM $2`;
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

/**
 * Refuses (changing nothing) while another jobhooks process listens on the database: a running instance, or
 * another command. The check sees connections that are up: an instance whose LISTEN connection is down at that
 * moment (reconnecting after a network cut) is not seen, which is why the operator stops every instance first.
 */
async function refuseWhileOthersConnected(client: pg.PoolClient, notifications: Notifications): Promise<void> {
  // pg_stat_activity is read once per transaction and kept: the second check must read it again.
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ n: number }>(OTHER_INSTANCES, [LISTENER_NAME, notifications.listenerPid()]);
  const others = rows[0]!.n;
  if (others === 0) return;
  throw new ConfigurationError(
    `${others === 1 ? 'Another jobhooks process is' : `${others} other jobhooks processes are`} connected to this database (instances of the service, or commands): stop every instance first, or they would keep sealing new secrets with the old key.`,
  );
}

export function createPgSecretKeysStore(db: PgDatabase, notifications: Notifications): SecretKeysStore {
  return {
    keyCheck: async () => (await db.query<{ sealed: string }>(SELECT_KEY_CHECK)).rows[0]?.sealed ?? null,
    anySealedSecret: async () =>
      (await db.query<{ sealed_secret: string }>(SELECT_ANY_SECRET)).rows[0]?.sealed_secret ?? null,
    setKeyCheck: async (sealed) => {
      await db.query(UPSERT_KEY_CHECK, [sealed]);
    },
    resealAll: (resealOne, keyCheck) =>
      db.transaction(async (client) => {
        // Before the lock too, so a mistaken run refuses at once instead of first queueing the running
        // instances' writes of webhooks behind its lock.
        await refuseWhileOthersConnected(client, notifications);
        await client.query(LOCK_SEALED_TABLES);
        // Held first: an instance that starts from now on waits for the commit (SELECT_KEY_CHECK); one that
        // started before holds a LISTEN connection counted here.
        await client.query(HOLD_KEY_CHECK);
        await refuseWhileOthersConnected(client, notifications);
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
