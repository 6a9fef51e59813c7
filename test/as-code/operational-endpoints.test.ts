// jobhooks-as-code managing an account's operational endpoints beside its webhooks, against the real service (its
// own SQLite file, on 127.0.0.1): declared in the same files, planned, applied, changed, deleted and imported; the
// dbt-compatible webhook list never shows them.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebhooksClient, type WebhooksClient } from '@jobhooks/client';
import { ACCOUNT_ID, ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { type AsCodeRun, runAsCode } from './run-as-code';

let h: Harness;
let api: WebhooksClient;
let dir: string;
let env: Record<string, string>;
/** A loopback endpoint nothing listens on: nothing here makes an operational event. */
const NOWHERE = 'http://127.0.0.1:9/ops';

beforeEach(async () => {
  h = await startHarness();
  const hostUrl = await h.listen();
  api = createWebhooksClient({ hostUrl, accountId: ACCOUNT_ID, token: ADMIN_TOKEN, maxAttempts: 1 });
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-as-code-ops-'));
  env = { JOBHOOKS_HOST_URL: hostUrl, JOBHOOKS_ACCOUNT_ID: String(ACCOUNT_ID), JOBHOOKS_TOKEN: ADMIN_TOKEN };
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const asCode = (args: string[]) => runAsCode(args, { cwd: dir, env });
const write = (name: string, text: string) => writeFileSync(join(dir, name), text);

function expectOk(run: AsCodeRun, code = 0) {
  if (run.code !== code)
    throw new Error(`exit ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

/** The plan's change lines, without ids. */
const changeLines = (run: AsCodeRun) =>
  run.stdout
    .split('\n')
    .filter((line) => /^ {2}[-+~^] /.test(line))
    .map((line) => line.trim().replace(/ \(wsu_\w+\).*$/, ''));

const file = (eventTypes: string, endpoints = true) =>
  [
    'namespace: platform',
    'webhooks:',
    '  runs:',
    '    name: Runs',
    `    client_url: ${NOWHERE}`,
    '    event_types: [job.run.errored]',
    'operational_endpoints:',
    ...(endpoints
      ? ['  oncall:', '    name: On call', `    client_url: ${NOWHERE}`, `    event_types: ${eventTypes}`]
      : ['  {}']),
    '',
  ].join('\n');

test("an operational endpoint is planned, created with its secret kept as a webhook's, changed, deleted and imported", async () => {
  write('platform.yml', file('[webhook.archived]'));
  const validated = await asCode(['validate', 'platform.yml']);
  expectOk(validated);
  expect(validated.stdout).toBe('1 webhook and 1 operational endpoint in 1 file (namespace platform): valid.\n');

  const first = await asCode(['plan', 'platform.yml', '--detailed-exitcode']);
  expectOk(first, 2);
  expect(changeLines(first)).toEqual(['+ create platform/runs', '+ create operational endpoint platform/oncall']);

  const applied = await asCode(['apply', 'platform.yml', '--auto-approve', '--secrets-out', 'secrets.json']);
  expectOk(applied);
  const secrets = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')) as Record<string, string>;
  expect(Object.keys(secrets).sort()).toEqual(['operational_endpoints:platform/oncall', 'platform/runs']);
  expect(secrets['operational_endpoints:platform/oncall']).toMatch(/^[0-9a-f]{64}$/);
  expect(applied.stdout).not.toContain(secrets['operational_endpoints:platform/oncall']!);

  const endpoints = (await api.operationalEndpoints.list()).data;
  expect(endpoints).toHaveLength(1);
  expect(endpoints[0]).toMatchObject({
    name: 'On call [[platform/oncall]]',
    client_url: NOWHERE,
    event_types: ['webhook.archived'],
  });
  // The dbt-compatible list shows the webhook only.
  expect((await api.list()).data.map((webhook) => webhook.name)).toEqual(['Runs [[platform/runs]]']);
  const unchanged = await asCode(['plan', 'platform.yml', '--detailed-exitcode']);
  expectOk(unchanged, 0);
  expect(unchanged.stdout).toContain('No changes: 1 webhook and 1 operational endpoint already match the files.');

  write('platform.yml', file('[webhook.archived, delivery.exhausted]'));
  const change = await asCode(['plan', 'platform.yml', '--json']);
  expectOk(change);
  expect((JSON.parse(change.stdout) as { changes: unknown[] }).changes).toEqual([
    {
      kind: 'operational_endpoint',
      action: 'update',
      key: 'platform/oncall',
      endpoint_id: endpoints[0]!.id,
      fields: [{ field: 'event_types', old: ['webhook.archived'], new: ['webhook.archived', 'delivery.exhausted'] }],
    },
  ]);
  expectOk(await asCode(['apply', 'platform.yml', '--auto-approve']));
  expect((await api.operationalEndpoints.get(endpoints[0]!.id))?.event_types).toEqual([
    'webhook.archived',
    'delivery.exhausted',
  ]);

  const imported = await asCode(['import', '--namespace', 'platform']);
  expectOk(imported);
  expect(imported.stdout).toContain(
    [
      'operational_endpoints:',
      '  oncall:',
      '    name: On call',
      `    client_url: ${NOWHERE}`,
      '    event_types:',
      '      - webhook.archived',
      '      - delivery.exhausted',
    ].join('\n'),
  );
  // What import writes plans to no change.
  write('imported.yml', imported.stdout);
  expectOk(await asCode(['plan', 'imported.yml', '--detailed-exitcode']), 0);

  write('platform.yml', file('', false));
  const removal = await asCode(['plan', 'platform.yml']);
  expectOk(removal);
  expect(changeLines(removal)).toEqual(['- delete operational endpoint platform/oncall']);
  expectOk(await asCode(['apply', 'platform.yml', '--auto-approve', '--secrets-out', 'secrets.json']));
  expect((await api.operationalEndpoints.list()).data).toEqual([]);
  expect(Object.keys(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8')) as object)).toEqual(['platform/runs']);
});

test('files without operational_endpoints leave the endpoints alone', async () => {
  await api.operationalEndpoints.create({
    name: 'On call [[oncall]]',
    client_url: NOWHERE,
    event_types: ['webhook.archived'],
  });
  write(
    'webhooks.yml',
    `webhooks:\n  runs:\n    name: Runs\n    client_url: ${NOWHERE}\n    event_types: [job.run.errored]\n`,
  );
  expect(changeLines(await asCode(['plan', 'webhooks.yml']))).toEqual(['+ create runs']);
  write('both.yml', `webhooks: {}\noperational_endpoints: {}\n`);
  expect(changeLines(await asCode(['plan', 'both.yml']))).toEqual(['- delete operational endpoint oncall']);
});

test('files without webhooks leave the webhooks alone: a file of operational endpoints alone deletes none', async () => {
  write('platform.yml', file('[webhook.archived]'));
  expectOk(await asCode(['apply', 'platform.yml', '--auto-approve', '--secrets-out', 'secrets.json']));
  write(
    'endpoints.yml',
    `namespace: platform\noperational_endpoints:\n  pager:\n    name: Pager\n    client_url: ${NOWHERE}\n    event_types: [webhook.archived]\n`,
  );
  const validated = await asCode(['validate', 'endpoints.yml']);
  expectOk(validated);
  expect(validated.stdout).toBe('1 operational endpoint in 1 file (namespace platform): valid.\n');
  // The webhook platform/runs stays; the endpoint platform/oncall, which these files manage, goes.
  const plan = await asCode(['plan', 'endpoints.yml']);
  expectOk(plan);
  expect(changeLines(plan)).toEqual([
    '+ create operational endpoint platform/pager',
    '- delete operational endpoint platform/oncall',
  ]);
  expectOk(await asCode(['apply', 'endpoints.yml', '--auto-approve', '--secrets-out', 'secrets.json']));
  expect((await api.list()).data.map((webhook) => webhook.name)).toEqual(['Runs [[platform/runs]]']);
  const unchanged = await asCode(['plan', 'endpoints.yml']);
  expect(unchanged.stdout).toContain('No changes: 1 operational endpoint already matches the files.');
});

test("a bad event type is reported at its line with the contract's message, and nothing is sent", async () => {
  write('platform.yml', file('[webhook.archived, job.run.errored]'));
  const run = await asCode(['plan', 'platform.yml']);
  expectOk(run, 1);
  expect(run.stderr).toBe(
    'platform.yml:11: oncall: event_types may contain only webhook.archived, webhook.failing, webhook.circuit_opened, ' +
      'webhook.recovered, delivery.exhausted\n' +
      'jobhooks-as-code: 1 problem in the files; nothing was sent to the server.\n',
  );
  write(
    'typo.yml',
    `operational_endpoints:\n  oncall:\n    name: x\n    client_url: ${NOWHERE}\n    event_types: [webhook.archived]\n    job_ids: [1]\n`,
  );
  const typo = await asCode(['validate', 'typo.yml']);
  expect(typo.stderr).toContain(
    'typo.yml:6: oncall: unknown field job_ids: an operational endpoint has name, description, client_url, event_types, active',
  );
});

test("against a server without operational endpoints (as dbt Cloud), files that declare them get one sentence; files that don't, a plan", async () => {
  // A stand-in on 127.0.0.1 for dbt Cloud: an empty webhook list, and 404 on jobhooks' own routes.
  const standIn = createServer((request, response) => {
    const notHere = (request.url ?? '').includes('/operational-endpoints');
    response.writeHead(notHere ? 404 : 200, { 'content-type': 'application/json' });
    const empty = { pagination: { total_count: 0, count: 0 }, filters: { offset: 0, limit: 100 } };
    const body = notHere
      ? { status: { code: 404, is_success: false, user_message: 'Not found.', developer_message: '' }, data: null }
      : { data: [], status: { code: 200 }, extra: empty };
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((listening) => standIn.listen(0, '127.0.0.1', listening));
  const hostUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}/api`;
  try {
    const toStandIn = (args: string[]) => runAsCode(args, { cwd: dir, env: { ...env, JOBHOOKS_HOST_URL: hostUrl } });
    write('platform.yml', file('[webhook.archived]'));
    const refused = await toStandIn(['plan', 'platform.yml']);
    expectOk(refused, 1);
    expect(refused.stderr).toContain(
      `${hostUrl} has no operational endpoints (they are jobhooks' own, not dbt Cloud's); remove "operational_endpoints" from the files to use this server.`,
    );
    write(
      'platform.yml',
      `webhooks:\n  runs:\n    name: Runs\n    client_url: ${NOWHERE}\n    event_types: [job.run.errored]\n`,
    );
    expect(changeLines(await toStandIn(['plan', 'platform.yml']))).toEqual(['+ create runs']);
  } finally {
    await new Promise((closed) => standIn.close(closed));
  }
});
