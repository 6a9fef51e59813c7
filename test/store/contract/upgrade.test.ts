// An upgrade from the previous release keeps every webhook, secret, pending delivery and log row: a database at
// the schema of the release before is filled with rows, then opened by this build, which migrates it, on either
// backend.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Migration } from '../../../service/src/store/rows';
import { openPool } from '../../../service/src/store/postgres/database';
import { migratePostgres } from '../../../service/src/store/postgres/migrate';
import { PG_MIGRATIONS } from '../../../service/src/store/postgres/migrations';
import { openDatabase } from '../../../service/src/store/sqlite/database';
import { MIGRATIONS } from '../../../service/src/store/sqlite/migrations';
import { createTestDatabase } from '../../support/postgres';
import { openTestStore, type TestStore } from '../../support/stores';
import { backend, claimAll, event, SECOND, T0 } from './fixtures';

type Run = (sql: string, values: unknown[]) => Promise<void>;

/** The schema versions of the release before this one, 0.1.0, on each backend. */
const PREVIOUS_RELEASE = { sqlite: 12, postgres: 5 };

/** A database at the previous release's schema, filled by `fill`; resolves with where it is. */
async function previousRelease(fill: (run: Run, flag: (on: boolean) => unknown) => Promise<void>): Promise<string> {
  const previous = (all: readonly Migration[]) => all.filter((m) => m.version <= PREVIOUS_RELEASE[backend]);
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'jobhooks-upgrade-'));
    folders.push(dir);
    const path = join(dir, 'jobhooks.db');
    const db = openDatabase(path, previous(MIGRATIONS), 'normal');
    await fill(
      async (sql, values) => void db.prepare(sql).run(...values),
      (on) => (on ? 1 : 0),
    );
    db.close();
    return path;
  }
  const url = await createTestDatabase();
  const pool = openPool({ url, poolSize: 1 }, () => undefined);
  try {
    await migratePostgres(pool, previous(PG_MIGRATIONS));
    const numbered = (sql: string) => {
      let n = 0;
      return sql.replace(/\?/g, () => `$${(n += 1)}`);
    };
    await fill(
      async (sql, values) => void (await pool.query(numbered(sql), values)),
      (on) => on,
    );
  } finally {
    await pool.close();
  }
  return url;
}

const LEASE_END = T0 + 60 * SECOND;
const PAYLOAD = Buffer.from('{"head":1}');
const TAIL = Buffer.from(',"tail":2}');

let opened: TestStore | null = null;
const folders: string[] = [];
afterEach(async () => {
  await opened?.close();
  opened = null;
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test('a database of the previous release keeps its webhooks, secrets, pending deliveries and log', async () => {
  const location = await previousRelease(async (run, flag) => {
    await run('INSERT INTO accounts (id, identifier, name, plan, created_at) VALUES (?, ?, ?, ?, ?)', [
      1,
      'act_1',
      'Account 1',
      'enterprise',
      T0,
    ]);
    await run(
      `INSERT INTO webhooks (id, account_id, name, description, client_url, event_types, job_ids, active,
                             sealed_secret, previous_sealed_secret, previous_secret_until, created_at, updated_at,
                             http_status_code, consecutive_failures)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        'wsu_a',
        1,
        'kept',
        'from the last release',
        'http://127.0.0.1:9/a',
        '["job.run.completed"]',
        '["42"]',
        flag(true),
        'v1:sealed-new',
        'v1:sealed-old',
        T0 + 3600 * SECOND,
        T0,
        T0,
        '500',
        2,
      ],
    );
    await run(
      `INSERT INTO events (id, account_id, event_type, run_id, job_id, created_at, payload_tail)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ['wev_1', 1, 'job.run.completed', 'run-wev_1', '42', T0, TAIL],
    );
    // A delivery leased when the old build stopped (its lease ran out since), and one that failed for good.
    await run(
      `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, lease_owner,
                               lease_expires_at, signature, last_attempt, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ['wdl_leased', 'wev_1', 'wsu_a', 'pending', PAYLOAD, 2, LEASE_END, 'old/1', LEASE_END, 'sig', 0, T0, T0],
    );
    await run(
      `INSERT INTO deliveries (id, event_id, webhook_id, state, payload, attempts, next_attempt_at, lease_owner,
                               lease_expires_at, signature, last_attempt, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ['wdl_failed', 'wev_1', 'wsu_a', 'failed', PAYLOAD, 6, null, null, null, 'sig', 0, T0, T0],
    );
    await run(
      `INSERT INTO delivery_attempts (delivery_id, webhook_id, event_id, event_type, attempt, requested_at,
                                      duration_ms, status_code, error, success, response_excerpt, response_headers,
                                      is_test)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        'wdl_leased',
        'wsu_a',
        'wev_1',
        'job.run.completed',
        2,
        T0 + SECOND,
        12,
        '500',
        'The endpoint answered HTTP 500',
        flag(false),
        'down',
        '{"x-a":"1"}',
        flag(false),
      ],
    );
    // The log kept credential headers as the receiver sent them.
    await run(
      `INSERT INTO delivery_attempts (delivery_id, webhook_id, event_id, event_type, attempt, requested_at,
                                      duration_ms, status_code, error, success, response_excerpt, response_headers,
                                      is_test)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        'wdl_failed',
        'wsu_a',
        'wev_1',
        'job.run.completed',
        6,
        T0 + 2 * SECOND,
        9,
        '401',
        'The endpoint answered HTTP 401',
        flag(false),
        '',
        JSON.stringify({ 'set-cookie': 's=secret; "q"', 'x-ok': '1', authorization: 'Bearer t\\"' }),
        flag(false),
      ],
    );
  });

  opened = await openTestStore(backend, location);
  const { store } = opened;
  expect(await store.webhooks.get(1, 'wsu_a')).toMatchObject({
    name: 'kept',
    active: true,
    sealedSecret: 'v1:sealed-new',
    previousSealedSecret: 'v1:sealed-old',
    previousSecretUntil: T0 + 3600 * SECOND,
    httpStatusCode: '500',
    consecutiveFailures: 2,
  });
  expect(await store.deliveries.get('wsu_a', 'wdl_failed')).toEqual({
    id: 'wdl_failed',
    eventId: 'wev_1',
    eventType: 'job.run.completed',
    webhookId: 'wsu_a',
    state: 'failed',
    payload: Buffer.concat([PAYLOAD, TAIL]),
    // An event taken in before traces were kept has no trace context: its attempts each start a trace.
    trace: null,
    attempts: 6,
  });
  expect(await store.deliveryLog.attemptsOf('wsu_a', 'wdl_leased')).toEqual([
    expect.objectContaining({
      attempt: 2,
      statusCode: '500',
      success: false,
      responseExcerpt: 'down',
      responseHeaders: { 'x-a': '1' },
    }),
  ]);
  // Credential headers are masked in the database now, the others kept, in their order.
  const [masked] = await store.deliveryLog.attemptsOf('wsu_a', 'wdl_failed');
  expect(Object.entries(masked!.responseHeaders)).toEqual([
    ['set-cookie', '(masked)'],
    ['x-ok', '1'],
    ['authorization', '(masked)'],
  ]);

  // The log kept before is rolled up once: both attempts failed, in T0's hour; the delivery whose last logged attempt
  // was its sixth and that failed for good is a failed delivery; 12 ms and 9 ms fall in the <= 25 and <= 10 buckets.
  expect(await store.deliveryLog.hoursOfWebhook('wsu_a', { since: T0, until: T0 + 3600 * SECOND })).toEqual([
    {
      webhookId: 'wsu_a',
      hour: T0,
      attemptsSucceeded: 0,
      attemptsFailed: 2,
      deliveriesSucceeded: 0,
      deliveriesFailed: 1,
      durations: [0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0],
    },
  ]);

  // The delivery whose lease ran out is due again, with its attempts so far; not before the lease's end.
  expect(await claimAll(store, LEASE_END - 1)).toEqual([]);
  expect(await claimAll(store, LEASE_END)).toEqual([
    expect.objectContaining({ id: 'wdl_leased', attempts: 2, payload: Buffer.concat([PAYLOAD, TAIL]), trace: null }),
  ]);
  // The run's event is still known: the same run again is a duplicate of it.
  expect(
    await store.events.record(event(1, 'wev_2', { runId: 'run-wev_1' }), () => ({ payloadTail: TAIL, deliveries: [] })),
  ).toEqual({ kind: 'duplicate', eventId: 'wev_1' });
});
