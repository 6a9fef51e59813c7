// Batched writes written apart when the database refuses the batch: one refused item fails alone, the others
// are written, an item refused alone is written once more as `instead` gives it, and a database in trouble fails
// the batch at once instead of being tried again row by row.
import { settleEach, valuesOrThrow, writeTogetherOrApart } from '../../service/src/store/write-apart';

/** Stands for a database: refuses any transaction that holds a "bad" item, records what it commits. */
function fakeDatabase(
  refusal: (items: readonly string[]) => Error | null = (items) =>
    items.some((item) => item.startsWith('bad')) ? Object.assign(new Error('refused'), { code: '22021' }) : null,
) {
  const committed: string[][] = [];
  const tried: string[][] = [];
  const write = async (items: readonly string[]) => {
    tried.push([...items]);
    const error = refusal(items);
    if (error !== null) throw error;
    committed.push([...items]);
    return items.map((item) => `id:${item}`);
  };
  return { write, committed, tried };
}

const outage = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

test('a batch the database takes is one write', async () => {
  const db = fakeDatabase();
  const written = await writeTogetherOrApart(['a', 'b', 'c'], db.write);
  expect(valuesOrThrow(written)).toEqual(['id:a', 'id:b', 'id:c']);
  expect(db.tried).toEqual([['a', 'b', 'c']]);
});

test('one refused item fails alone, in order, and every other item is written', async () => {
  const db = fakeDatabase();
  const written = await writeTogetherOrApart(['a', 'bad', 'c'], db.write);
  expect(written.map((w) => w.ok)).toEqual([true, false, true]);
  expect(db.committed).toEqual([['a'], ['c']]);
  expect(db.tried).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  expect(() => valuesOrThrow(written)).toThrow('refused');
});

test('an item refused alone is written once more as `instead` makes it', async () => {
  const db = fakeDatabase();
  const written = await writeTogetherOrApart(['a', 'bad-answer'], db.write, (item) => item.replace('bad-', ''));
  expect(valuesOrThrow(written)).toEqual(['id:a', 'id:answer']);
  expect(db.committed).toEqual([['a'], ['answer']]);
});

test('a batch of one refused item goes straight to `instead`; a second refusal is the answer', async () => {
  const db = fakeDatabase();
  const written = await writeTogetherOrApart(['bad-1'], db.write, () => 'bad-2');
  expect(db.tried).toEqual([['bad-1'], ['bad-2']]);
  expect(written).toEqual([{ ok: false, error: expect.objectContaining({ message: 'refused' }) }]);
});

test.each([
  ['an unreachable server', 'ECONNREFUSED'],
  ['a statement timeout', '57014'],
  ['a deadlock', '40P01'],
  ['SQLite out of memory', 'SQLITE_NOMEM'],
])('%s is the database’s state, not a row’s: the batch fails at once, nothing tried again', async (_what, code) => {
  const db = fakeDatabase(() => Object.assign(new Error(code), { code }));
  const written = await writeTogetherOrApart(['a', 'b', 'c'], db.write, (item) => item);
  expect(written.every((w) => !w.ok)).toBe(true);
  expect(db.tried).toEqual([['a', 'b', 'c']]);
});

test.each([
  ['a PostgreSQL data exception (NUL in text)', '22021'],
  ['a PostgreSQL constraint', '23505'],
  ['a PostgreSQL trigger refusal', 'P0001'],
  ['a SQLite trigger refusal', 'SQLITE_CONSTRAINT_TRIGGER'],
  ['a SQLite value too big', 'SQLITE_TOOBIG'],
])('%s is a row’s fault: the batch is written apart', async (_what, code) => {
  const db = fakeDatabase((items) => (items.includes('bad') ? Object.assign(new Error(code), { code }) : null));
  const written = await writeTogetherOrApart(['a', 'bad', 'c'], db.write);
  expect(written.map((w) => w.ok)).toEqual([true, false, true]);
});

test('a database in trouble fails the whole batch at once, nothing tried again', async () => {
  const db = fakeDatabase(() => outage());
  const written = await writeTogetherOrApart(['a', 'b', 'c'], db.write, (item) => item);
  expect(written.every((w) => !w.ok)).toBe(true);
  expect(db.tried).toEqual([['a', 'b', 'c']]);
});

test('a database that fails while items are written apart fails the rest without trying them', async () => {
  let calls = 0;
  const db = fakeDatabase((items) => {
    calls += 1;
    if (calls === 1) return new Error('refused');
    return calls === 3 ? outage() : null;
  });
  const written = await writeTogetherOrApart(['a', 'b', 'c', 'd'], db.write, (item) => item);
  expect(written.map((w) => w.ok)).toEqual([true, false, false, false]);
  expect(db.tried).toEqual([['a', 'b', 'c', 'd'], ['a'], ['b']]);
});

test('settleEach resolves and rejects each waiting caller with its own item', async () => {
  const outcomes: string[] = [];
  const waiting = ['a', 'b'].map((name) => ({
    resolve: (value: string) => outcomes.push(`${name} resolved ${value}`),
    reject: (error: unknown) => outcomes.push(`${name} rejected ${(error as Error).message}`),
  }));
  settleEach(waiting, [
    { ok: true, value: 'id:a' },
    { ok: false, error: new Error('refused') },
  ]);
  expect(outcomes).toEqual(['a resolved id:a', 'b rejected refused']);
});
