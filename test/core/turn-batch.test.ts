// The per-turn batch: what one event-loop turn adds is flushed once, in order, and flushed() waits for it.
import { createTurnBatch } from '../../service/src/core/turn-batch';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('the items added in one turn are flushed together, once, at the end of the turn', async () => {
  const flushes: number[][] = [];
  const batch = createTurnBatch<number>((items) => void flushes.push(items));
  batch.add(1);
  batch.add(2);
  batch.add(3);
  expect(flushes).toEqual([]);
  await nextTurn();
  batch.add(4);
  await nextTurn();
  expect(flushes).toEqual([[1, 2, 3], [4]]);
});

test('flushed() waits for an async flush of the items added so far, and is settled at once when none waits', async () => {
  const written: number[] = [];
  let finish: () => void = () => undefined;
  const batch = createTurnBatch<number>(async (items) => {
    await new Promise<void>((resolve) => {
      finish = resolve;
    });
    written.push(...items);
  });
  await expect(batch.flushed()).resolves.toBeUndefined();
  batch.add(7);
  let settled = false;
  const waiting = batch.flushed().then(() => {
    settled = true;
  });
  await nextTurn();
  expect(settled).toBe(false);
  finish();
  await waiting;
  expect(written).toEqual([7]);
});

test('a failed flush rejects the flushed() of its own batch only, and the next batch goes on', async () => {
  let fail = true;
  const batch = createTurnBatch<string>(async (items) => {
    if (fail) throw new Error(`could not write ${items.join(',')}`);
  });
  batch.add('a');
  const first = batch.flushed();
  await expect(first).rejects.toThrow('could not write a');
  fail = false;
  batch.add('b');
  await expect(batch.flushed()).resolves.toBeUndefined();
});

test('a microtask defer flushes before the turn ends', async () => {
  const flushes: string[][] = [];
  const batch = createTurnBatch<string>((items) => void flushes.push(items), queueMicrotask);
  batch.add('x');
  batch.add('y');
  await Promise.resolve();
  expect(flushes).toEqual([['x', 'y']]);
});
