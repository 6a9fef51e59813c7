// Moving a running SQLite installation to PostgreSQL with `jobhooks db copy`, and the operator commands on
// PostgreSQL: a team that outgrows one machine keeps its accounts, tokens, webhooks and their secrets, the
// delivery log, and the deliveries still to send.
import { execFile } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { COPIED_TABLES } from '../../service/src/store/copy-to-postgres';
import { request } from 'undici';
import { ADMIN_TOKEN } from '../support/harness';
import { ADMIN_HEADERS, createWebhookAt, postEvents } from '../support/burst';
import { createTestDatabase, TEST_SECRET_KEY } from '../support/postgres';
import { closedPortUrl, type Receiver, startReceiver } from '../support/receiver';
import { startServiceProcess, stopServiceProcesses } from '../support/service-process';
import { isGenuine } from '../support/signature';
import { waitFor } from '../support/wait';

// Tests here start processes (the service, the `jobhooks` command), each loading the whole service: a loaded CI
// machine makes them several times slower. A hang guard, not a bound on speed.
jest.setTimeout(90_000);

const run = promisify(execFile);
const BIN = resolve(__dirname, '..', '..', 'service', 'bin', 'jobhooks.js');

let dir: string;
let url: string;
let receivers: Receiver[] = [];
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-copy-'));
  url = await createTestDatabase();
});
afterEach(async () => {
  await stopServiceProcesses();
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
  rmSync(dir, { recursive: true, force: true });
});

const sqliteEnv = () => ({ JOBHOOKS_DB: join(dir, 'jobhooks.db'), LOG_LEVEL: 'silent' });
const jobhooksWith = (options: { cwd?: string }, env: Record<string, string>, ...args: string[]) =>
  run(process.execPath, [BIN, ...args], { ...options, env: { ...process.env, ...env } });
const jobhooks = (env: Record<string, string>, ...args: string[]) => jobhooksWith({}, env, ...args);
async function failingWith(options: { cwd?: string }, env: Record<string, string>, ...args: string[]) {
  try {
    await jobhooksWith(options, env, ...args);
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string };
  }
  throw new Error(`jobhooks ${args.join(' ')} succeeded`);
}
const failing = (env: Record<string, string>, ...args: string[]) => failingWith({}, env, ...args);

async function getJson(baseUrl: string, path: string, token = ADMIN_TOKEN): Promise<unknown> {
  const response = await request(`${baseUrl}${path}`, { headers: { authorization: `Token ${token}` } });
  const body = await response.body.json();
  if (response.statusCode !== 200) throw new Error(`GET ${path}: ${response.statusCode} ${JSON.stringify(body)}`);
  return body;
}

async function countRows(table: string, where = 'true'): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`)).rows[0]!.n;
  } finally {
    await client.end();
  }
}

/** A SQLite installation with its first account, as the service's first start leaves it. */
async function makeSqliteInstallation(): Promise<void> {
  const started = await startServiceProcess({
    ...sqliteEnv(),
    JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '1',
    JOBHOOKS_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
  });
  expect(await started.signal('SIGTERM')).toBe(0);
}

const RUNS = ['run-1', 'run-2', 'run-3', 'run-4', 'run-5'];
const subscriptions = '/v3/accounts/1/webhooks/subscriptions';

test('a running SQLite installation moves to PostgreSQL: the same API answers, and what was in flight is sent', async () => {
  const delivered = await startReceiver();
  // Holds its requests unanswered until released: a delivery is in flight, leased by the SQLite service, when it
  // is copied.
  const unanswered: ServerResponse[] = [];
  let holding = true;
  const held = await startReceiver((_req, res) => (holding ? unanswered.push(res) : res.writeHead(200).end()));
  receivers = [delivered, held];
  const sqlite = await startServiceProcess({
    ...sqliteEnv(),
    JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '1',
    JOBHOOKS_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
    JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
  });
  const done = await createWebhookAt(sqlite.baseUrl, `${delivered.url}/done`);
  const inFlight = await createWebhookAt(sqlite.baseUrl, `${held.url}/held`);
  expect((await postEvents([sqlite.baseUrl], RUNS)).size).toBe(RUNS.length);
  const logPath = `/v3/accounts/1/webhooks/subscription/${done.id}/deliveries`;
  await waitFor(
    async () => ((await getJson(sqlite.baseUrl, logPath)) as { data: unknown[] }).data.length === RUNS.length,
    'the delivered webhook to have its log',
  );
  // An endpoint that has not answered yet gets one request at a time: one delivery is in flight, the rest queued.
  await waitFor(() => held.requests.length === 1, 'a delivery of the held webhook in flight');
  const { stdout: readOnly } = await jobhooks(
    sqliteEnv(),
    'token',
    'create',
    '--account',
    '1',
    '--permission',
    'Read-Only',
  );
  const statsPath = `/v3/accounts/1/webhooks/subscription/${done.id}/statistics?window=7d`;
  const totalsOf = async (baseUrl: string) =>
    ((await getJson(baseUrl, statsPath)) as { data: { totals: unknown } }).data.totals;
  const before = {
    list: await getJson(sqlite.baseUrl, subscriptions),
    log: await getJson(sqlite.baseUrl, logPath),
    totals: await totalsOf(sqlite.baseUrl),
  };

  const copied = await jobhooks(sqliteEnv(), 'db', 'copy', '--to', url);
  expect(copied.stderr).toMatch(/The service is still running on .* \(pid \d+\)/);
  expect(copied.stdout).toMatch(/^Copied .* to PostgreSQL at .*: 1 accounts, 2 api tokens, 2 webhooks, /m);
  const keyFile = join(dir, 'secret.key');
  expect(copied.stdout).toContain(`JOBHOOKS_SECRET_KEY=$(cat ${keyFile})`);
  await sqlite.signal('SIGKILL');
  // Each copied event counts its deliveries (one to each webhook), which the purge goes by on PostgreSQL.
  expect(await countRows('events', 'deliveries_left = 2')).toBe(RUNS.length);

  // An instance on PostgreSQL with the key of the SQLite installation answers as the SQLite service did, and
  // sends again what that had in flight (its request is held again, so nothing has changed yet).
  const heldBefore = held.requests.length;
  const postgres = await startServiceProcess({
    JOBHOOKS_DATABASE_URL: url,
    JOBHOOKS_SECRET_KEY: readFileSync(keyFile, 'utf8').trim(),
    JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
    LOG_LEVEL: 'silent',
  });
  await waitFor(() => held.requests.length === heldBefore + 1, 'the in-flight delivery sent again');
  expect(await getJson(postgres.baseUrl, subscriptions)).toEqual(before.list);
  expect(await getJson(postgres.baseUrl, logPath)).toEqual(before.log);
  // The hourly rollup comes along: the statistics are the same.
  expect(before.totals).toMatchObject({ attempts_succeeded: RUNS.length });
  expect(await totalsOf(postgres.baseUrl)).toEqual(before.totals);
  expect(await getJson(postgres.baseUrl, subscriptions, readOnly.trim())).toEqual(before.list);

  // Released, the receiver gets every delivery, signed with the copied secret.
  holding = false;
  for (const res of unanswered) res.writeHead(200).end();
  await waitFor(() => held.requests.length === heldBefore + RUNS.length, 'the in-flight and queued deliveries sent');
  const resent = held.requests.slice(heldBefore);
  expect(resent.map((r) => (JSON.parse(r.body.toString()) as { data: { runId: string } }).data.runId).sort()).toEqual(
    RUNS,
  );
  for (const r of resent) expect(isGenuine(inFlight.hmac_secret, r.body, r.headers.authorization)).toBe(true);
  // The log's attempt ids were kept, and new attempts take ids after them.
  await waitFor(async () => (await countRows('delivery_attempts')) === 2 * RUNS.length, 'the resent attempts logged');
  const newEvent = await request(`${postgres.baseUrl}/v3/accounts/1/webhooks/events`, {
    method: 'POST',
    headers: ADMIN_HEADERS,
    body: JSON.stringify({
      event_type: 'job.run.completed',
      run: { ...(JSON.parse(delivered.requests[0]!.body.toString()) as { data: object }).data, runId: 'run-6' },
    }),
  });
  expect(newEvent.statusCode).toBe(202);
  await newEvent.body.dump();
  await waitFor(() => delivered.requests.length === RUNS.length + 1, 'a new event delivered on PostgreSQL');
}, 60_000);

test('a second copy into the same database is refused and changes nothing', async () => {
  await makeSqliteInstallation();
  await jobhooks(sqliteEnv(), 'db', 'copy', '--to', url);
  const accounts = await countRows('accounts');
  const refused = await failing(sqliteEnv(), 'db', 'copy', '--to', url);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^jobhooks: The PostgreSQL database at .* is not empty \(table accounts has rows\)/m);
  expect(refused.stderr).not.toContain('    at ');
  expect(await countRows('accounts')).toBe(accounts);
});

test('a log row SQLite kept with a NUL (logged before answers were made storable) is copied with U+FFFD', async () => {
  await makeSqliteInstallation();
  const db = new Database(join(dir, 'jobhooks.db'));
  db.prepare(
    `INSERT INTO webhooks (id, account_id, name, description, client_url, event_types, job_ids, active, sealed_secret,
                           created_at, updated_at) VALUES ('wsu_old', 1, 'old', '', 'http://127.0.0.1:9/', '[]', '[]', 1, 's', 1, 1)`,
  ).run();
  db.prepare(
    `INSERT INTO delivery_attempts (delivery_id, webhook_id, event_id, event_type, attempt, requested_at, duration_ms,
                                    status_code, error, success, response_excerpt)
     VALUES (NULL, 'wsu_old', 'wev_old', 'job.run.completed', 1, 1, 5, '200', NULL, 1, ?)`,
  ).run('before\u0000after');
  db.close();
  await jobhooks(sqliteEnv(), 'db', 'copy', '--to', url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ response_excerpt: string }>('SELECT response_excerpt FROM delivery_attempts');
    expect(rows).toEqual([{ response_excerpt: 'before\uFFFDafter' }]);
  } finally {
    await client.end();
  }
});

test('the copy takes every table of an installation: a table added to the SQLite schema must be added to it', async () => {
  await makeSqliteInstallation();
  const db = new Database(join(dir, 'jobhooks.db'), { readonly: true });
  const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>)
    .map((t) => t.name)
    // SQLite's own bookkeeping, and the readiness probe's scratch row, are not part of an installation.
    .filter((name) => !['sqlite_sequence', 'readiness_probe'].includes(name));
  db.close();
  expect(tables.sort()).toEqual([...COPIED_TABLES].sort());
});

test('db copy names its mistakes in one sentence: no --to, not a PostgreSQL URL, a server that is not there', async () => {
  await makeSqliteInstallation();
  for (const args of [[], ['--to', join(dir, 'other.db')]]) {
    const usage = await failing(sqliteEnv(), 'db', 'copy', ...args);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('db copy needs --to postgres://');
  }
  const nowhere = `postgres://u:secret@127.0.0.1:${new URL(await closedPortUrl()).port}/jobhooks`;
  const unreachable = await failing(sqliteEnv(), 'db', 'copy', '--to', nowhere);
  expect(unreachable.code).toBe(1);
  expect(unreachable.stderr).toMatch(
    /^jobhooks: PostgreSQL at 127\.0\.0\.1:\d+\/jobhooks cannot be reached .*check --to/m,
  );
  expect(unreachable.stderr).not.toContain('secret');
});

describe('operator commands with JOBHOOKS_DATABASE_URL', () => {
  const pgEnv = () => ({ JOBHOOKS_DATABASE_URL: url, JOBHOOKS_SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'silent' });

  test('accounts and tokens are made in PostgreSQL, and work on a running instance', async () => {
    const instance = await startServiceProcess(pgEnv());
    const created = await jobhooks(pgEnv(), 'account', 'create', '--id', '7', '--name', 'Data team');
    expect(created.stdout).toMatch(/^Created account 7 /);
    expect(created.stderr).toMatch(/^Database: PostgreSQL at .*\//m);
    const { stdout: token } = await jobhooks(
      pgEnv(),
      'token',
      'create',
      '--account',
      '7',
      '--permission',
      'Account Admin',
    );
    expect(await getJson(instance.baseUrl, '/v3/accounts/7/webhooks/subscriptions', token.trim())).toMatchObject({
      data: [],
    });
    const [line] = (await jobhooks(pgEnv(), 'token', 'list', '--account', '7')).stdout.trim().split('\n');
    await jobhooks(pgEnv(), 'token', 'revoke', line!.split('\t')[0]!);
    const revoked = await request(`${instance.baseUrl}/v3/accounts/7/webhooks/subscriptions`, {
      headers: { authorization: `Token ${token.trim()}` },
    });
    await revoked.body.dump();
    expect(revoked.statusCode).toBe(401);
  });

  test('backup, which works on the SQLite file, refuses and says what to do instead', async () => {
    const backup = await failing(pgEnv(), 'backup', '--to', join(dir, 'copy.db'));
    expect(backup.code).toBe(1);
    expect(backup.stderr).toMatch(/^jobhooks: jobhooks backup works on the SQLite database.*pg_dump/);
  });

  test('secret-key rotate re-seals every secret under a new key, refused while an instance is connected', async () => {
    const receiver = await startReceiver();
    receivers = [receiver];
    const serviceEnv = {
      ...pgEnv(),
      JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '1',
      JOBHOOKS_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
      JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
    };
    const instance = await startServiceProcess(serviceEnv);
    const webhook = await createWebhookAt(instance.baseUrl, `${receiver.url}/rotated`);
    const inDir = { cwd: dir };
    const refused = await failingWith(inDir, pgEnv(), 'secret-key', 'rotate');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^jobhooks: Another jobhooks process is connected to this database \(instances of the service, or commands\): stop every instance first/m,
    );
    // The key made for the refused rotation sealed nothing: it is not left behind to be mistaken for the key.
    expect(existsSync(join(dir, 'secret.key.new'))).toBe(false);
    expect(await instance.signal('SIGTERM')).toBe(0);

    const rotated = await jobhooksWith(inDir, pgEnv(), 'secret-key', 'rotate');
    const newKey = rotated.stdout.trim();
    expect(newKey).toMatch(/^[0-9a-f]{64}$/);
    expect(newKey).not.toBe(TEST_SECRET_KEY);
    expect(readFileSync(join(dir, 'secret.key.new'), 'utf8').trim()).toBe(newKey);
    expect(rotated.stderr).toMatch(/Re-encrypted 1 webhook secrets .* set JOBHOOKS_SECRET_KEY of every instance to it/);

    // The old key no longer opens the database; under the new one the webhook signs with its same secret.
    await expect(startServiceProcess(serviceEnv)).rejects.toThrow(/JOBHOOKS_SECRET_KEY/);
    const restarted = await startServiceProcess({ ...serviceEnv, JOBHOOKS_SECRET_KEY: newKey });
    expect((await postEvents([restarted.baseUrl], ['run-after-rotation'])).size).toBe(1);
    await waitFor(() => receiver.requests.length === 1, 'the delivery after the rotation');
    const [sent] = receiver.requests;
    expect(isGenuine(webhook.hmac_secret, sent!.body, sent!.headers.authorization)).toBe(true);
  });
});
