// Group commit: the writes asked for in one event-loop turn share one transaction. Concurrent ingestions then
// pay for one commit, and write each index page they all touch once, instead of once each. A write's promise
// settles only after its transaction committed, so an acknowledged write is as durable as before.
import { createTurnBatch } from '../../core/turn-batch';
import type { SqliteDatabase } from './database';
import { settleEach, type Waiting, writeTogetherOrApart } from '../write-apart';

interface Queued<T, R> extends Waiting<R> {
  item: T;
}

/**
 * `writeBatch` writes the items of one transaction and returns one result per item, in order. It runs IMMEDIATE:
 * its reads (a duplicate check, say) see every committed write before it. A batch that fails is written again
 * item by item, so only the item at fault fails (write-apart.ts).
 */
export function createGroupCommit<T, R>(
  db: SqliteDatabase,
  writeBatch: (items: readonly T[]) => R[],
): (item: T) => Promise<R> {
  const together = db.transaction((items: readonly T[]) => writeBatch(items));
  const flush = async (batch: Array<Queued<T, R>>): Promise<void> =>
    settleEach(
      batch,
      await writeTogetherOrApart(
        batch.map(({ item }) => item),
        async (items) => together.immediate(items),
      ),
    );
  const queue = createTurnBatch(flush);
  return (item) => new Promise<R>((resolve, reject) => queue.add({ item, resolve, reject }));
}
