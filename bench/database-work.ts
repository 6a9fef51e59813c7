// What a run costs PostgreSQL: the statements it executed for the run's database (as pg_stat_statements counts
// them: each statement a client sent, BEGIN and COMMIT included, this file's own reads left out), the WAL it wrote
// (pg_current_wal_lsn() before and after: the whole cluster's, which serves only this run), and the CPU time of
// the cluster's processes. With `walByRelation`, the WAL is also read back record by record (pg_walinspect) and
// summed by the table or index each record changed: where the WAL bytes per delivery come from.
import pg from 'pg';

export interface DatabaseWork {
  statements: number;
  walBytes: number;
  cpuSeconds: number;
  /** The statements executed most often: where the statements per delivery, and their time, come from. */
  mostCalled: CalledStatement[];
  /** The WAL by relation, largest first (only when asked for): where the WAL bytes per delivery come from. */
  walByRelation: WalOfRelation[];
}

/** One statement as pg_stat_statements sums it over the run. */
export interface CalledStatement {
  calls: number;
  /** Milliseconds spent planning it, and executing it, over all its calls. */
  planMs: number;
  execMs: number;
  query: string;
}

/** The WAL records that changed one relation (or, for `relation` "(no relation)", none: commits and the like). */
export interface WalOfRelation {
  relation: string;
  records: number;
  /** Record bytes, full-page images included. */
  bytes: number;
  /** Of which full-page images: a page's first change after a checkpoint writes the whole page. */
  fullPageBytes: number;
}

const MOST_CALLED = 16;

/** This file's own statements, left out of the count. */
const OWN = `query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%pg_current_wal_lsn%'`;

/**
 * Starts counting on the database at `url` (its cluster must load pg_stat_statements); the function it resolves
 * with stops and reads the counts.
 */
export async function countDatabaseWork(
  url: string,
  cpuSeconds: () => number,
  { walByRelation = false }: { walByRelation?: boolean } = {},
): Promise<() => Promise<DatabaseWork>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  if (walByRelation) await client.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  await client.query('SELECT pg_stat_statements_reset()');
  const start = (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0]!.lsn;
  const cpuBefore = cpuSeconds();
  return async () => {
    const cpu = cpuSeconds() - cpuBefore;
    try {
      const end = (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0]!.lsn;
      const wal = await client.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($2, $1) AS bytes', [start, end]);
      const calls = await client.query<{ n: string }>(
        `SELECT coalesce(sum(calls), 0) AS n FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ${OWN}`,
      );
      const most = await client.query<{ calls: string; plan_ms: number; exec_ms: number; query: string }>(
        `SELECT calls, total_plan_time AS plan_ms, total_exec_time AS exec_ms,
                regexp_replace(query, '\\s+', ' ', 'g') AS query FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ${OWN}
          ORDER BY calls DESC LIMIT ${MOST_CALLED}`,
      );
      return {
        statements: Number(calls.rows[0]!.n),
        walBytes: Number(wal.rows[0]!.bytes),
        cpuSeconds: cpu,
        mostCalled: most.rows.map((row) => ({
          calls: Number(row.calls),
          planMs: row.plan_ms,
          execMs: row.exec_ms,
          query: row.query,
        })),
        walByRelation: walByRelation ? await readWalByRelation(client, start, end) : [],
      };
    } finally {
      await client.end();
    }
  };
}

/**
 * Each WAL record between two positions, summed by the relation of its first block reference (PostgreSQL 15's
 * pg_get_wal_records_info names it as "rel tablespace/database/relfilenode"), named from pg_class.
 */
async function readWalByRelation(client: pg.Client, start: string, end: string): Promise<WalOfRelation[]> {
  const rows = await client.query<{ relation: string; records: string; bytes: string; fpi: string }>(
    `WITH wal AS (
       SELECT substring(block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)')::oid AS node, record_length, fpi_length
         FROM pg_get_wal_records_info($1, $2))
     SELECT coalesce(c.relname, CASE WHEN wal.node IS NULL THEN '(no relation)' ELSE 'relfilenode ' || wal.node END)
              AS relation,
            count(*) AS records, sum(record_length) AS bytes, sum(fpi_length) AS fpi
       FROM wal LEFT JOIN pg_class c ON c.relfilenode = wal.node
      GROUP BY 1 ORDER BY sum(record_length) DESC`,
    [start, end],
  );
  return rows.rows.map((row) => ({
    relation: row.relation,
    records: Number(row.records),
    bytes: Number(row.bytes),
    fullPageBytes: Number(row.fpi),
  }));
}
