// Tells whether another connection (the `jobhooks` CLI, another process on the same file) committed since the
// last look. SQLite bumps PRAGMA data_version on every such commit, never on this connection's own, so a cache
// of rows this connection read can be dropped exactly when someone else may have changed them.
import type { SqliteDatabase } from './database';

/** Each returned check has its own "last look"; the first call answers true. */
export function watchOtherConnections(db: SqliteDatabase): () => boolean {
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  let seen = -1;
  return () => {
    const version = dataVersion.get()!;
    if (version === seen) return false;
    seen = version;
    return true;
  };
}
