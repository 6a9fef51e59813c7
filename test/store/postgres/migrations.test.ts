// PostgreSQL's own migrations: an empty database gets every one, a current one is left alone, and a database
// migrated by a newer jobhooks is refused with a sentence, not used by code that does not know its schema.
import pg from 'pg';
import { ConfigurationError } from '../../../service/src/core/errors';
import { openPool } from '../../../service/src/store/postgres/database';
import { migratePostgres, schemaVersionOf } from '../../../service/src/store/postgres/migrate';
import { PG_MIGRATIONS } from '../../../service/src/store/postgres/migrations';
import { createTestDatabase } from '../../support/postgres';

const newest = PG_MIGRATIONS.at(-1)!.version;

async function withPool<T>(url: string, work: (db: ReturnType<typeof openPool>) => Promise<T>): Promise<T> {
  const db = openPool({ url, poolSize: 2 }, () => undefined);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

test('an empty database gets every migration, and a second run changes nothing', async () => {
  const url = await createTestDatabase();
  await withPool(url, async (db) => {
    expect(await schemaVersionOf(db)).toBe(0);
    await migratePostgres(db);
    expect(await schemaVersionOf(db)).toBe(newest);
    await migratePostgres(db);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    expect(rows[0]!.n).toBe(PG_MIGRATIONS.length);
  });
});

test('a database migrated by a newer jobhooks is refused, naming both versions, and left as it was', async () => {
  const url = await createTestDatabase();
  await withPool(url, (db) => migratePostgres(db));
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`INSERT INTO schema_migrations (version, description) VALUES ($1, 'from the future')`, [
      newest + 1,
    ]);
    const refusal = await withPool(url, (db) => migratePostgres(db)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ConfigurationError);
    expect((refusal as Error).message).toBe(
      `The database schema is version ${newest + 1}, newer than this build knows (${newest}). Upgrade jobhooks.`,
    );
    const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    expect(rows[0]!.n).toBe(PG_MIGRATIONS.length + 1);
  } finally {
    await admin.end();
  }
});
