// The readiness check of a PostgreSQL database: read the tables every request depends on, and write one row, in
// a transaction, so a lost database, a read-only standby or a full disk fails the check instead of only the next
// request.
import type { PgDatabase } from './database';

/** Tables a request cannot do without: sign-in reads the first two, every webhook route the third. */
const READS = ['accounts', 'api_tokens', 'webhooks'].map((table) => `SELECT 1 FROM ${table} LIMIT 1`);
const WRITE_PROBE = `
  INSERT INTO readiness_probe (id, checked_at) VALUES (1, $1)
  ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at`;

export function createPgReadinessProbe(db: PgDatabase, nowMicros: () => number): () => Promise<void> {
  return () =>
    db.transaction(async (client) => {
      for (const read of READS) await client.query(read);
      await client.query(WRITE_PROBE, [nowMicros()]);
    });
}
