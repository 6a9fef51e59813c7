// What the database's own errors mean for an operator and a caller: a full disk, a read-only or corrupt file,
// an I/O error, a PostgreSQL server out of reach. The HTTP layer answers them 503 with Retry-After (the request
// may succeed later, and changed nothing), /readyz reports the latest one, and the log gets one line per interval
// with a count, not one per request.
import type { Millis, Seconds } from '../core/time';
import { storageFailureReason } from '../store/storage-failure';

/** How long a storage failure keeps /readyz at 503 after the last time a request hit it. */
export const STORAGE_FAILURE_MEMORY_MS: Millis = 30_000;
/** One log line per kind of failure per interval, however many requests hit it. */
export const STORAGE_FAILURE_LOG_INTERVAL_MS: Millis = 60_000;
/** What a refused caller is told to wait. */
export const STORAGE_RETRY_AFTER_SECONDS: Seconds = 30;

export interface StorageFailure {
  reason: string;
  detail: string;
  atMs: Millis;
}

export interface StorageHealth {
  /** Records a failure; returns the log line to write now (with how many were not logged), or null. */
  note(failure: { reason: string; detail: string }): string | null;
  /**
   * Notes `error` when it is a storage failure (or, given `otherwise`, any error, under that reason), writing the
   * log line through `log` when one is due; resolves to the reason, or null for an error that is not noted.
   */
  noteError(error: unknown, log: (line: string) => void, otherwise?: string): string | null;
  /** The latest failure of the last STORAGE_FAILURE_MEMORY_MS, if any. */
  recentFailure(): StorageFailure | null;
}

export function createStorageHealth(nowMs: () => number): StorageHealth {
  let latest: StorageFailure | null = null;
  const logged = new Map<string, { atMs: Millis; unlogged: number }>();
  const health: StorageHealth = {
    noteError(error, log, otherwise) {
      const reason = storageFailureReason(error) ?? otherwise ?? null;
      if (reason === null) return null;
      const line = health.note({ reason, detail: error instanceof Error ? error.message : String(error) });
      if (line !== null) log(line);
      return reason;
    },
    note({ reason, detail }) {
      const atMs = nowMs();
      latest = { reason, detail, atMs };
      const previous = logged.get(reason);
      if (previous !== undefined && atMs - previous.atMs < STORAGE_FAILURE_LOG_INTERVAL_MS) {
        previous.unlogged += 1;
        return null;
      }
      const repeats = previous?.unlogged ?? 0;
      logged.set(reason, { atMs, unlogged: 0 });
      return `storage failure: ${reason} (${detail})${repeats > 0 ? `; ${repeats} more since the last report` : ''}`;
    },
    recentFailure() {
      return latest !== null && nowMs() - latest.atMs < STORAGE_FAILURE_MEMORY_MS ? latest : null;
    },
  };
  return health;
}
