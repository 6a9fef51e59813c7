// The PostgreSQL connection pool the store's parts share, with the type parsers that make rows look like the
// SQLite store's (numbers, not strings), and a transaction helper.
import { createHash } from 'node:crypto';
import pg from 'pg';

/** int8 (bigint): times are microseconds since the epoch, exact in a double until the year 2255. */
const INT8_OID = 20;

export interface PostgresOptions {
  /** postgres:// or postgresql:// URL (JOBHOOKS_DATABASE_URL). */
  url: string;
  /** Connections this instance may hold, besides its one LISTEN connection. */
  poolSize: number;
}

/**
 * A statement each connection prepares once, the first time it runs it, and then only binds and executes: the hot
 * statements of ingestion, claims and results, which would otherwise be parsed and planned at every call. Only
 * statements that name their columns: PostgreSQL plans a prepared statement again when a table changes under it,
 * but refuses to run one whose result columns changed (a SELECT * after a newer instance's migration).
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

/** `text` as a prepared statement, named after its text: the same text is the same statement on a connection. */
export function prepared(text: string): PreparedStatement {
  return { name: `jobhooks_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
}

export interface TransactionOptions {
  /**
   * false: the commit returns before its WAL reaches the disk (synchronous_commit off for this transaction), for
   * writes whose loss in a crash of PostgreSQL is harmless. A later durable commit flushes them too.
   */
  waitForDisk?: boolean;
}

export interface PgDatabase {
  pool: pg.Pool;
  /** One statement on any pooled connection. */
  query<R extends pg.QueryResultRow>(
    statement: string | PreparedStatement,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
  /**
   * Runs `work` in a transaction on one connection: committed when it resolves, rolled back when it throws. READ
   * COMMITTED, whatever the database's default: each statement sees what committed before it, and row locks
   * (FOR UPDATE, SKIP LOCKED) order the writers.
   */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>, options?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
}

/** pg's parsers are global to the module; numbers are what every record of the store holds. */
pg.types.setTypeParser(INT8_OID, (value: string) => Number(value));

/** How long a new connection may take to be ready. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** pg's client with a time limit on connecting alone (see openPool). */
class TimedConnectClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super({
      ...(typeof config === 'string' ? { connectionString: config } : config),
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
  }
}

export function openPool(options: PostgresOptions, onIdleError: (error: Error) => void): PgDatabase {
  // pg-pool awaits the promise onConnect returns before a new connection's first use (@types/pg says void).
  const config: pg.PoolConfig & { onConnect(client: pg.ClientBase): Promise<unknown> } = {
    connectionString: options.url,
    max: options.poolSize,
    // Each new connection has CONNECT_TIMEOUT_MS to be ready (a server that takes it and never answers fails the
    // query that asked for it, and a start-up, instead of holding them for ever). Set on the client, not the pool:
    // the pool's own connectionTimeoutMillis would also fail a query that merely waits for a busy pool.
    Client: TimedConnectClient,
    // The service names itself in pg_stat_activity, so an operator sees whose connections these are.
    application_name: 'jobhooks',
    // The store's statements are written for READ COMMITTED, where each statement sees what committed before it
    // (a claim's second statement, a webhook's deletion and its trigger): an operator's other default for the
    // database or role must not change that. A connection that cannot set it is closed, and the query that asked
    // for it fails.
    onConnect: (client) => client.query("SET default_transaction_isolation TO 'read committed'"),
  };
  const pool = new pg.Pool(config);
  // A pooled connection that breaks while idle (a restart of PostgreSQL) must not crash the process; the
  // next query opens a new one.
  pool.on('error', onIdleError);
  let closed: Promise<void> | null = null;
  return {
    pool,
    query: (statement, values) => pool.query(statement, values),
    async transaction(work, { waitForDisk = true } = {}) {
      const client = await pool.connect();
      let broken: unknown = null;
      // A connection that dies in the middle (PostgreSQL restarted, the session killed) emits 'error': without a
      // listener that would crash the process. The transaction's own query rejects too, and says why.
      const onError = (error: unknown) => {
        broken = error;
      };
      client.on('error', onError);
      try {
        await client.query(waitForDisk ? 'BEGIN' : 'BEGIN; SET LOCAL synchronous_commit = off');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError;
        }
        throw error;
      } finally {
        client.off('error', onError);
        // A connection that broke, or whose ROLLBACK failed, is in an unknown state: it is destroyed, not reused.
        client.release(broken === null ? undefined : true);
      }
    },
    close: () => (closed ??= pool.end()),
  };
}

/**
 * Rows turned into one array per column, the parameters of a statement that takes a whole batch through
 * unnest($1::type[], $2::type[], ...): one round trip however many rows.
 */
export function asColumns(rows: readonly unknown[][], width: number): unknown[][] {
  return Array.from({ length: width }, (_, column) => rows.map((row) => row[column]));
}

/**
 * True for a postgres:// or postgresql:// URL that a URL parser reads (a port of digits, a password
 * percent-encoded): the store JOBHOOKS_DATABASE_URL selects.
 */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url) && URL.canParse(url);
}
