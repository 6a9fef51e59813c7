// Group commit: the writes asked for in one event-loop turn share one transaction. Concurrent ingestions then
// pay for one commit, and write each index page they all touch once, instead of once each. A write's promise
// settles only after its transaction committed, so an acknowledged write is as durable as before.
import { createTurnBatch } from '../core/turn-batch';
import type { SqliteDatabase } from './database';

interface Queued<A extends unknown[], R> {
  args: A;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * `beginTransaction` runs at the start of each transaction, before its writes: a write may keep what it read
 * for the others of the same transaction (nothing else writes in between), and forget it here.
 */
export function createGroupCommit<A extends unknown[], R>(
  db: SqliteDatabase,
  write: (...args: A) => R,
  beginTransaction: () => void = () => undefined,
): (...args: A) => Promise<R> {
  const together = db.transaction((batch: Array<Queued<A, R>>) => {
    beginTransaction();
    return batch.map((queued) => write(...queued.args));
  });
  const alone = db.transaction((args: A) => {
    beginTransaction();
    return write(...args);
  });

  function settleAlone(queued: Queued<A, R>): void {
    try {
      queued.resolve(alone.immediate(queued.args));
    } catch (error) {
      queued.reject(error);
    }
  }

  function flush(batch: Array<Queued<A, R>>): void {
    let results: R[];
    try {
      // IMMEDIATE: each write's reads (a duplicate check, say) see every committed write before it.
      results = together.immediate(batch);
    } catch {
      // One write failed and took the batch back with it: each is written on its own, so only that one fails.
      for (const queued of batch) settleAlone(queued);
      return;
    }
    batch.forEach((queued, i) => queued.resolve(results[i]!));
  }

  const queue = createTurnBatch(flush);
  return (...args) => new Promise<R>((resolve, reject) => queue.add({ args, resolve, reject }));
}
