// Every batched write of the store goes through here: the items of a batch are written in one transaction and,
// when the database refuses that transaction, again one at a time, so an item the database cannot take (a value
// it refuses, one row a bug got wrong) fails alone instead of taking the rest of the batch with it. Items from
// many callers share a batch (group commit), so without this one caller's bad row would fail every other one's.
import { isRowProblem } from './storage-failure';

/** How one item of a batch fared. */
export type Written<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * What to write in place of an item the database refused even alone (the same fact without what it could not
 * take), or null when there is nothing else to try.
 */
export type Instead<T> = (item: T, error: unknown) => T | null;

const failed = <R>(error: unknown): Written<R> => ({ ok: false, error });

/**
 * Writes `items` with `write` (one transaction that returns one value per item, in order), then, if the database
 * refused what a row holds (storage-failure.ts, isRowProblem), each item on its own, in order (a later item may
 * build on an earlier one's row). An item refused alone is written once more as `instead` gives it. Any other
 * failure (the database in trouble, a timeout, a deadlock) is no item's fault: the items not yet written fail with
 * it, instead of each trying again.
 */
export async function writeTogetherOrApart<T, R>(
  items: readonly T[],
  write: (items: readonly T[]) => Promise<R[]>,
  instead: Instead<T> = () => null,
): Promise<Array<Written<R>>> {
  const attempt = async (item: T): Promise<Written<R>> => {
    try {
      return { ok: true, value: (await write([item]))[0]! };
    } catch (error) {
      return failed(error);
    }
  };
  const alone = async (item: T, togetherError: unknown): Promise<Written<R>> => {
    const first = items.length === 1 ? failed<R>(togetherError) : await attempt(item);
    if (first.ok || !isRowProblem(first.error)) return first;
    const other = instead(item, first.error);
    return other === null ? first : attempt(other);
  };

  try {
    return (await write(items)).map((value) => ({ ok: true, value }));
  } catch (error) {
    if (!isRowProblem(error)) return items.map(() => failed(error));
    const written: Array<Written<R>> = [];
    // Once a failure that is not a row's (isRowProblem) shows up, the rest fail with it, untried.
    let outage: unknown = null;
    for (const item of items) {
      const result = outage === null ? await alone(item, error) : failed<R>(outage);
      if (!result.ok && !isRowProblem(result.error)) outage = result.error;
      written.push(result);
    }
    return written;
  }
}

/** A caller waiting for its write, as the batched writers queue it. */
export interface Waiting<R> {
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/** Settles each waiting caller with how its own item fared. */
export function settleEach<R>(waiting: ReadonlyArray<Waiting<R>>, written: ReadonlyArray<Written<R>>): void {
  waiting.forEach((w, i) => {
    const item = written[i]!;
    if (item.ok) w.resolve(item.value);
    else w.reject(item.error);
  });
}

/** Resolves a caller that wrote several items with their values, or rejects it with the first error among them. */
export function settleAll<R>(waiting: Waiting<R[]>, written: ReadonlyArray<Written<R>>): void {
  try {
    waiting.resolve(valuesOrThrow(written));
  } catch (error) {
    waiting.reject(error);
  }
}

/** The values of a batch written whole; the first error when an item could not be written (the others were). */
export function valuesOrThrow<R>(written: ReadonlyArray<Written<R>>): R[] {
  return written.map((item) => {
    if (!item.ok) throw item.error;
    return item.value;
  });
}
