// Group commit: the writes asked for in one event-loop turn share one transaction. Concurrent ingestions then
// pay for one commit, and write each index page they all touch once, instead of once each. A write's promise
// settles only after its transaction committed, so an acknowledged write is as durable as before.
import { createTurnBatch } from '../../core/turn-batch';
import type { SqliteDatabase } from './database';
import { settleEach, type Waiting, writeTogetherOrApart } from '../write-apart';

interface Queued<A extends unknown[], R> extends Waiting<R> {
  args: A;
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
  const together = db.transaction((batch: ReadonlyArray<Queued<A, R>>) => {
    beginTransaction();
    return batch.map((queued) => write(...queued.args));
  });

  // IMMEDIATE: each write's reads (a duplicate check, say) see every committed write before it. One write that
  // fails takes the batch back with it: each is then written on its own, so only that one fails (write-apart.ts).
  const flush = async (batch: Array<Queued<A, R>>): Promise<void> =>
    settleEach(batch, await writeTogetherOrApart(batch, async (queued) => together.immediate(queued)));

  const queue = createTurnBatch(flush);
  return (...args) => new Promise<R>((resolve, reject) => queue.add({ args, resolve, reject }));
}
