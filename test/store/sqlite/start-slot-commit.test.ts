// A start slot of a rate-limited webhook commits without waiting for the disk, on a database whose other commits
// do (durability full): a synced commit at every request would hold the main thread for the disk each time.
import { commitWithoutSync, type SqliteDatabase } from '../../../service/src/store/sqlite/database';
import { createInProcessEndpointHealth } from '../../../service/src/store/sqlite/endpoint-health';
import { createWebhooksStore } from '../../../service/src/store/sqlite/webhooks';
import { insertAccountWithWebhook, useTempDatabase } from '../../support/temp-database';

const temp = useTempDatabase('start-slot-commit');
const FULL = 2;
const NORMAL = 1;
const level = (db: SqliteDatabase) => db.pragma('synchronous', { simple: true });

test('a commit without sync runs at NORMAL, and the connection is back at FULL afterwards, even after a throw', () => {
  const { db } = temp;
  expect(level(db)).toBe(FULL);
  expect(commitWithoutSync(db, () => level(db))).toBe(NORMAL);
  expect(level(db)).toBe(FULL);
  expect(() =>
    commitWithoutSync(db, () => {
      throw new Error('refused');
    }),
  ).toThrow('refused');
  expect(level(db)).toBe(FULL);
});

test('at durability normal nothing is changed', () => {
  const { db } = temp;
  db.pragma('synchronous = NORMAL');
  const pragma = jest.spyOn(db, 'pragma');
  expect(commitWithoutSync(db, () => 'ran')).toBe('ran');
  expect(pragma.mock.calls.filter(([source]) => source.includes('='))).toEqual([]);
});

test("the SQLite store's start slot is taken in a commit at NORMAL, and kept", async () => {
  const { db } = temp;
  insertAccountWithWebhook(db, 1);
  const store = createWebhooksStore(db, createInProcessEndpointHealth(db));
  const pragma = jest.spyOn(db, 'pragma');
  expect(await store.takeStartSlot('wsu_a', 1_000, 200_000)).toMatchObject({ granted: true, nextAt: 201_000 });
  expect(pragma.mock.calls.map(([source]) => source)).toEqual(['synchronous', 'synchronous = 1', 'synchronous = 2']);
  pragma.mockRestore();
  expect(db.prepare('SELECT rate_next_at AS nextAt FROM webhooks').get()).toEqual({ nextAt: 201_000 });
  expect(level(db)).toBe(FULL);
});
