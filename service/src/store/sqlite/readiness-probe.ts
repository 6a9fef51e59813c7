// The readiness check of a SQLite database: read the tables every request depends on, and write one row, so
// a full disk, a read-only file or an unreadable page fails the check instead of only the next request.
import type Database from 'better-sqlite3';

/** Tables a request cannot do without: sign-in reads the first two, every webhook route the third. */
const READ_TABLES = ['accounts', 'api_tokens', 'webhooks'] as const;

export function createReadinessProbe(db: Database.Database, nowMicros: () => number): () => void {
  const reads = READ_TABLES.map((table) => db.prepare(`SELECT 1 FROM ${table} LIMIT 1`));
  const write = db.prepare(
    'INSERT INTO readiness_probe (id, checked_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at',
  );
  return db.transaction(() => {
    for (const read of reads) read.get();
    write.run(nowMicros());
  });
}
