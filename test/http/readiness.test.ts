// Liveness, readiness and storage failures: a full disk, a read-only or corrupt database answers 503 with
// Retry-After (not 500), /readyz says why, and the log gets one line per interval with a count.
import Database from 'better-sqlite3';
import { createManualClock } from '../../service/src/core/clock';
import {
  createStorageHealth,
  STORAGE_FAILURE_LOG_INTERVAL_MS,
  STORAGE_FAILURE_MEMORY_MS,
} from '../../service/src/observability/storage-failures';
import { storageFailureReason } from '../../service/src/store/storage-failure';
import { createReadinessProbe } from '../../service/src/store/sqlite/readiness-probe';
import { type Harness, startHarness, webhooksPath } from '../support/harness';
import { useTempDatabase } from '../support/temp-database';
import { ingest } from '../support/events';
import { waitFor } from '../support/wait';

const ALLOW_PRIVATE_URLS_WARNING =
  'JOBHOOKS_ALLOW_PRIVATE_URLS is on: webhooks may point at loopback, private and link-local addresses, which is meant for local development and tests, not production.';

const sqliteError = (code: string, message: string) => new Database.SqliteError(message, code);

test.each([
  ['SQLITE_FULL', 'the disk is full'],
  ['SQLITE_READONLY', 'the database is read-only'],
  ['SQLITE_READONLY_DBMOVED', 'the database is read-only'],
  ['SQLITE_CORRUPT', 'the database file is corrupt'],
  ['SQLITE_NOTADB', 'the database file is corrupt'],
  ['SQLITE_IOERR_WRITE', 'the database file cannot be read or written (I/O error)'],
  ['SQLITE_CONSTRAINT_UNIQUE', null],
])('a %s error is a storage failure: %s', (code, reason) => {
  expect(storageFailureReason(sqliteError(code, 'x'))).toBe(reason);
});

const codedError = (code: string) => Object.assign(new Error('x'), { code });

test.each([
  ['08006', 'the database server cannot be reached'],
  ['57P01', 'the database server cannot be reached'],
  ['ECONNREFUSED', 'the database server cannot be reached'],
  ['53100', 'the disk is full'],
  ['53300', 'the database server has no connection left'],
  ['25006', 'the database is read-only'],
  ['23505', null],
  ['42P01', null],
])('a PostgreSQL %s error is a storage failure: %s', (code, reason) => {
  expect(storageFailureReason(codedError(code))).toBe(reason);
});

test("pg's broken-connection errors, which carry no code, are storage failures", () => {
  expect(storageFailureReason(new Error('Connection terminated unexpectedly'))).toBe(
    'the database server cannot be reached',
  );
  expect(storageFailureReason(new Error('Connection terminated due to connection timeout'))).toBe(
    'the database server cannot be reached',
  );
  expect(storageFailureReason(new Error('something else'))).toBeNull();
});

test('a storage failure is logged once per interval with the count of the others, and remembered for a while', () => {
  const clock = createManualClock();
  const health = createStorageHealth(() => Number(clock.nowNanos() / 1_000_000n));
  const full = { reason: 'the disk is full', detail: 'database or disk is full' };
  expect(health.note(full)).toBe('storage failure: the disk is full (database or disk is full)');
  for (let i = 0; i < 999; i += 1) expect(health.note(full)).toBeNull();
  expect(
    health.note({ reason: 'the database is read-only', detail: 'attempt to write a readonly database' }),
  ).not.toBeNull();
  clock.advanceMillis(STORAGE_FAILURE_LOG_INTERVAL_MS);
  expect(health.note(full)).toBe(
    'storage failure: the disk is full (database or disk is full); 999 more since the last report',
  );
  expect(health.recentFailure()).toMatchObject({ reason: 'the disk is full' });
  clock.advanceMillis(STORAGE_FAILURE_MEMORY_MS);
  expect(health.recentFailure()).toBeNull();
});

describe('the readiness probe on a real SQLite file', () => {
  const temp = useTempDatabase('readiness');

  test('passes, and fails with the database error when it cannot write', () => {
    const probe = createReadinessProbe(temp.db, () => 1);
    expect(() => probe()).not.toThrow();
    expect(temp.db.prepare('SELECT checked_at FROM readiness_probe').get()).toEqual({ checked_at: 1 });
    temp.db.pragma('query_only = ON');
    expect(() => probe()).toThrow(expect.objectContaining({ code: 'SQLITE_READONLY' }));
  });
});

describe('through the API', () => {
  let h: Harness;
  beforeEach(async () => {
    // Every protection on, so /readyz has no warning to add.
    h = await startHarness({ env: { JOBHOOKS_ALLOW_PRIVATE_URLS: '0' } });
  });
  afterEach(async () => {
    await h.close();
  });

  test('a full disk answers 503 with Retry-After, and /readyz says why until it has passed', async () => {
    expect((await h.call('GET', '/readyz', { token: null })).json()).toEqual({ status: 'ready' });
    const full = jest
      .spyOn(h.service.store.webhooks, 'list')
      .mockRejectedValue(sqliteError('SQLITE_FULL', 'database or disk is full'));
    const refused = await h.call('GET', webhooksPath());
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.json()).toMatchObject({
      data: null,
      status: {
        code: 503,
        developer_message: 'storage_unavailable',
        user_message: 'The service cannot read or store data right now (the disk is full); try again later.',
      },
    });
    const ready = await h.call('GET', '/readyz', { token: null });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: 'unavailable', reason: 'the disk is full' });
    full.mockRestore();
  });

  test('/readyz answers 503 when the database cannot be written, with the reason', async () => {
    jest
      .spyOn(h.service.store, 'checkReadiness')
      .mockRejectedValue(sqliteError('SQLITE_READONLY', 'attempt to write a readonly database'));
    const ready = await h.call('GET', '/readyz', { token: null });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: 'unavailable', reason: 'the database is read-only' });
    expect((await h.call('GET', '/healthz', { token: null })).statusCode).toBe(200);
  });
});

test('a storage failure in the delivery pipeline also makes /readyz answer 503 with the reason', async () => {
  const h = await startHarness();
  try {
    await h.call('POST', webhooksPath(), {
      body: { name: 'x', client_url: 'http://127.0.0.1:9/x', event_types: ['job.run.completed'] },
    });
    jest
      .spyOn(h.service.store.deliveries, 'claimDue')
      .mockRejectedValue(sqliteError('SQLITE_FULL', 'database or disk is full'));
    await ingest(h, 'job.run.completed');
    await waitFor(
      async () => (await h.call('GET', '/readyz', { token: null })).statusCode === 503,
      '/readyz to answer 503',
    );
    expect((await h.call('GET', '/readyz', { token: null })).json()).toEqual({
      status: 'unavailable',
      reason: 'the disk is full',
      warnings: [ALLOW_PRIVATE_URLS_WARNING],
    });
  } finally {
    await h.close();
  }
});

test('/readyz lists the protections the configuration turns off, ready or not', async () => {
  const h = await startHarness({ env: { JOBHOOKS_ALLOW_PRIVATE_URLS: '1' } });
  try {
    const ready = await h.call('GET', '/readyz', { token: null });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', warnings: [ALLOW_PRIVATE_URLS_WARNING] });
    jest
      .spyOn(h.service.store, 'checkReadiness')
      .mockRejectedValue(sqliteError('SQLITE_READONLY', 'attempt to write a readonly database'));
    expect((await h.call('GET', '/readyz', { token: null })).json()).toEqual({
      status: 'unavailable',
      reason: 'the database is read-only',
      warnings: [ALLOW_PRIVATE_URLS_WARNING],
    });
  } finally {
    await h.close();
  }
});
