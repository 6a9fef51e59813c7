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

test("the upgrade to an event's count of deliveries counts those already there, for the purge", async () => {
  const url = await createTestDatabase();
  await withPool(url, async (db) => {
    await migratePostgres(
      db,
      PG_MIGRATIONS.filter((m) => m.version < 15),
    );
    await db.query(
      `INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES (1, 'act_1', 'One', 'enterprise', 0)`,
    );
    await db.query(
      `INSERT INTO webhooks (id, account_id, name, description, client_url, event_types, job_ids, active, sealed_secret,
                             created_at, updated_at)
       VALUES ('wsu_a', 1, 'a', '', 'http://127.0.0.1:9/', '[]', '[]', true, 'sealed', 0, 0)`,
    );
    await db.query(
      `INSERT INTO events (id, account_id, event_type, run_id, created_at)
       SELECT 'wev_' || g, 1, 'job.run.completed', 'run-' || g, 0 FROM generate_series(0, 2) g`,
    );
    // wev_0 none, wev_1 one, wev_2 two.
    await db.query(
      `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, created_at, updated_at)
       VALUES ('wdl_1', 'wev_1', 'wsu_a', 'succeeded', '\\x7b', 0, 0), ('wdl_2a', 'wev_2', 'wsu_a', 'succeeded', '\\x7b', 0, 0),
              ('wdl_2b', 'wev_2', 'wsu_a', 'pending', '\\x7b', 0, 0)`,
    );
    await migratePostgres(db);
    const counted = await db.query<{ id: string; deliveries_left: number }>(
      'SELECT id, deliveries_left FROM events ORDER BY id',
    );
    expect(counted.rows).toEqual([
      { id: 'wev_0', deliveries_left: 0 },
      { id: 'wev_1', deliveries_left: 1 },
      { id: 'wev_2', deliveries_left: 2 },
    ]);
    // Deleting deliveries lowers their events' counts, whatever deletes them.
    await db.query(`DELETE FROM deliveries WHERE state = 'succeeded'`);
    const after = await db.query<{ id: string; deliveries_left: number }>(
      'SELECT id, deliveries_left FROM events ORDER BY id',
    );
    expect(after.rows.map((r) => r.deliveries_left)).toEqual([0, 0, 1]);
  });
});
