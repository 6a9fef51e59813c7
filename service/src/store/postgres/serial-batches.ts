// One batch at a time per instance: what is queued while a batch runs waits for it, then goes in the next batch
// together. The PostgreSQL writers use it so that the writes of one moment, which lock the same webhook rows,
// share one transaction and one connection instead of each waiting on the others' locks with a connection of
// its own.

/**
 * Returns the function that queues an item. `run` takes the items of one batch, settles each of them itself
 * (the items carry their promise's resolve and reject) and never rejects.
 */
export function createSerialBatches<T>(run: (batch: T[]) => Promise<void>): (item: T) => void {
  const waiting: T[] = [];
  let running = false;

  async function drain(): Promise<void> {
    running = true;
    while (waiting.length > 0) await run(waiting.splice(0));
    running = false;
  }

  return (item) => {
    waiting.push(item);
    if (!running) void drain();
  };
}
