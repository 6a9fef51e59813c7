// Tells whether another connection (the `jobhooks` CLI, another process on the same file) committed since the
// last look. SQLite bumps PRAGMA data_version on every such commit, never on this connection's own, so a cache
// of rows this connection read can be dropped exactly when someone else may have changed them.
import type { Millis } from '../../core/time';
import type { SqliteDatabase } from './database';

/**
 * How long one read of data_version answers for. The read takes and releases a WAL read lock (two `fcntl`
 * system calls), and every API request made two of them (its token, then its webhook), a large part of a GET's
 * cost (docs/performance.md#measurements-behind-choices-in-the-code). Shared for 1 ms, a request makes at most one,
 * and a busy service one per millisecond.
 * The price: another process's commit is seen by requests arriving from 1 ms after it, not at once; a
 * `jobhooks token revoke` takes longer than that just to exit.
 */
export const LOOK_REUSE_MS: Millis = 1;

export interface OtherConnections {
  /** A new check with its own last look: true when another connection committed since its previous answer (and the first time). */
  newCheck(): () => boolean;
}

/** `now` is a monotonic clock in milliseconds; tests pass their own. */
export function observeOtherConnections(
  db: SqliteDatabase,
  now: () => number = () => performance.now(),
): OtherConnections {
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  let version = -1;
  let lookedAt = -Infinity;
  function currentVersion(): number {
    const at = now();
    if (at - lookedAt >= LOOK_REUSE_MS) {
      version = dataVersion.get()!;
      lookedAt = at;
    }
    return version;
  }
  return {
    newCheck() {
      let seen = -1;
      return () => {
        const current = currentVersion();
        if (current === seen) return false;
        seen = current;
        return true;
      };
    },
  };
}
