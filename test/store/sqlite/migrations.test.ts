// Versioned migrations: a database made by an older build opens in a newer one with its data; a newer one is refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, schemaVersion } from '../../../service/src/store/sqlite/database';
import type { Migration } from '../../../service/src/store/rows';
import { MIGRATIONS } from '../../../service/src/store/sqlite/migrations';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-migrations-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const NEXT: Migration = {
  version: MIGRATIONS.length + 1,
  description: 'a later build adds a column',
  sql: "ALTER TABLE accounts ADD COLUMN region TEXT NOT NULL DEFAULT 'eu'",
};

test('a fresh database gets every migration, WAL mode, foreign keys, a 32 MiB page cache and in-memory temp storage', () => {
  const db = openDatabase(join(dir, 'a.db'));
  expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
  expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
  expect(db.pragma('cache_size', { simple: true })).toBe(-32 * 1024);
  expect(db.pragma('temp_store', { simple: true })).toBe(2); // MEMORY
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
  expect(tables).toEqual(
    expect.arrayContaining([
      'accounts',
      'api_tokens',
      'webhooks',
      'events',
      'deliveries',
      'delivery_attempts',
      'idempotency_keys',
    ]),
  );
  db.close();
});

test('a database made by an older build opens in a newer one and keeps its rows', () => {
  const path = join(dir, 'b.db');
  const old = openDatabase(path, MIGRATIONS);
  old
    .prepare("INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES (1, 'act_x', 'A', 'enterprise', 1)")
    .run();
  old.close();
  const upgraded = openDatabase(path, [...MIGRATIONS, NEXT]);
  expect(schemaVersion(upgraded)).toBe(NEXT.version);
  expect(upgraded.prepare('SELECT id, region FROM accounts').all()).toEqual([{ id: 1, region: 'eu' }]);
  upgraded.close();
});

test('opening twice applies nothing twice', () => {
  const path = join(dir, 'c.db');
  openDatabase(path, [...MIGRATIONS, NEXT]).close();
  const again = openDatabase(path, [...MIGRATIONS, NEXT]);
  expect(schemaVersion(again)).toBe(NEXT.version);
  again.close();
});

test('a database from a newer build is refused with a message saying to upgrade', () => {
  const path = join(dir, 'd.db');
  openDatabase(path, [...MIGRATIONS, NEXT]).close();
  expect(() => openDatabase(path, MIGRATIONS)).toThrow(/newer than this build knows.*Upgrade jobhooks/);
});

test('a failing migration leaves the database at the previous version', () => {
  const path = join(dir, 'e.db');
  const broken: Migration = {
    version: NEXT.version,
    description: 'broken',
    sql: 'CREATE TABLE t (x); SELECT nonsense FROM nowhere;',
  };
  expect(() => openDatabase(path, [...MIGRATIONS, broken])).toThrow();
  const db = openDatabase(path, MIGRATIONS);
  expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
  expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 't'").pluck().get()).toBe(0);
  db.close();
});

test('commits reach the disk at every commit by default (synchronous FULL), or at checkpoints when asked (NORMAL)', () => {
  const full = openDatabase(join(dir, 'full.db'));
  const normal = openDatabase(join(dir, 'normal.db'), MIGRATIONS, 'normal');
  try {
    expect(full.pragma('synchronous', { simple: true })).toBe(2);
    expect(normal.pragma('synchronous', { simple: true })).toBe(1);
  } finally {
    full.close();
    normal.close();
  }
});

test('migration 9 renames subscriptions to webhooks with their rows, and the cascades still hold', () => {
  const path = join(dir, 'f.db');
  const before = openDatabase(
    path,
    MIGRATIONS.filter((migration) => migration.version < 9),
  );
  before.exec(`
    INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES (1, 'act_x', 'A', 'enterprise', 1);
    INSERT INTO subscriptions (id, account_id, name, description, client_url, event_types, job_ids, active, sealed_secret,
      created_at, updated_at) VALUES ('wsu_a', 1, 'hook', '', 'http://127.0.0.1/', '[]', '[]', 1, 'sealed', 1, 1);
    INSERT INTO events (id, account_id, event_type, run_id, job_id, created_at) VALUES ('wev_a', 1, 'job.run.completed', '7', '1', 1);
    INSERT INTO deliveries (id, event_id, subscription_id, state, payload, next_attempt_at, created_at, updated_at)
      VALUES ('wdl_a', 'wev_a', 'wsu_a', 'pending', x'7b7d', 1, 1, 1);
    INSERT INTO delivery_attempts (delivery_id, subscription_id, event_id, event_type, attempt, requested_at, duration_ms,
      status_code, success) VALUES ('wdl_a', 'wsu_a', 'wev_a', 'job.run.completed', 1, 1, 5, '500', 0);
    INSERT INTO idempotency_keys (account_id, key, request_hash, subscription_id, created_at) VALUES (1, 'k', 'h', 'wsu_a', 1);
  `);
  before.close();
  const after = openDatabase(path, MIGRATIONS);
  expect(after.prepare('SELECT id, name FROM webhooks').all()).toEqual([{ id: 'wsu_a', name: 'hook' }]);
  expect(after.prepare('SELECT webhook_id FROM deliveries').pluck().all()).toEqual(['wsu_a']);
  expect(after.prepare('SELECT webhook_id FROM delivery_attempts').pluck().all()).toEqual(['wsu_a']);
  expect(after.prepare('SELECT webhook_id FROM idempotency_keys').pluck().all()).toEqual(['wsu_a']);
  const indexes = after
    .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%subscription%'")
    .pluck()
    .all();
  expect(indexes).toEqual([]);
  after.prepare("DELETE FROM webhooks WHERE id = 'wsu_a'").run();
  expect(after.prepare('SELECT count(*) FROM deliveries').pluck().get()).toBe(0);
  expect(after.prepare('SELECT count(*) FROM delivery_attempts').pluck().get()).toBe(0);
  after.close();
});
