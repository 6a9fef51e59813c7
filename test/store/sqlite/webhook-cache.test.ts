// Webhooks read by id are kept in memory, and no write leaves one stale: this connection's at once, another's from 1 ms
// on.
import { openDatabase, type SqliteDatabase } from '../../../service/src/store/sqlite/database';
import { LOOK_REUSE_MS, observeOtherConnections } from '../../../service/src/store/sqlite/other-connections';
import { createWebhookCache } from '../../../service/src/store/sqlite/webhook-cache';
import { createWebhooksStore } from '../../../service/src/store/sqlite/webhooks';
import { createInProcessEndpointHealth } from '../../../service/src/store/sqlite/endpoint-health';
import type { WebhookRecord } from '../../../service/src/domain/webhook';
import type { WebhooksStore } from '../../../service/src/store/store';
import { insertAccountWithWebhook, useTempDatabase } from '../../support/temp-database';

const temp = useTempDatabase('webhook-cache');
let db: SqliteDatabase;
let store: WebhooksStore;
beforeEach(() => {
  db = temp.db;
  insertAccountWithWebhook(db, 1);
  db.prepare(
    "INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES (2, 'act_2', 'B', 'enterprise', 0)",
  ).run();
  store = createWebhooksStore(db, createInProcessEndpointHealth(db));
});

const nameOf = async (accountId = 1) => (await store.get(accountId, 'wsu_a'))?.name ?? null;

test('a webhook read again is answered from memory, not from SQLite', () => {
  const record = { id: 'wsu_a', accountId: 1, name: 'kept' } as WebhookRecord;
  const read = jest.fn(() => record);
  const cache = createWebhookCache(db, read);
  expect(cache.get(1, 'wsu_a')?.name).toBe('kept');
  expect(cache.get(1, 'wsu_a')?.name).toBe('kept');
  expect(read).toHaveBeenCalledTimes(1);
});

test('an id that does not exist is read each time, so unknown ids cannot fill the memory', () => {
  const read = jest.fn(() => null);
  const cache = createWebhookCache(db, read);
  expect(cache.get(1, 'wsu_none')).toBeNull();
  expect(cache.get(1, 'wsu_none')).toBeNull();
  expect(read).toHaveBeenCalledTimes(2);
});

test('any UPDATE of this connection is seen by the next read, whatever statement made it', async () => {
  expect(await nameOf()).toBe('before');
  // Not through the store: the dispatcher's result writes and any future write path are statements like this.
  db.prepare("UPDATE webhooks SET name = 'after', http_status_code = '500' WHERE id = 'wsu_a'").run();
  const record = await store.get(1, 'wsu_a');
  expect(record).toMatchObject({ name: 'after', httpStatusCode: '500' });
});

test('a delete is seen by the next read', async () => {
  expect(await nameOf()).toBe('before');
  expect(await store.delete(1, 'wsu_a')).toBe(true);
  expect(await store.get(1, 'wsu_a')).toBeNull();
});

test('a commit of another connection (another process on the same file) is seen by the next read 1 ms after it', async () => {
  let nowMs = 0;
  const watched = createWebhooksStore(
    db,
    createInProcessEndpointHealth(db),
    observeOtherConnections(db, () => nowMs),
  );
  expect((await watched.get(1, 'wsu_a'))?.name).toBe('before');
  const other = openDatabase(temp.path);
  try {
    other.prepare("UPDATE webhooks SET name = 'changed elsewhere' WHERE id = 'wsu_a'").run();
  } finally {
    other.close();
  }
  nowMs += LOOK_REUSE_MS;
  expect((await watched.get(1, 'wsu_a'))?.name).toBe('changed elsewhere');
});

test('a change rolled back is not kept, even when it was read inside its transaction', async () => {
  expect(await nameOf()).toBe('before');
  let readInside: Promise<string | null> = Promise.resolve(null);
  const rolledBack = db.transaction(() => {
    db.prepare("UPDATE webhooks SET name = 'uncommitted' WHERE id = 'wsu_a'").run();
    readInside = nameOf();
    throw new Error('roll back');
  });
  expect(() => rolledBack()).toThrow('roll back');
  expect(await readInside).toBe('uncommitted');
  expect(await nameOf()).toBe('before');
});

test("another account's webhook is not found, also once it is in memory", async () => {
  expect(await nameOf(1)).toBe('before');
  expect(await nameOf(2)).toBeNull();
});

test('a kept webhook cannot be changed by the caller it was handed to', async () => {
  const record = (await store.get(1, 'wsu_a'))!;
  expect(() => {
    (record as { name: string }).name = 'mutated';
  }).toThrow(TypeError);
  expect(() => record.eventTypes.push('job.run.started')).toThrow(TypeError);
  expect(await nameOf()).toBe('before');
});

test('two caches on one connection are each kept up to date', async () => {
  const second = createWebhooksStore(db, createInProcessEndpointHealth(db));
  expect(await nameOf()).toBe('before');
  expect((await second.get(1, 'wsu_a'))?.name).toBe('before');
  db.prepare("UPDATE webhooks SET name = 'after' WHERE id = 'wsu_a'").run();
  expect(await nameOf()).toBe('after');
  expect((await second.get(1, 'wsu_a'))?.name).toBe('after');
});
