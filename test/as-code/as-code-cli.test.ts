// jobhooks-as-code against the real service (its own SQLite file, on 127.0.0.1): the binary run as CI runs it,
// webhooks planned and applied from YAML files, drift put back, other webhooks left alone, secrets kept in a
// file that only its owner can read and nowhere else.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebhooksClient, type WebhooksClient } from '@jobhooks/client';
import { postEvent } from '../support/events';
import { ACCOUNT_ID, ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { answer, closedPortUrl, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine } from '../support/signature';
import { waitFor } from '../support/wait';
import { runCli } from '../../provider/as-code/src/cli';
import type { CliIo } from '../../provider/as-code/src/io';
import { AS_CODE_BIN, type AsCodeRun, runAsCode } from './run-as-code';

// A test runs the CLI as up to nine processes of its own, each starting Node: half a second apiece on an idle
// machine, several seconds beside another suite on two cores. No test here times anything.
jest.setTimeout(90_000);

let h: Harness;
let hostUrl: string;
let api: WebhooksClient;
let dir: string;
let receiver: Receiver;
/** A loopback endpoint nothing listens on: webhooks pointing there never get an event in these tests. */
const NOWHERE = 'http://127.0.0.1:9/hooks';

beforeEach(async () => {
  h = await startHarness();
  hostUrl = await h.listen();
  api = createWebhooksClient({ hostUrl, accountId: ACCOUNT_ID, token: ADMIN_TOKEN, maxAttempts: 1 });
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-as-code-'));
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const connection = () => ({
  JOBHOOKS_HOST_URL: hostUrl,
  JOBHOOKS_ACCOUNT_ID: String(ACCOUNT_ID),
  JOBHOOKS_TOKEN: ADMIN_TOKEN,
});
const asCode = (args: string[], env: Record<string, string> = connection()) => runAsCode(args, { cwd: dir, env });
const write = (name: string, text: string) => writeFileSync(join(dir, name), text);

/** Lines of a plan's output that name a change (`+ create x`, `~ update y (...)`, ...). */
const changeLines = (run: AsCodeRun) =>
  run.stdout
    .split('\n')
    .filter((line) => /^ {2}[-+~^] /.test(line))
    .map((line) => line.trim().replace(/ \(wsu_\w+\).*$/, ''));

function expectOk(run: AsCodeRun, code = 0) {
  if (run.code !== code)
    throw new Error(`exit ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

const TWO_WEBHOOKS = `
namespace: analytics
webhooks:
  receiver:
    name: To the receiver
    client_url: \${RECEIVER_URL}
    event_types: [job.run.completed, job.run.errored]
  pager:
    name: Pager
    description: Errors only
    client_url: ${NOWHERE}
    event_types: [job.run.errored]
    job_ids: [7, 42]
    active: false
`;

test('plan, apply, plan: the webhooks are made once, their secrets land only in a 0600 file, and they sign deliveries', async () => {
  write('webhooks.yml', TWO_WEBHOOKS);
  const env = { ...connection(), RECEIVER_URL: `${receiver.url}/hook` };
  const first = await asCode(['plan', 'webhooks.yml', '--detailed-exitcode'], env);
  expectOk(first, 2);
  expect(changeLines(first)).toEqual(['+ create analytics/receiver', '+ create analytics/pager']);

  // Neither a secrets file nor --show-secrets: nothing is created, and it says why.
  const refused = await asCode(['apply', 'webhooks.yml', '--auto-approve'], env);
  expectOk(refused, 1);
  expect(refused.stderr).toMatch(/Nothing was changed: apply would create 2 webhooks.*--secrets-out FILE/);
  expect((await api.list()).data).toEqual([]);

  const applied = await asCode(['apply', 'webhooks.yml', '--auto-approve', '--secrets-out', 'secrets.json'], env);
  expectOk(applied);
  const secretsPath = join(dir, 'secrets.json');
  expect(statSync(secretsPath).mode & 0o777).toBe(0o600);
  const secrets = JSON.parse(readFileSync(secretsPath, 'utf8')) as Record<string, string>;
  expect(Object.keys(secrets).sort()).toEqual(['analytics/pager', 'analytics/receiver']);
  for (const secret of Object.values(secrets)) {
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    for (const run of [first, refused, applied]) expect(run.stdout + run.stderr).not.toContain(secret);
  }

  const webhooks = (await api.list()).data;
  const pager = webhooks.find((webhook) => webhook.name === 'Pager [[analytics/pager]]');
  expect(pager).toMatchObject({ description: 'Errors only', client_url: NOWHERE, job_ids: ['7', '42'], active: false });
  const toReceiver = webhooks.find((webhook) => webhook.name === 'To the receiver [[analytics/receiver]]')!;
  expect(toReceiver).toMatchObject({ client_url: `${receiver.url}/hook`, active: true, description: '', job_ids: [] });

  // The secret from the file verifies the signature of the webhook's test delivery.
  await api.test(toReceiver.id);
  expect(receiver.requests).toHaveLength(1);
  expect(
    isGenuine(secrets['analytics/receiver']!, receiver.requests[0]!.body, receiver.requests[0]!.headers.authorization),
  ).toBe(true);

  const again = await asCode(['plan', 'webhooks.yml', '--detailed-exitcode', '--json'], env);
  expectOk(again, 0);
  const plan = JSON.parse(again.stdout) as { changes: unknown[]; summary: Record<string, number> };
  expect(plan.changes).toEqual([]);
  expect(plan.summary).toEqual({ create: 0, update: 0, reactivate: 0, delete: 0, unchanged: 2 });
  const noop = await asCode(['apply', 'webhooks.yml', '--auto-approve'], env);
  expectOk(noop);
  expect(noop.stdout).toContain('No changes: 2 webhooks already match the files.');
});

test('drift is put back, a removed entry is deleted, and webhooks of the UI or of another namespace are never touched', async () => {
  write('webhooks.yml', TWO_WEBHOOKS);
  const env = { ...connection(), RECEIVER_URL: `${receiver.url}/hook` };
  expectOk(await asCode(['apply', 'webhooks.yml', '--auto-approve', '--secrets-out', 'secrets.json'], env));
  const fromUi = await api.create({ name: 'Made in the UI', client_url: NOWHERE, event_types: ['job.run.started'] });
  const otherNamespace = await api.create({
    name: 'Pager [[billing/pager]]',
    client_url: NOWHERE,
    event_types: ['job.run.errored'],
  });
  const noNamespace = await api.create({
    name: 'Pager [[pager]]',
    client_url: NOWHERE,
    event_types: ['job.run.errored'],
  });
  const untouched = [fromUi, otherNamespace, noNamespace];

  // Drift: the pager's URL and events edited on the server, the receiver's webhook deleted there.
  const byName = async (name: string) => (await api.list()).data.find((webhook) => webhook.name === name)!;
  const pager = await byName('Pager [[analytics/pager]]');
  await api.update(pager.id, {
    name: pager.name,
    client_url: 'http://127.0.0.1:9/moved',
    event_types: ['job.run.started'],
    active: false,
  });
  await api.delete((await byName('To the receiver [[analytics/receiver]]')).id);

  const drift = await asCode(['plan', 'webhooks.yml'], env);
  expectOk(drift);
  expect(changeLines(drift)).toEqual(['+ create analytics/receiver', '~ update analytics/pager']);
  expect(drift.stdout).toContain('client_url: "http://127.0.0.1:9/moved" -> "http://127.0.0.1:9/hooks"');
  // The API reactivates a webhook whose URL changes: putting the URL back must leave it inactive as declared.
  expect(drift.stdout).toContain('active: true -> false');
  const secretsBefore = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')) as Record<string, string>;
  expectOk(await asCode(['apply', 'webhooks.yml', '--auto-approve', '--secrets-out', 'secrets.json'], env));
  expect(await api.get(pager.id)).toMatchObject({
    client_url: NOWHERE,
    event_types: ['job.run.errored'],
    active: false,
  });
  const secretsAfter = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')) as Record<string, string>;
  expect(secretsAfter['analytics/pager']).toBe(secretsBefore['analytics/pager']);
  expect(secretsAfter['analytics/receiver']).not.toBe(secretsBefore['analytics/receiver']);
  expectOk(await asCode(['plan', 'webhooks.yml', '--detailed-exitcode'], env), 0);

  // The pager's entry removed from the file: its webhook is deleted, and only it.
  write('webhooks.yml', TWO_WEBHOOKS.replace(/ {2}pager:[\s\S]*$/, ''));
  const removal = await asCode(['apply', 'webhooks.yml', '--auto-approve', '--secrets-out', 'secrets.json'], env);
  expectOk(removal);
  expect(changeLines(removal)).toEqual(['- delete analytics/pager']);
  // The deleted webhook's secret verifies nothing any more: the file keeps only the declared webhooks' secrets.
  expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))).toEqual({
    'analytics/receiver': secretsAfter['analytics/receiver'],
  });
  expect(await api.get(pager.id)).toBeNull();
  for (const webhook of untouched)
    expect(await api.get(webhook.id)).toMatchObject({ name: webhook.name, updated_at: webhook.updated_at });

  // Files without a namespace manage only unnamespaced markers: here `Pager [[pager]]`, deleted as not declared.
  write(
    'plain.yml',
    `webhooks:\n  other:\n    name: Other\n    client_url: ${NOWHERE}\n    event_types: [job.run.started]\n`,
  );
  const plain = await asCode(['plan', 'plain.yml'], env);
  expect(changeLines(plain)).toEqual(['+ create other', '- delete pager']);
});

test('an entry with active: true reactivates its webhook archived by a 410, after a warning in the plan', async () => {
  receiver.respondWith(answer(410, 'gone'));
  write(
    'webhooks.yml',
    `webhooks:\n  gone:\n    name: Gone\n    client_url: ${receiver.url}/gone\n    event_types: [job.run.completed]\n`,
  );
  expectOk(await asCode(['apply', 'webhooks.yml', '--auto-approve', '--secrets-out', 'secrets.json']));
  expect((await postEvent(h, 'job.run.completed')).statusCode).toBe(202);
  const [created] = (await api.list()).data;
  await waitFor(async () => (await api.get(created!.id))?.archived === true, 'the 410 to archive the webhook');

  const plan = await asCode(['plan', 'webhooks.yml', '--detailed-exitcode']);
  expectOk(plan, 2);
  expect(changeLines(plan)).toEqual(['^ reactivate gone']);
  // When it was archived, in RFC 3339 like every jobhooks time the IaC tools show.
  expect(plan.stdout).toMatch(
    /! gone \(wsu_\w+\): archived since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z \(.*\): apply reactivates it/,
  );
  expect(plan.stdout).toContain('its last delivery got HTTP 410');

  receiver.respondWith(answer(200, 'ok'));
  expectOk(await asCode(['apply', 'webhooks.yml', '--auto-approve']));
  expect(await api.get(created!.id)).toMatchObject({ active: true, archived: false });
});

test('import writes files that validate; --link marks the unmanaged webhooks, after which plan shows nothing', async () => {
  write('webhooks.yml', TWO_WEBHOOKS);
  const env = { ...connection(), RECEIVER_URL: `${receiver.url}/hook` };
  expectOk(await asCode(['apply', 'webhooks.yml', '--auto-approve', '--secrets-out', 'secrets.json'], env));
  await api.create({
    name: 'Made in the UI',
    client_url: 'http://127.0.0.1:9/${literal}',
    event_types: ['job.run.started'],
    job_ids: [5],
    max_requests_per_second: 7,
  });
  await api.create({ name: 'Made in the UI', client_url: NOWHERE, event_types: ['job.run.completed'], active: false });
  await api.create({ name: 'Elsewhere [[billing/x]]', client_url: NOWHERE, event_types: ['job.run.started'] });

  const managed = await asCode(['import', '--namespace', 'analytics', '--managed-only']);
  expectOk(managed);
  expect(managed.stdout).toContain('$schema=./node_modules/@jobhooks/as-code/webhooks.schema.json');
  expect(managed.stdout).toMatch(/webhooks:\n {2}receiver:\n/);
  expect(managed.stdout).not.toContain('Made in the UI');

  // Without --link, the unmanaged ones are written too, with identifiers made from their names.
  const all = await asCode(['import', '--namespace', 'analytics', '--output', 'all.yml']);
  expectOk(all);
  const allText = readFileSync(join(dir, 'all.yml'), 'utf8');
  expect(allText).toContain('made-in-the-ui:');
  expect(allText).toContain('made-in-the-ui-2:');
  expect(allText).toContain('http://127.0.0.1:9/$${literal}');
  expect(allText).not.toContain('Elsewhere');
  expectOk(await asCode(['validate', 'all.yml']));
  expect(changeLines(await asCode(['plan', 'all.yml']))).toEqual([
    '+ create analytics/made-in-the-ui',
    '+ create analytics/made-in-the-ui-2',
  ]);
  expectOk(await asCode(['import', '--output', 'all.yml']), 1); // never overwrites

  // No terminal to confirm on and no --auto-approve: nothing renamed, nothing written.
  const unconfirmed = await asCode(['import', '--namespace', 'analytics', '--link', '--output', 'linked.yml']);
  expectOk(unconfirmed, 1);
  expect(unconfirmed.stderr).toContain('pass --auto-approve');
  expect(() => statSync(join(dir, 'linked.yml'))).toThrow();

  const linked = await asCode([
    'import',
    '--namespace',
    'analytics',
    '--link',
    '--auto-approve',
    '--output',
    'linked.yml',
  ]);
  expectOk(linked);
  const names = (await api.list()).data.map((webhook) => webhook.name).sort();
  expect(names).toEqual([
    'Elsewhere [[billing/x]]',
    'Made in the UI [[analytics/made-in-the-ui-2]]',
    'Made in the UI [[analytics/made-in-the-ui]]',
    'Pager [[analytics/pager]]',
    'To the receiver [[analytics/receiver]]',
  ]);
  // Linking renames and changes nothing else: the rate stays.
  const rates = (await api.list()).data.map((webhook) => webhook.max_requests_per_second ?? null);
  expect(rates.filter((rate) => rate !== null)).toEqual([7]);
  const after = await asCode(['plan', 'linked.yml', '--detailed-exitcode']);
  expectOk(after, 0);
  expect(after.stdout).toContain('No changes: 4 webhooks already match the files.');
});

test("max_requests_per_second (jobhooks' own): apply sets it, plan shows its change and removal, import writes it", async () => {
  const entry = (rate: string) =>
    `webhooks:\n  paced:\n    name: Paced\n    client_url: ${NOWHERE}\n    event_types: [job.run.completed]\n${rate}`;
  write('webhooks.yml', entry('    max_requests_per_second: 5\n'));
  expectOk(await asCode(['apply', 'webhooks.yml', '--auto-approve', '--show-secrets']));
  const [paced] = (await api.list()).data;
  expect(paced).toMatchObject({ name: 'Paced [[paced]]', max_requests_per_second: 5 });
  expectOk(await asCode(['plan', 'webhooks.yml', '--detailed-exitcode']), 0);

  write('webhooks.yml', entry('    max_requests_per_second: 20\n'));
  const raise = await asCode(['plan', 'webhooks.yml', '--detailed-exitcode']);
  expectOk(raise, 2);
  expect(changeLines(raise)).toEqual(['~ update paced']);
  expect(raise.stdout).toContain('      max_requests_per_second: 5 -> 20\n');
  const raiseJson = JSON.parse((await asCode(['plan', 'webhooks.yml', '--json'])).stdout) as { changes: unknown[] };
  expect(raiseJson.changes).toEqual([
    expect.objectContaining({
      action: 'update',
      fields: [{ field: 'max_requests_per_second', old: 5, new: 20 }],
    }),
  ]);
  expectOk(await asCode(['apply', 'webhooks.yml', '--auto-approve']));
  expect((await api.get(paced!.id))?.max_requests_per_second).toBe(20);

  // Import writes the rate of the webhook that has one, and nothing for one that has none.
  await api.create({ name: 'Unpaced [[unpaced]]', client_url: NOWHERE, event_types: ['job.run.started'] });
  const imported = await asCode(['import', '--output', 'imported.yml']);
  expectOk(imported);
  const importedText = readFileSync(join(dir, 'imported.yml'), 'utf8');
  expect(importedText.match(/max_requests_per_second: \d+/g)).toEqual(['max_requests_per_second: 20']);
  expect(importedText).toMatch(/ {2}paced:\n(?: {4}.+\n)* {4}max_requests_per_second: 20\n/);
  expectOk(await asCode(['plan', 'imported.yml', '--detailed-exitcode']), 0);

  // Left out of the file, the rate goes: the entry says what the webhook is, in full.
  write('webhooks.yml', entry(''));
  const removal = await asCode(['plan', 'webhooks.yml', '--json']);
  expect((JSON.parse(removal.stdout) as { changes: unknown[] }).changes).toContainEqual(
    expect.objectContaining({ key: 'paced', fields: [{ field: 'max_requests_per_second', old: 20, new: null }] }),
  );
  expectOk(await asCode(['apply', 'webhooks.yml', '--auto-approve']));
  expect(await api.get(paced!.id)).not.toHaveProperty('max_requests_per_second');
});

/**
 * A proxy in front of the service that refuses its first requests with 429, one per header set in `refusals`
 * (a Retry-After, or none), then forwards; `seen` holds when each request came in.
 */
async function rateLimitingProxy(refusals: Array<Record<string, string>>) {
  const target = new URL(hostUrl);
  const seen: number[] = [];
  const proxy: Server = createServer((req, res) => {
    const refusal = refusals.shift();
    seen.push(Date.now());
    if (refusal !== undefined) {
      res
        .writeHead(429, { 'content-type': 'application/json', ...refusal })
        .end(
          '{"data":null,"status":{"code":429,"is_success":false,"user_message":"Slow down.","developer_message":"rate_limited"}}',
        );
      return;
    }
    const forwarded = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (upstream) => {
        res.writeHead(upstream.statusCode ?? 502, upstream.headers);
        upstream.pipe(res);
      },
    );
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    hostUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api`,
    seen,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

test('429 from the server: waits as Retry-After says, or backs off without it, and goes on', async () => {
  const proxy = await rateLimitingProxy([{ 'retry-after': '1' }, {}]);
  try {
    write(
      'webhooks.yml',
      `webhooks:\n  one:\n    name: One\n    client_url: ${NOWHERE}\n    event_types: [job.run.started]\n`,
    );
    const run = await asCode(['plan', 'webhooks.yml', '--detailed-exitcode'], {
      ...connection(),
      JOBHOOKS_HOST_URL: proxy.hostUrl,
    });
    expectOk(run, 2);
    expect(changeLines(run)).toEqual(['+ create one']);
    expect(proxy.seen).toHaveLength(3);
    expect(proxy.seen[1]! - proxy.seen[0]!).toBeGreaterThanOrEqual(950); // Retry-After: 1
    // The first wait is the Retry-After; the second a backoff of 1 s plus up to a quarter of jitter.
    expect(run.stderr).toMatch(
      new RegExp(
        "^Waiting 1 s before attempt 2 of 5 \\(List webhooks\\): the server is limiting this account's requests \\(HTTP 429, Retry-After: 1\\)\\.\n" +
          "Waiting 1(\\.[0-9])? s before attempt 3 of 5 \\(List webhooks\\): the server is limiting this account's requests \\(HTTP 429\\)\\.\n$",
      ),
    );
  } finally {
    await proxy.close();
  }
});

test('a wait is told on stderr as it starts, and plan --json keeps stdout one JSON document', async () => {
  const proxy = await rateLimitingProxy([{ 'retry-after': '3' }]);
  try {
    write(
      'webhooks.yml',
      `webhooks:\n  one:\n    name: One\n    client_url: ${NOWHERE}\n    event_types: [job.run.started]\n`,
    );
    const child = spawn(process.execPath, [AS_CODE_BIN, 'plan', 'webhooks.yml', '--json'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...connection(), JOBHOOKS_HOST_URL: proxy.hostUrl },
    });
    let stdout = '';
    let stderr = '';
    let toldAt: number | null = null;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (toldAt === null && stderr.includes('Waiting 3 s')) toldAt = Date.now();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    // Told when the wait began, not after it: the 429 came in at seen[0], the next request 3 s later.
    expect(toldAt! - proxy.seen[0]!).toBeLessThan(1_000);
    expect(proxy.seen[1]! - proxy.seen[0]!).toBeGreaterThanOrEqual(2_950);
    expect(stderr).toBe(
      "Waiting 3 s before attempt 2 of 5 (List webhooks): the server is limiting this account's requests (HTTP 429, Retry-After: 3).\n",
    );
    expect(JSON.parse(stdout)).toMatchObject({ changes: [{ action: 'create', key: 'one' }] });
  } finally {
    await proxy.close();
  }
});

test('a wrong host URL, token or account, and an unreachable server, each get one line naming what to check', async () => {
  write(
    'webhooks.yml',
    `webhooks:\n  one:\n    name: One\n    client_url: ${NOWHERE}\n    event_types: [job.run.started]\n`,
  );
  const failures = {
    hostUrl: await asCode(['plan', 'webhooks.yml'], {
      ...connection(),
      JOBHOOKS_HOST_URL: hostUrl.replace(/\/api$/, ''),
    }),
    token: await asCode(['plan', 'webhooks.yml'], { ...connection(), JOBHOOKS_TOKEN: 'not-a-token' }),
    account: await asCode(['plan', 'webhooks.yml', '--account-id', '99']),
    unreachable: await asCode(['plan', 'webhooks.yml'], {
      ...connection(),
      JOBHOOKS_HOST_URL: `${(await closedPortUrl()).replace(/\/$/, '')}/api`,
    }),
    noToken: await asCode(['plan', 'webhooks.yml'], { JOBHOOKS_HOST_URL: hostUrl, JOBHOOKS_ACCOUNT_ID: '1' }),
  };
  expect(failures.hostUrl.stderr).toMatch(/^jobhooks-as-code: JOBHOOKS_HOST_URL: host_url must end in \/api/);
  expect(failures.token.stderr).toMatch(/refused the token in JOBHOOKS_TOKEN \(HTTP 401/);
  expect(failures.account.stderr).toMatch(/may not do this on account 99 \(HTTP 403: This token belongs to account 1/);
  expect(failures.unreachable.stderr).toMatch(/could not reach http:\/\/127\.0\.0\.1:\d+\/api \(connect ECONNREFUSED/);
  expect(failures.noToken.stderr).toMatch(/No token: set JOBHOOKS_TOKEN \(or DBT_CLOUD_TOKEN\)/);
  for (const run of Object.values(failures)) {
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    // One sentence, after one line for each wait (a server that cannot be reached is tried five times).
    const lines = run.stderr.trim().split('\n');
    expect(lines.filter((line) => !line.startsWith('Waiting '))).toHaveLength(1);
  }
  expect(failures.unreachable.stderr.trim().split('\n').slice(0, -1)).toEqual(
    [2, 3, 4, 5].map((attempt) =>
      expect.stringMatching(
        new RegExp(
          `^Waiting [\\d.]+ s before attempt ${attempt} of 5 \\(List webhooks\\): http://127\\.0\\.0\\.1:\\d+/api could not be reached \\(connect ECONNREFUSED`,
        ),
      ),
    ),
  );
});

test("terraform-provider-dbtcloud's variables work, and an apply without a terminal or --auto-approve changes nothing", async () => {
  write(
    'webhooks.yml',
    `webhooks:\n  one:\n    name: One\n    client_url: ${NOWHERE}\n    event_types: [job.run.started]\n`,
  );
  const dbtEnv = {
    DBT_CLOUD_HOST_URL: hostUrl,
    DBT_CLOUD_ACCOUNT_ID: String(ACCOUNT_ID),
    DBT_CLOUD_TOKEN: ADMIN_TOKEN,
  };
  const run = await asCode(['apply', 'webhooks.yml', '--show-secrets'], dbtEnv);
  expectOk(run, 1);
  expect(run.stderr).toContain('Nothing was changed: this is not a terminal to ask on; pass --auto-approve');
  expect((await api.list()).data).toEqual([]);

  const shown = await asCode(['apply', 'webhooks.yml', '--show-secrets', '--auto-approve'], dbtEnv);
  expectOk(shown);
  expect(shown.stdout).toMatch(/keep them now\):\n {2}one: [0-9a-f]{64}\n/);
});

/** The CLI in this process, with a terminal that answers `answer` and records what it was asked. */
function terminal(answer: string) {
  const out: string[] = [];
  const asked: string[] = [];
  const io: CliIo = {
    cwd: dir,
    env: connection(),
    stdout: (text) => out.push(text),
    stderr: (text) => out.push(text),
    interactive: true,
    ask: async (question) => {
      asked.push(question);
      return answer;
    },
  };
  return { io, out, asked };
}

test('on a terminal, apply asks first and changes nothing unless the answer is "yes"', async () => {
  write(
    'webhooks.yml',
    `webhooks:\n  one:\n    name: One\n    client_url: ${NOWHERE}\n    event_types: [job.run.started]\n`,
  );
  const declined = terminal('y');
  expect(await runCli(['apply', 'webhooks.yml', '--secrets-out', 'secrets.json'], declined.io)).toBe(1);
  expect(declined.asked).toEqual(['Make this change? Only "yes" goes ahead: ']);
  expect(declined.out.join('')).toContain('Apply cancelled; nothing was changed.');
  expect((await api.list()).data).toEqual([]);

  const accepted = terminal('yes\n');
  expect(await runCli(['apply', 'webhooks.yml', '--secrets-out', 'secrets.json'], accepted.io)).toBe(0);
  expect((await api.list()).data.map((webhook) => webhook.name)).toEqual(['One [[one]]']);
});

test('a failure midway keeps the secrets of the webhooks already created, and says how far it got', async () => {
  // An account limit of one webhook: the first create succeeds, the second is refused.
  const limited = await startHarness({ env: { JOBHOOKS_MAX_SUBSCRIPTIONS_PER_ACCOUNT: '1' } });
  try {
    const entry = (id: string) =>
      `  ${id}:\n    name: ${id}\n    client_url: ${NOWHERE}\n    event_types: [job.run.started]\n`;
    write('webhooks.yml', `webhooks:\n${entry('first')}${entry('second')}`);
    const run = await asCode(['apply', 'webhooks.yml', '--auto-approve', '--secrets-out', 'secrets.json'], {
      ...connection(),
      JOBHOOKS_HOST_URL: await limited.listen(),
    });
    expectOk(run, 1);
    expect(run.stderr).toMatch(
      /^jobhooks-as-code: create second failed: Create webhook failed \(HTTP 409: .*\)\. 1 of 2 changes made; run plan to see what remains\.\n$/,
    );
    const secrets = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(secrets)).toEqual(['first']);
    expect(run.stdout + run.stderr).not.toContain(secrets.first);
  } finally {
    await limited.close();
  }
});

test('validate and plan print every problem of the files, and plan sends nothing when there is one', async () => {
  write(
    'webhooks.yml',
    `webhooks:\n  one:\n    name: One\n    client_url: \${MISSING_URL}\n    event_types: [job.run.nope]\n`,
  );
  const validated = await asCode(['validate', 'webhooks.yml'], {});
  expectOk(validated, 1);
  expect(validated.stderr).toBe(
    'webhooks.yml:4: one: the environment variable MISSING_URL is not set\n' +
      'webhooks.yml:5: one: event_types may contain only job.run.started, job.run.completed, job.run.errored\n' +
      'jobhooks-as-code: 2 problems in the files; nothing was sent to the server.\n',
  );
  const planned = await asCode(['plan', 'webhooks.yml'], { ...connection(), MISSING_URL: NOWHERE });
  expectOk(planned, 1);
  expect(planned.stderr).toContain('webhooks.yml:5: one: event_types may contain only');
  expectOk(await asCode(['validate', 'webhooks.yml', '--json'], {}), 1);
  const help = await asCode(['--help'], {});
  expect(help.stdout).toContain('Usage: jobhooks-as-code <command> [options]');
});

test('every page of the list is read: 150 managed webhooks are all imported, and all match', async () => {
  for (let index = 0; index < 150; index += 1) {
    const response = await h.call('POST', '/api/v3/accounts/1/webhooks/subscriptions', {
      body: { name: `Hook ${index} [[paged/w${index}]]`, client_url: NOWHERE, event_types: ['job.run.started'] },
    });
    expect(response.statusCode).toBe(201);
  }
  expectOk(await asCode(['import', '--namespace', 'paged', '--managed-only', '--output', 'paged.yml']));
  expect(readFileSync(join(dir, 'paged.yml'), 'utf8').match(/^ {2}w\d+:$/gm)).toHaveLength(150);
  const plan = await asCode(['plan', 'paged.yml', '--detailed-exitcode']);
  expectOk(plan, 0);
  expect(plan.stdout).toContain('No changes: 150 webhooks already match the files.');
});

/** A server on 127.0.0.1 that answers every request with `respond`; closed after the test. */
async function fakeServer(respond: (response: import('node:http').ServerResponse) => void) {
  const server = createServer((_request, response) => respond(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    hostUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

test('a host that is not the API, and a rate limit that does not end, each get one line; --detailed-exitcode says 1', async () => {
  write(
    'webhooks.yml',
    `webhooks:\n  one:\n    name: One\n    client_url: ${NOWHERE}\n    event_types: [job.run.started]\n`,
  );
  const webPage = await fakeServer((response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<html>\n<body>Welcome</body>\n</html>'),
  );
  const limited = await fakeServer((response) =>
    response
      .writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' })
      .end(
        '{"data":null,"status":{"code":429,"is_success":false,"user_message":"Too many requests.","developer_message":"rate_limited"}}',
      ),
  );
  try {
    const notTheApi = await asCode(['plan', 'webhooks.yml', '--detailed-exitcode'], {
      ...connection(),
      JOBHOOKS_HOST_URL: webPage.hostUrl,
    });
    expect(notTheApi.code).toBe(1);
    expect(notTheApi.stderr).toBe(
      `jobhooks-as-code: The server at ${webPage.hostUrl} did not answer as the webhooks API does: is the host URL right?\n`,
    );
    const rateLimited = await asCode(['plan', 'webhooks.yml'], { ...connection(), JOBHOOKS_HOST_URL: limited.hostUrl });
    expect(rateLimited.code).toBe(1);
    expect(rateLimited.stderr).toBe(
      [2, 3, 4, 5]
        .map(
          (attempt) =>
            `Waiting 0 s before attempt ${attempt} of 5 (List webhooks): the server is limiting this account's requests (HTTP 429, Retry-After: 0).\n`,
        )
        .join('') +
        'jobhooks-as-code: List webhooks was still rate limited after several waits (HTTP 429: Too many requests); run it again later.\n',
    );
  } finally {
    await webPage.close();
    await limited.close();
  }
});

test('plan --json names each changed field, each deletion and each warning', async () => {
  write(
    'webhooks.yml',
    `webhooks:\n  kept:\n    name: Kept\n    client_url: ${NOWHERE}\n    event_types: [job.run.started]\n`,
  );
  await api.create({ name: 'Kept [[kept]]', client_url: NOWHERE, event_types: ['job.run.errored'], job_ids: [3] });
  const gone = await api.create({ name: 'Gone [[gone]]', client_url: NOWHERE, event_types: ['job.run.started'] });
  const run = await asCode(['plan', 'webhooks.yml', '--json']);
  expectOk(run);
  const plan = JSON.parse(run.stdout) as Record<string, unknown>;
  expect(plan).toMatchObject({
    host_url: hostUrl,
    account_id: 1,
    namespace: null,
    changes: [
      {
        action: 'update',
        key: 'kept',
        fields: [
          { field: 'event_types', old: ['job.run.errored'], new: ['job.run.started'] },
          { field: 'job_ids', old: [3], new: [] },
        ],
      },
      { action: 'delete', key: 'gone', webhook_id: gone.id, name: 'Gone [[gone]]', reason: 'removed' },
    ],
    warnings: [],
    summary: { create: 0, update: 1, reactivate: 0, delete: 1, unchanged: 0 },
  });
});

test('import --link asks on a terminal, and an --output that cannot be written stops it before any rename', async () => {
  const made = await api.create({ name: 'Made in the UI', client_url: NOWHERE, event_types: ['job.run.started'] });
  const unwritable = await asCode(['import', '--link', '--auto-approve', '--output', 'no-such-folder/webhooks.yml']);
  expectOk(unwritable, 1);
  expect(unwritable.stderr).toBe(
    'jobhooks-as-code: --output no-such-folder/webhooks.yml cannot be written (ENOENT); nothing was renamed.\n',
  );
  expect((await api.get(made.id))?.name).toBe('Made in the UI');

  const declined = terminal('no');
  expect(await runCli(['import', '--link', '--output', 'declined.yml'], declined.io)).toBe(1);
  expect(declined.asked).toEqual(['Rename them? Only "yes" goes ahead: ']);
  expect((await api.get(made.id))?.name).toBe('Made in the UI');
  expect(() => statSync(join(dir, 'declined.yml'))).toThrow();

  const accepted = terminal('yes');
  expect(await runCli(['import', '--link', '--output', 'linked.yml'], accepted.io)).toBe(0);
  expect((await api.get(made.id))?.name).toBe('Made in the UI [[made-in-the-ui]]');
  expect(accepted.out.join('')).toContain('linked made-in-the-ui (');
  expect(readFileSync(join(dir, 'linked.yml'), 'utf8')).toContain('  made-in-the-ui:\n    name: Made in the UI\n');
});
