// The two backends' schemas are written by hand, in two dialects (store/sqlite/migrations.ts and
// store/postgres/migrations.ts): this keeps them from drifting. Both hold the same tables with the same columns,
// except what only PostgreSQL needs, listed here with the reason.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPool } from '../../../service/src/store/postgres/database';
import { migratePostgres } from '../../../service/src/store/postgres/migrate';
import { openDatabase } from '../../../service/src/store/sqlite/database';
import { MIGRATIONS } from '../../../service/src/store/sqlite/migrations';
import { createTestDatabase } from '../../support/postgres';

/**
 * What PostgreSQL alone keeps: state several instances share, which one SQLite process keeps in memory, and what
 * replaces an index there (an update writes an entry in every index of the row, where SQLite's writes only those of
 * the columns it changed).
 */
const ONLY_POSTGRES: Record<string, string[] | 'table'> = {
  // the per-account request windows every instance counts in (accounts/rate-limiter.ts)
  rate_limit_windows: 'table',
  // the failed sign-ins of each client address, counted for all instances (accounts/sign-in-throttle.ts)
  sign_in_windows: 'table',
  // the results of jobs one instance runs for all (store/postgres/cluster.ts)
  cluster_results: 'table',
  // the migrations applied, under an advisory lock several instances take; SQLite keeps the version in user_version
  schema_migrations: 'table',
  // the deliveries that name the event, kept by the database, in place of an index of deliveries by event
  events: ['deliveries_left'],
  // each endpoint's capacity and circuit, for every instance, and how many times they changed
  // (store/postgres/endpoint-health.ts; SQLite keeps them in its one process's memory)
  webhooks: [
    'endpoint_heard',
    'endpoint_limit',
    'endpoint_sick_in_a_row',
    'circuit_opens',
    'circuit_since',
    'circuit_until',
    'endpoint_health_revision',
  ],
};

type Schema = Map<string, Set<string>>;

function without(schema: Schema, only: typeof ONLY_POSTGRES): Schema {
  const kept: Schema = new Map();
  for (const [table, columns] of schema) {
    const skipped = only[table];
    if (skipped === 'table') continue;
    kept.set(table, new Set([...columns].filter((c) => !(skipped ?? []).includes(c))));
  }
  return kept;
}

const asSorted = (schema: Schema) =>
  Object.fromEntries([...schema].sort(([a], [b]) => a.localeCompare(b)).map(([t, c]) => [t, [...c].sort()]));

test('SQLite and PostgreSQL hold the same tables and columns, but for what only PostgreSQL needs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobhooks-parity-'));
  const sqlite: Schema = new Map();
  try {
    const db = openDatabase(join(dir, 'jobhooks.db'), MIGRATIONS, 'normal');
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all();
    for (const { name } of tables) {
      const columns = db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${name}')`).all();
      sqlite.set(name, new Set(columns.map((c) => c.name)));
    }
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const pool = openPool({ url: await createTestDatabase(), poolSize: 1 }, () => undefined);
  const postgres: Schema = new Map();
  try {
    await migratePostgres(pool);
    const { rows } = await pool.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`,
    );
    for (const { table_name: table, column_name: column } of rows)
      postgres.set(table, (postgres.get(table) ?? new Set()).add(column));
  } finally {
    await pool.close();
  }

  for (const [table, skipped] of Object.entries(ONLY_POSTGRES)) {
    // Every exception still names something PostgreSQL has, so the list cannot outlive what it excuses.
    expect(postgres.has(table)).toBe(true);
    if (skipped !== 'table') for (const column of skipped) expect(postgres.get(table)!.has(column)).toBe(true);
  }
  expect(asSorted(without(postgres, ONLY_POSTGRES))).toEqual(asSorted(sqlite));
});
