// What a run costs PostgreSQL: the statements it executed for the run's database (as pg_stat_statements counts
// them: each statement a client sent, BEGIN and COMMIT included, this file's own reads left out), the WAL it wrote
// (pg_current_wal_lsn() before and after: the whole cluster's, which serves only this run), and the CPU time of
// the cluster's processes.
import pg from 'pg';

export interface DatabaseWork {
  statements: number;
  walBytes: number;
  cpuSeconds: number;
  /** The statements executed most often, with their counts: where the statements per delivery come from. */
  mostCalled: Array<{ calls: number; query: string }>;
}

const MOST_CALLED = 16;

/** This file's own statements, left out of the count. */
const OWN = `query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%pg_current_wal_lsn%'`;

/**
 * Starts counting on the database at `url` (its cluster must load pg_stat_statements); the function it resolves
 * with stops and reads the counts.
 */
export async function countDatabaseWork(url: string, cpuSeconds: () => number): Promise<() => Promise<DatabaseWork>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await client.query('SELECT pg_stat_statements_reset()');
  const start = (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0]!.lsn;
  const cpuBefore = cpuSeconds();
  return async () => {
    const cpu = cpuSeconds() - cpuBefore;
    try {
      const wal = await client.query<{ bytes: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS bytes', [
        start,
      ]);
      const calls = await client.query<{ n: string }>(
        `SELECT coalesce(sum(calls), 0) AS n FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ${OWN}`,
      );
      const most = await client.query<{ calls: string; query: string }>(
        `SELECT calls, regexp_replace(query, '\\s+', ' ', 'g') AS query FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ${OWN}
          ORDER BY calls DESC LIMIT ${MOST_CALLED}`,
      );
      return {
        statements: Number(calls.rows[0]!.n),
        walBytes: Number(wal.rows[0]!.bytes),
        cpuSeconds: cpu,
        mostCalled: most.rows.map((row) => ({ calls: Number(row.calls), query: row.query })),
      };
    } finally {
      await client.end();
    }
  };
}
