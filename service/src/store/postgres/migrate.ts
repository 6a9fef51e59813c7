// Brings a PostgreSQL database's schema up to date. Instances started at once take turns on an advisory lock:
// the first applies what is missing, the others then find nothing to do. A database newer than this build is
// refused, as with SQLite.
import { ConfigurationError } from '../../core/errors';
import type { Migration } from '../rows';
import type { PgDatabase } from './database';
import { PG_MIGRATIONS } from './migrations';

/** Advisory lock keys of the whole cluster, in one place so no two uses collide. */
export const ADVISORY_LOCKS = {
  /** Held while migrating (transaction-scoped). */
  migrations: 7_411_001,
  /** Named locks of ClusterStore: (this key, hashtext(name)). */
  named: 7_411_002,
  /** Claims: (this key, hashtext(webhook id)), so concurrent claims take different webhooks. */
  claims: 7_411_003,
} as const;

export async function schemaVersionOf(db: PgDatabase): Promise<number> {
  const exists = await db.query<{ present: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
  if (!exists.rows[0]!.present) return 0;
  const result = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return result.rows[0]!.version ?? 0;
}

export async function migratePostgres(db: PgDatabase, migrations: readonly Migration[] = PG_MIGRATIONS): Promise<void> {
  const newest = migrations.at(-1)?.version ?? 0;
  await db.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCKS.migrations]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM schema_migrations',
    );
    const current = rows[0]!.version ?? 0;
    if (current > newest) {
      throw new ConfigurationError(
        `The database schema is version ${current}, newer than this build knows (${newest}). Upgrade jobhooks.`,
      );
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, description) VALUES ($1, $2)', [
        migration.version,
        migration.description,
      ]);
    }
  });
}
