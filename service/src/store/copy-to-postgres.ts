// `jobhooks db copy --to postgres://...`: moves a SQLite installation into an empty PostgreSQL database, so a team
// that outgrows one machine keeps its accounts, tokens, webhooks, pending deliveries and delivery log.
//
// The copy reads one SQLite snapshot (a read transaction: the service may keep running, and what it commits
// meanwhile is not in the copy) and writes it in one PostgreSQL transaction (a failed copy leaves the target as
// empty as it was). Webhook secrets are copied as sealed: the instances on PostgreSQL open them with the same key.
import Database from 'better-sqlite3';
import type pg from 'pg';
import { ConfigurationError } from '../core/errors';
import { openPool, type PgDatabase } from './postgres/database';
import { migratePostgres } from './postgres/migrate';

/** The tables that hold an installation, parents before children (foreign keys are checked row by row). */
export const COPIED_TABLES = [
  'accounts',
  'api_tokens',
  'webhooks',
  'idempotency_keys',
  'events',
  'deliveries',
  'delivery_attempts',
  'delivery_stats',
  'secret_key_check',
] as const;

export type CopiedTable = (typeof COPIED_TABLES)[number];

/** Rows are read in the order they were written (rowid); a table without rowids, in the order of its key. */
const READ_ORDER: Partial<Record<CopiedTable, string>> = { delivery_stats: 'account_id, hour, webhook_id' };

/**
 * Columns PostgreSQL keeps that SQLite does not, computed from the source as each row is read: an event counts the
 * deliveries that name it (the purge keeps it until none does).
 */
const DERIVED_COLUMNS: Partial<Record<CopiedTable, Record<string, string>>> = {
  events: { deliveries_left: '(SELECT count(*) FROM deliveries d WHERE d.event_id = events.id)' },
};

/** Rows per INSERT, and the most payload bytes one may carry (events and deliveries hold payloads). */
const BATCH_ROWS = 1_000;
const BATCH_BYTES = 8 * 1024 * 1024;

type SqliteRow = Record<string, unknown>;

export interface CopyReport {
  rows: Record<CopiedTable, number>;
}

/** Columns of `table` in the target, by name; the copy writes only those, and refuses a source column it lacks. */
async function targetColumns(client: pg.PoolClient, table: string): Promise<Set<string>> {
  const { rows } = await client.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`,
    [table],
  );
  return new Set(rows.map((r) => r.column_name));
}

function sourceColumns(source: Database.Database, table: string): string[] {
  return (source.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>).map(
    (c) => c.name,
  );
}

/**
 * A copied delivery holds no lease: the instance that had it stays on SQLite. While leased, next_attempt_at holds
 * the lease's expiry, so the row gets back its place in the queue (created_at: due, oldest first) and the new
 * instances send it at once.
 */
function withoutLease(table: CopiedTable, row: SqliteRow): SqliteRow {
  if (table !== 'deliveries' || row.lease_owner == null) return row;
  return { ...row, lease_owner: null, next_attempt_at: row.created_at };
}

/**
 * A value as JSON that json_populate_recordset reads into the target's type: bytes as bytea's hex text. A NUL in a
 * text (a receiver's answer SQLite logged before answers were made storable) becomes U+FFFD, as it now is when
 * logged: PostgreSQL's text cannot hold it.
 */
function jsonValue(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  return typeof value === 'string' ? value.replaceAll('\u0000', '\uFFFD') : value;
}

function rowSize(row: SqliteRow): number {
  let bytes = 64;
  for (const value of Object.values(row)) {
    if (Buffer.isBuffer(value)) bytes += value.length * 2;
    else if (typeof value === 'string') bytes += value.length;
    else bytes += 8;
  }
  return bytes;
}

async function insertBatch(
  client: pg.PoolClient,
  table: CopiedTable,
  columns: string[],
  rows: SqliteRow[],
): Promise<void> {
  const list = columns.map((c) => `"${c}"`).join(', ');
  // delivery_attempts.id is an identity column: the log keeps its ids, so links to an attempt stay valid.
  const overriding = table === 'delivery_attempts' ? 'OVERRIDING SYSTEM VALUE' : '';
  const json = JSON.stringify(
    rows.map((row) => {
      const copied = withoutLease(table, row);
      return Object.fromEntries(columns.map((c) => [c, jsonValue(copied[c])]));
    }),
  );
  await client.query(
    `INSERT INTO ${table} (${list}) ${overriding} SELECT ${list} FROM json_populate_recordset(NULL::${table}, $1::json)`,
    [json],
  );
}

async function copyTable(source: Database.Database, client: pg.PoolClient, table: CopiedTable): Promise<number> {
  const target = await targetColumns(client, table);
  const derived = DERIVED_COLUMNS[table] ?? {};
  const columns = [...sourceColumns(source, table), ...Object.keys(derived)];
  const selected = ['*', ...Object.entries(derived).map(([name, value]) => `${value} AS ${name}`)].join(', ');
  const missing = columns.filter((c) => !target.has(c));
  if (missing.length > 0) {
    throw new Error(`The PostgreSQL schema has no column ${missing.join(', ')} of table ${table}.`);
  }
  let batch: SqliteRow[] = [];
  let bytes = 0;
  let copied = 0;
  // Row by row from SQLite: a log of millions of rows never sits in memory whole.
  for (const row of source
    .prepare(`SELECT ${selected} FROM ${table} ORDER BY ${READ_ORDER[table] ?? 'rowid'}`)
    .iterate() as Iterable<SqliteRow>) {
    batch.push(row);
    bytes += rowSize(row);
    if (batch.length >= BATCH_ROWS || bytes >= BATCH_BYTES) {
      await insertBatch(client, table, columns, batch);
      copied += batch.length;
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) await insertBatch(client, table, columns, batch);
  return copied + batch.length;
}

/** Refuses a target that holds anything of an installation: the copy never merges into one. */
async function refuseNonEmpty(client: pg.PoolClient, where: string): Promise<void> {
  for (const table of COPIED_TABLES) {
    const { rowCount } = await client.query(`SELECT 1 FROM ${table} LIMIT 1`);
    if (rowCount !== 0) {
      throw new ConfigurationError(
        `The PostgreSQL database at ${where} is not empty (table ${table} has rows): copy into a new, empty database.`,
      );
    }
  }
}

export interface CopyOptions {
  /** The SQLite file, at this build's schema version (open it with the store first to upgrade it). */
  sqlitePath: string;
  url: string;
  /** How the target is named in messages, without its password. */
  where: string;
}

export async function copySqliteToPostgres(options: CopyOptions): Promise<CopyReport> {
  const db: PgDatabase = openPool({ url: options.url, poolSize: 1 }, () => undefined);
  const source = new Database(options.sqlitePath, { readonly: true, fileMustExist: true });
  try {
    await migratePostgres(db);
    // One read transaction: every table is read from the same snapshot, whatever the service commits meanwhile.
    source.exec('BEGIN');
    const rows = await db.transaction(async (client) => {
      await refuseNonEmpty(client, options.where);
      const counts = {} as Record<CopiedTable, number>;
      for (const table of COPIED_TABLES) counts[table] = await copyTable(source, client, table);
      // New attempts on PostgreSQL take ids after the copied ones.
      await client.query(
        `SELECT setval(pg_get_serial_sequence('delivery_attempts', 'id'), max(id)) FROM delivery_attempts
          HAVING max(id) IS NOT NULL`,
      );
      return counts;
    });
    return { rows };
  } finally {
    if (source.inTransaction) source.exec('ROLLBACK');
    source.close();
    await db.close();
  }
}
