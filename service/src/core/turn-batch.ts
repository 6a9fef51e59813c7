// Work asked for during one event-loop turn, done once for all of it: the writes of one turn share a
// transaction, the requests of one turn cross to the sender thread in one message, the wake-ups of one turn
// make one claim. Each user used to write this "collect, then flush at the end of the turn" by hand.

/** Runs a callback later: at the end of this turn (setImmediate), or once the current job is done (queueMicrotask). */
export type Defer = (run: () => void) => void;

export const endOfTurn: Defer = (run) => {
  setImmediate(run);
};

export interface TurnBatch<T> {
  /** Adds an item to the next flush; the first item of a batch schedules it. */
  add(item: T): void;
  /** Settles once the flush that takes the items added so far has finished; at once if none is waiting. */
  flushed(): Promise<void>;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * `flush` gets every item added since the last flush, in order. It may be async: `flushed()` then waits for it.
 * A flush that fails rejects only the `flushed()` promises of its batch.
 */
export function createTurnBatch<T>(
  flush: (items: T[]) => void | Promise<void>,
  defer: Defer = endOfTurn,
): TurnBatch<T> {
  let items: T[] = [];
  let scheduled = false;
  let waiters: Waiter[] = [];

  function run(): void {
    const batch = items;
    const waiting = waiters;
    items = [];
    waiters = [];
    scheduled = false;
    let done: void | Promise<void>;
    try {
      done = flush(batch);
    } catch (error) {
      if (waiting.length === 0) throw error;
      for (const waiter of waiting) waiter.reject(error);
      return;
    }
    if (waiting.length === 0) return;
    Promise.resolve(done).then(
      () => waiting.forEach((waiter) => waiter.resolve()),
      (error: unknown) => waiting.forEach((waiter) => waiter.reject(error)),
    );
  }

  return {
    add(item) {
      items.push(item);
      if (scheduled) return;
      scheduled = true;
      defer(run);
    },
    flushed() {
      if (!scheduled) return Promise.resolve();
      return new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
    },
  };
}
