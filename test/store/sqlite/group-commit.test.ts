// Group commit: writes asked for in one event-loop turn share a transaction, see each other in order, and a
// failing write fails alone.
import Database from 'better-sqlite3';
import type { SqliteDatabase } from '../../../service/src/store/sqlite/database';
import { createGroupCommit } from '../../../service/src/store/sqlite/group-commit';
import { useTempDatabase } from '../../support/temp-database';

const temp = useTempDatabase('group-commit', [
  { version: 1, description: 'a table', sql: 'CREATE TABLE names (name TEXT PRIMARY KEY) STRICT' },
]);
let db: SqliteDatabase;
let path: string;
beforeEach(() => {
  db = temp.db;
  path = temp.path;
});

/** What another connection sees committed. */
function committedNames(): string[] {
  const other = new Database(path, { readonly: true });
  try {
    return other.prepare<[], string>('SELECT name FROM names ORDER BY name').pluck().all();
  } finally {
    other.close();
  }
}

function namesWriter(calls: string[]) {
  const exists = db.prepare<[string], number>('SELECT 1 FROM names WHERE name = ?').pluck();
  const insert = db.prepare('INSERT INTO names (name) VALUES (?)');
  return createGroupCommit(db, (names: readonly string[]) =>
    names.map((name) => {
      calls.push(name);
      if (name === 'bad') throw new Error('a write that fails');
      if (exists.get(name) !== undefined) return 'duplicate';
      insert.run(name);
      return 'written';
    }),
  );
}

test('writes of one turn share a transaction: when one fails the batch goes back, and each is written alone', async () => {
  const calls: string[] = [];
  const write = namesWriter(calls);
  const outcomes = await Promise.allSettled([write('a'), write('bad'), write('c')]);
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('a write that fails'));
  // 'a' ran twice: the failure of 'bad' rolled back the transaction 'a' had written in.
  expect(calls).toEqual(['a', 'bad', 'a', 'bad', 'c']);
  expect(committedNames()).toEqual(['a', 'c']);
});

test('a write sees the writes queued before it in the same batch, and is committed when its promise settles', async () => {
  const write = namesWriter([]);
  const first = write('x');
  const second = write('x');
  expect(committedNames()).toEqual([]);
  expect(await first).toBe('written');
  expect(committedNames()).toEqual(['x']);
  expect(await second).toBe('duplicate');
  expect(await write('x')).toBe('duplicate');
});

test('each transaction gets the whole batch of its turn; a failed batch is written again one item at a time', async () => {
  const batches: string[][] = [];
  const insert = db.prepare('INSERT INTO names (name) VALUES (?)');
  const write = createGroupCommit(db, (names: readonly string[]) => {
    batches.push([...names]);
    return names.map((name) => {
      if (name === 'bad') throw new Error('a write that fails');
      insert.run(name);
    });
  });
  await Promise.all([write('a'), write('b')]);
  expect(batches).toEqual([['a', 'b']]);

  batches.length = 0;
  await Promise.allSettled([write('c'), write('bad')]);
  expect(batches).toEqual([['c', 'bad'], ['c'], ['bad']]);
});
