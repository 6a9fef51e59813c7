// Looks into a test service's database, whichever the backend: a few rows, a change a test sets up by hand, or a
// dump of everything, so a test can assert that a request changed nothing. The SQL is written once, in the
// common dialect of both (`?` placeholders become `$1`, `$2` on PostgreSQL), and rows come back as SQLite gives
// them: numbers for bigints and booleans as 1 or 0.
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import pg from 'pg';
import { LOOK_REUSE_MS } from '../../service/src/store/sqlite/other-connections';

/** int8 as a number, as the PostgreSQL store itself reads it (service/src/store/postgres/database.ts). */
pg.types.setTypeParser(20, (value: string) => Number(value));

export type Row = Record<string, unknown>;

export interface DatabaseInspector {
  readonly backend: 'sqlite' | 'postgres';
  rows<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** A write the test sets up by hand (a state the service would reach only after hours). */
  run(sql: string, params?: unknown[]): Promise<void>;
  /** Every row of every table, as one string. */
  snapshot(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Tables that change with every request rather than with the data: the shared rate and sign-in windows
 * (PostgreSQL; SQLite keeps them in memory), the shared job results and the readiness probe's row.
 */
const BOOKKEEPING = new Set([
  'rate_limit_windows',
  'sign_in_windows',
  'cluster_results',
  'readiness_probe',
  'schema_migrations',
]);

/**
 * Waits until a SQLite service sees a commit another connection just made: it looks for them at most once per
 * LOOK_REUSE_MS, so a request arriving sooner may still be answered from its cache (as documented for the CLI).
 */
export const untilSeenByService = () => sleep(LOOK_REUSE_MS + 1);

const dumpOf = (tables: Record<string, unknown[]>) =>
  JSON.stringify(tables, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('hex') : value));

function sqliteInspector(path: string): DatabaseInspector {
  const withDb = <T>(readonly: boolean, work: (db: Database.Database) => T): T => {
    const db = new Database(path, { readonly, fileMustExist: true });
    try {
      return work(db);
    } finally {
      db.close();
    }
  };
  return {
    backend: 'sqlite',
    rows: async <T extends Row>(sql: string, params: unknown[] = []) =>
      withDb(true, (db) => db.prepare(sql).all(...params) as T[]),
    run: async (sql, params = []) => {
      withDb(false, (db) => db.prepare(sql).run(...params));
      await untilSeenByService();
    },
    snapshot: async () =>
      withDb(true, (db) => {
        // wr: a table WITHOUT ROWID (the statistics rollup), ordered by its key columns, which come first.
        const tables = db
          .prepare<[], { name: string; wr: number }>(
            "SELECT name, wr FROM pragma_table_list WHERE type = 'table' AND schema = 'main' ORDER BY name",
          )
          .all()
          .filter(({ name }) => !BOOKKEEPING.has(name) && !name.startsWith('sqlite_'));
        const orderOf = (name: string, withoutRowid: boolean) => {
          if (!withoutRowid) return 'rowid';
          const key = db.prepare<[string], { name: string }>(
            'SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk',
          );
          return key
            .all(name)
            .map((c) => `"${c.name}"`)
            .join(', ');
        };
        return dumpOf(
          Object.fromEntries(
            tables.map(({ name, wr }) => [
              name,
              db.prepare(`SELECT * FROM "${name}" ORDER BY ${orderOf(name, wr === 1)}`).all(),
            ]),
          ),
        );
      }),
    close: async () => undefined,
  };
}

const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${(n += 1)}`);
};

const asSqliteGivesIt = (row: Row): Row =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v]));

function postgresInspector(url: string): DatabaseInspector {
  let client: Promise<pg.Client> | null = null;
  const connected = () =>
    (client ??= (async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    })());
  const rows = async <T extends Row>(sql: string, params: unknown[] = []) =>
    (await (await connected()).query(numbered(sql), params)).rows.map(asSqliteGivesIt) as T[];
  return {
    backend: 'postgres',
    rows,
    run: async (sql, params = []) => {
      await (await connected()).query(numbered(sql), params);
    },
    snapshot: async () => {
      const tables = (
        await rows<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
        )
      ).filter(({ name }) => !BOOKKEEPING.has(name));
      const dump: Record<string, unknown[]> = {};
      // Ordered by every column: PostgreSQL has no rowid, and a table's first column is not always unique.
      for (const { name } of tables) dump[name] = await rows(`SELECT * FROM "${name}" t ORDER BY t::text`);
      return dumpOf(dump);
    },
    close: async () => {
      if (client !== null) await (await client).end();
    },
  };
}

export function inspectDatabase(where: { dbPath: string; databaseUrl: string | null }): DatabaseInspector {
  return where.databaseUrl === null ? sqliteInspector(where.dbPath) : postgresInspector(where.databaseUrl);
}
