// The public provider's own acceptance lifecycle for dbtcloud_webhook, as plain HCL steps run by the real
// terraform binary through this project's provider against a real service on 127.0.0.1; plus archiving,
// out-of-band deletion and import; and jobhooks' own dbtcloud_operational_endpoint's lifecycle. After every apply a
// second plan must show no changes.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createWebhooksClient } from '@jobhooks/client';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { ingest } from '../support/events';
import { ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine } from '../support/signature';
import {
  createTerraformWorkspace,
  providerBlock,
  type TerraformResult,
  type TerraformWorkspace,
} from '../support/terraform';
import { waitFor } from '../support/wait';

jest.setTimeout(240_000);

const ADDRESS = 'dbtcloud_webhook.test_webhook';
let harness: Harness;
let receiver: Receiver;
let workspace: TerraformWorkspace;
let hostUrl: string;
let init: TerraformResult;

beforeAll(async () => {
  harness = await startHarness();
  hostUrl = await harness.listen();
  receiver = await startReceiver(answer(200));
  workspace = await createTerraformWorkspace();
  // Once for the file, so every test can also run on its own.
  workspace.write(
    'main.tf',
    webhookConfig('  name = "x"\n  client_url = "http://127.0.0.1:9"\n  event_types = ["job.run.completed"]'),
  );
  init = await workspace.must(['init', '-input=false']);
});
afterAll(async () => {
  workspace?.close();
  await receiver?.close();
  await harness?.close();
});

const api = () => createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });

function webhookConfig(attributes: string): string {
  return `${providerBlock(hostUrl, ADMIN_TOKEN)}
resource "dbtcloud_webhook" "test_webhook" {
${attributes}
}
`;
}

const ENDPOINT = 'dbtcloud_operational_endpoint.ops';

function endpointConfig(attributes: string): string {
  return `${providerBlock(hostUrl, ADMIN_TOKEN)}
resource "dbtcloud_operational_endpoint" "ops" {
${attributes}
}
`;
}

/** Applies the configuration (a webhook's, or another resource's), then proves a second plan has nothing to do. */
async function applyAndSettle(
  attributes: string,
  { config = webhookConfig, address = ADDRESS } = {},
): Promise<Record<string, unknown>> {
  workspace.write('main.tf', config(attributes));
  await workspace.must(['apply', '-auto-approve', '-input=false']);
  await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 0);
  return (await workspace.attributes(address))!;
}

test('init works offline from the mirror that "jobhooks terraform install" lays out', async () => {
  expect(workspace.installOutput).toMatch(/^export TF_CLI_CONFIG_FILE=\/.+terraform\.rc$/m);
  expect(init.stdout).toMatch(/Installing dbt-labs\/dbtcloud v1\.12\.0/);
  expect(init.stdout).toMatch(/Terraform has been successfully initialized/);
});

test('the acceptance lifecycle: create, modify, refuse a URL change while inactive, reactivate, import, destroy', async () => {
  // Step 1: name, description, URL, two event types, no jobs.
  const created = await applyAndSettle(`  name        = "webhook-one"
  description = "My webhook"
  client_url  = "http://127.0.0.1:9"
  event_types = ["job.run.started", "job.run.completed"]`);
  expect(created).toMatchObject({
    name: 'webhook-one',
    client_url: 'http://127.0.0.1:9',
    event_types: ['job.run.started', 'job.run.completed'],
    active: true,
  });
  expect(created.job_ids ?? []).toEqual([]);
  expect(created.hmac_secret).toMatch(/\S{16,}/);
  expect(created.account_identifier).toMatch(/\S+/);
  const id = created.id as string;
  expect(id).toMatch(/^wsu_/);
  expect(await api().get(id)).toMatchObject({ name: 'webhook-one', active: true });

  // Step 2: new name and URL, one event type, one job id, inactive.
  const modified = await applyAndSettle(`  name        = "webhook-two"
  description = "My webhook"
  client_url  = "http://127.0.0.1:9/test"
  event_types = ["job.run.completed"]
  job_ids     = [42]
  active      = false`);
  expect(modified).toMatchObject({
    id,
    name: 'webhook-two',
    client_url: 'http://127.0.0.1:9/test',
    event_types: ['job.run.completed'],
    job_ids: [42],
    active: false,
  });
  expect(modified.hmac_secret).toBe(created.hmac_secret);
  expect(await api().get(id)).toMatchObject({ name: 'webhook-two', active: false, job_ids: ['42'] });

  // Step 3: a new URL while inactive is refused at plan time, and nothing changes.
  workspace.write(
    'main.tf',
    webhookConfig(`  name        = "webhook-two"
  client_url  = "http://127.0.0.1:9/elsewhere"
  event_types = ["job.run.completed"]
  job_ids     = [42]
  active      = false`),
  );
  const refused = await workspace.must(['plan', '-input=false'], 1);
  expect(refused.stderr).toMatch(/Cannot change client_url while active=false/);
  expect(refused.stderr).toMatch(/client_url\s+=\s+"http:\/\/127\.0\.0\.1:9\/elsewhere"/);
  expect((await api().get(id))?.client_url).toBe('http://127.0.0.1:9/test');

  // Step 4: the same change with active = true is an in-place update; the omitted description clears.
  const reactivated = await applyAndSettle(`  name        = "webhook-two"
  client_url  = "${receiver.url}/hooks"
  event_types = ["job.run.completed"]
  job_ids     = [42]
  active      = true`);
  expect(reactivated).toMatchObject({ id, client_url: `${receiver.url}/hooks`, active: true, description: '' });
  expect(await api().get(id)).toMatchObject({ active: true, archived: false, description: '' });

  // Step 5: import by id gives the same state, the secret aside (it is known from create only).
  await workspace.must(['state', 'rm', ADDRESS]);
  const imported = await workspace.must(['import', '-input=false', ADDRESS, id]);
  expect(imported.stdout).toMatch(/Import successful/);
  const afterImport = (await workspace.attributes(ADDRESS))!;
  const { hmac_secret: _before, ...expected } = reactivated;
  expect(afterImport).toMatchObject({ ...expected, hmac_secret: null });
  await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 0);

  // Step 6: destroy, then the API answers 404.
  await workspace.must(['destroy', '-auto-approve', '-input=false']);
  expect(await api().get(id)).toBeNull();
});

test("max_requests_per_second (jobhooks' own): set at create, changed, kept by an import, removed; unset stays null", async () => {
  const base = `  name        = "rated"
  client_url  = "http://127.0.0.1:9/rated"
  event_types = ["job.run.completed"]`;
  // Without the attribute the state holds null and the webhook has no rate.
  const unset = await applyAndSettle(base);
  const id = unset.id as string;
  expect(unset.max_requests_per_second).toBeNull();
  expect(await api().get(id)).not.toHaveProperty('max_requests_per_second');

  const created = await applyAndSettle(`${base}\n  max_requests_per_second = 5`);
  expect(created).toMatchObject({ id, max_requests_per_second: 5 });
  expect((await api().get(id))?.max_requests_per_second).toBe(5);

  workspace.write('main.tf', webhookConfig(`${base}\n  max_requests_per_second = 20`));
  const plan = await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 2);
  expect(plan.stdout).toMatch(/~ max_requests_per_second\s+= 5 -> 20/);
  expect(plan.stdout).toMatch(/1 to change, 0 to destroy/);
  const changed = await applyAndSettle(`${base}\n  max_requests_per_second = 20`);
  expect(changed).toMatchObject({ id, max_requests_per_second: 20 });
  expect((await api().get(id))?.max_requests_per_second).toBe(20);

  await workspace.must(['state', 'rm', ADDRESS]);
  await workspace.must(['import', '-input=false', ADDRESS, id]);
  expect((await workspace.attributes(ADDRESS))!.max_requests_per_second).toBe(20);
  await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 0);

  workspace.write('main.tf', webhookConfig(base));
  const removal = await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 2);
  expect(removal.stdout).toMatch(/- max_requests_per_second\s+= 20 -> null/);
  const removed = await applyAndSettle(base);
  expect(removed.max_requests_per_second).toBeNull();
  expect(await api().get(id)).not.toHaveProperty('max_requests_per_second');
  await workspace.must(['destroy', '-auto-approve', '-input=false']);
});

test('a webhook archived by the service refreshes as active = false, and the next apply reactivates it', async () => {
  receiver.respondWith(answer(200));
  const created = await applyAndSettle(`  name        = "archived-later"
  client_url  = "${receiver.url}/gone"
  event_types = ["job.run.completed"]`);
  const id = created.id as string;

  receiver.respondWith(answer(410));
  await ingest(harness, 'job.run.completed');
  await waitFor(async () => (await api().get(id))?.archived === true, 'archiving after a 410');

  const drift = await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 2);
  expect(drift.stdout).toMatch(/~ active\s+= false -> true/);
  expect(drift.stdout).toMatch(/1 to change/);
  receiver.respondWith(answer(200));
  await workspace.must(['apply', '-auto-approve', '-input=false']);
  expect(await api().get(id)).toMatchObject({ active: true, archived: false });
  await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 0);
  await workspace.must(['destroy', '-auto-approve', '-input=false']);
});

test('a change made outside Terraform shows as drift and the next apply puts the declared values back', async () => {
  const declared = `  name        = "declared-name"
  client_url  = "http://127.0.0.1:9/drift"
  event_types = ["job.run.completed"]`;
  const created = await applyAndSettle(declared);
  const id = created.id as string;
  await api().update(id, {
    name: 'renamed by hand',
    client_url: 'http://127.0.0.1:9/drift',
    event_types: ['job.run.completed', 'job.run.errored'],
  });

  const drift = await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 2);
  expect(drift.stdout).toMatch(/~ name\s+= "renamed by hand" -> "declared-name"/);
  expect(drift.stdout).toMatch(/- "job\.run\.errored"/);
  await applyAndSettle(declared);
  expect(await api().get(id)).toMatchObject({ name: 'declared-name', event_types: ['job.run.completed'] });
  await workspace.must(['destroy', '-auto-approve', '-input=false']);
});

test('a webhook deleted out of band leaves the state on refresh and is created again', async () => {
  const created = await applyAndSettle(`  name        = "deleted-by-hand"
  client_url  = "http://127.0.0.1:9/hand"
  event_types = ["job.run.errored"]
  job_ids     = [7, 3]`);
  expect(await api().delete(created.id as string)).toBe(true);

  const plan = await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 2);
  expect(plan.stdout).toMatch(/will be created/);
  const again = await applyAndSettle(`  name        = "deleted-by-hand"
  client_url  = "http://127.0.0.1:9/hand"
  event_types = ["job.run.errored"]
  job_ids     = [7, 3]`);
  expect(again.id).not.toBe(created.id);
  expect(again.job_ids).toEqual([7, 3]);
  await workspace.must(['destroy', '-auto-approve', '-input=false']);
});

test('a new secret_rotation rotates hmac_secret in place: during the overlap both secrets sign, Authorization the old', async () => {
  receiver.respondWith(answer(200));
  const declared = `  name                   = "rotating"
  client_url             = "${receiver.url}/rotating"
  event_types            = ["job.run.completed"]
  secret_overlap_seconds = 3600`;
  workspace.write('main.tf', webhookConfig(declared));
  await workspace.must(['apply', '-auto-approve', '-input=false']);
  const created = (await workspace.attributes(ADDRESS))!;
  const id = created.id as string;
  const oldSecret = created.hmac_secret as string;
  expect(created).toMatchObject({ secret_rotation: null, previous_secret_expires_at: null });

  // The plan: an update in place, the secret and its overlap known only after apply.
  workspace.write('main.tf', webhookConfig(`${declared}\n  secret_rotation        = "2026-11"`));
  await workspace.must(['plan', '-input=false', '-out=rotate.tfplan']);
  const plan = JSON.parse((await workspace.must(['show', '-json', 'rotate.tfplan'])).stdout) as {
    resource_changes: Array<{ change: { actions: string[]; after_unknown: Record<string, unknown> } }>;
  };
  expect(plan.resource_changes.map(({ change }) => change.actions)).toEqual([['update']]);
  expect(plan.resource_changes[0]!.change.after_unknown).toMatchObject({
    hmac_secret: true,
    previous_secret_expires_at: true,
  });
  await workspace.must(['apply', '-input=false', 'rotate.tfplan']);
  await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 0);
  const rotated = (await workspace.attributes(ADDRESS))!;
  expect(rotated).toMatchObject({ id, secret_rotation: '2026-11', secret_overlap_seconds: 3600 });
  expect(rotated.hmac_secret).toMatch(/^[0-9a-f]{64}$/);
  expect(rotated.hmac_secret).not.toBe(oldSecret);
  // jobhooks' own time, readable in the state and in plans: RFC 3339, not the API's microsecond digits.
  const expiresAt = rotated.previous_secret_expires_at as string;
  expect(expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  expect(Date.parse(expiresAt) / 1000 - Date.now() / 1000).toBeCloseTo(3600, -2);

  // A Standard Webhooks receiver verifies with the new secret, a dbt receiver still with the old one.
  expect(await api().test(id)).toMatchObject({ verification_status_code: '200' });
  const sent = receiver.requests.at(-1)!;
  expect(String(sent.headers['webhook-signature']).split(' ')).toEqual([
    expect.stringMatching(/^v1,/),
    expect.stringMatching(/^v1,/),
  ]);
  expect(isGenuine(oldSecret, sent.body, sent.headers.authorization)).toBe(true);
  const standard = new StandardWebhook(Buffer.from(rotated.hmac_secret as string).toString('base64'));
  expect(() => standard.verify(sent.body.toString(), sent.headers as Record<string, string>)).not.toThrow();

  // A state an earlier version wrote holds the time as microsecond digits: it is upgraded before the plan, so an
  // apply that carries it over (no refresh) writes what it planned, in RFC 3339.
  const statePath = join(workspace.dir, 'terraform.tfstate');
  const stored = JSON.parse(readFileSync(statePath, 'utf8')) as {
    serial: number;
    resources: Array<{ instances: Array<{ attributes: Record<string, unknown> }> }>;
  };
  const micros = `${BigInt(Date.parse(expiresAt)) * 1000n + BigInt(expiresAt.slice(23, 26))}`;
  stored.resources[0]!.instances[0]!.attributes.previous_secret_expires_at = micros;
  stored.serial += 1;
  writeFileSync(statePath, JSON.stringify(stored));
  workspace.write(
    'main.tf',
    webhookConfig(`${declared}\n  secret_rotation        = "2026-11"\n  description = "kept"`),
  );
  await workspace.must(['apply', '-auto-approve', '-input=false', '-refresh=false']);
  expect((await workspace.attributes(ADDRESS))!.previous_secret_expires_at).toBe(expiresAt);
  await workspace.must(['destroy', '-auto-approve', '-input=false']);
});

test("the data source reads a webhook by id, its delivery rate (jobhooks' own) included", async () => {
  const created = await api().create({
    name: 'read-me',
    client_url: 'http://127.0.0.1:9/read',
    event_types: ['job.run.started'],
    job_ids: [5],
    max_requests_per_second: 7,
  });
  workspace.write(
    'main.tf',
    `${providerBlock(hostUrl, ADMIN_TOKEN)}
data "dbtcloud_webhook" "read" {
  webhook_id = ${JSON.stringify(created.id)}
}
output "read" {
  value = {
    id          = data.dbtcloud_webhook.read.id
    name        = data.dbtcloud_webhook.read.name
    client_url  = data.dbtcloud_webhook.read.client_url
    event_types = data.dbtcloud_webhook.read.event_types
    job_ids     = data.dbtcloud_webhook.read.job_ids
    active      = data.dbtcloud_webhook.read.active
    rate        = data.dbtcloud_webhook.read.max_requests_per_second
  }
}
`,
  );
  await workspace.must(['apply', '-auto-approve', '-input=false']);
  const output = await workspace.must(['output', '-json', 'read']);
  expect(JSON.parse(output.stdout)).toEqual({
    id: created.id,
    name: 'read-me',
    client_url: 'http://127.0.0.1:9/read',
    event_types: ['job.run.started'],
    job_ids: [5],
    active: true,
    rate: 7,
  });
});

test("dbtcloud_operational_endpoint (jobhooks' own): create, update in place, rotate, refresh after an out-of-band delete, import, destroy", async () => {
  const endpoint = { config: endpointConfig, address: ENDPOINT };
  const endpoints = () => api().operationalEndpoints;
  const created = await applyAndSettle(
    `  name        = "ops-one"
  client_url  = "http://127.0.0.1:9/ops"
  event_types = ["webhook.archived", "delivery.exhausted"]`,
    endpoint,
  );
  expect(created).toMatchObject({
    name: 'ops-one',
    description: '',
    client_url: 'http://127.0.0.1:9/ops',
    event_types: ['webhook.archived', 'delivery.exhausted'],
    active: true,
    http_status_code: expect.any(String),
    previous_secret_expires_at: null,
  });
  const id = created.id as string;
  expect(created.endpoint_id).toBe(id);
  expect(created.hmac_secret).toMatch(/^[0-9a-f]{64}$/);
  expect(await endpoints().get(id)).toMatchObject({ name: 'ops-one', active: true });

  // In place: the same id and secret, new fields, inactive.
  const moved = `  name        = "ops-two"
  description = "Pages the data team"
  client_url  = "http://127.0.0.1:9/ops-two"
  event_types = ["webhook.failing"]
  active      = false`;
  workspace.write('main.tf', endpointConfig(moved));
  const update = await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 2);
  expect(update.stdout).toMatch(/will be updated in-place/);
  expect(update.stdout).toMatch(/0 to add, 1 to change, 0 to destroy/);
  const updated = await applyAndSettle(moved, endpoint);
  expect(updated).toMatchObject({ id, name: 'ops-two', event_types: ['webhook.failing'], active: false });
  expect(updated.hmac_secret).toBe(created.hmac_secret);
  expect(await endpoints().get(id)).toMatchObject({
    name: 'ops-two',
    description: 'Pages the data team',
    client_url: 'http://127.0.0.1:9/ops-two',
    active: false,
  });

  // The webhook's rule: a new URL while it stays inactive is refused at plan time, at client_url.
  workspace.write('main.tf', endpointConfig(moved.replace('/ops-two', '/ops-three')));
  const refused = await workspace.must(['plan', '-input=false'], 1);
  expect(refused.stderr).toMatch(/Cannot change client_url while active=false/);
  expect(refused.stderr).toMatch(/The operational endpoint is inactive and would stay so/);
  expect(refused.stderr).toMatch(/client_url\s+=\s+"http:\/\/127\.0\.0\.1:9\/ops-three"/);

  // A new secret_rotation rotates the secret in place.
  const rotated = await applyAndSettle(`${moved}\n  secret_rotation = "2026-11"`, endpoint);
  expect(rotated).toMatchObject({ id, secret_rotation: '2026-11' });
  expect(rotated.hmac_secret).toMatch(/^[0-9a-f]{64}$/);
  expect(rotated.hmac_secret).not.toBe(created.hmac_secret);
  expect(rotated.previous_secret_expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

  // Deleted outside Terraform: the refresh removes it from the state, and the plan creates it again.
  expect(await endpoints().delete(id)).toBe(true);
  const gone = await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 2);
  expect(gone.stdout).toMatch(/dbtcloud_operational_endpoint\.ops will be created/);
  const again = await applyAndSettle(moved, endpoint);
  expect(again.id).not.toBe(id);

  // Import by id: the same state, the secret aside (known from create only).
  await workspace.must(['state', 'rm', ENDPOINT]);
  expect((await workspace.must(['import', '-input=false', ENDPOINT, again.id as string])).stdout).toMatch(
    /Import successful/,
  );
  const { hmac_secret: _secret, ...expected } = again;
  expect(await workspace.attributes(ENDPOINT)).toEqual({ ...expected, hmac_secret: null });
  await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 0);

  await workspace.must(['destroy', '-auto-approve', '-input=false']);
  expect(await endpoints().get(again.id as string)).toBeNull();
});

test('dbtcloud_operational_endpoint: a job-run event type, or no event type, is refused at plan time at event_types', async () => {
  workspace.write(
    'main.tf',
    `${endpointConfig('  name = "job-runs"\n  client_url = "http://127.0.0.1:9/a"\n  event_types = ["job.run.completed"]')}
resource "dbtcloud_operational_endpoint" "none" {
  name        = "nothing"
  client_url  = "http://127.0.0.1:9/b"
  event_types = []
}
`,
  );
  const refused = await workspace.must(['plan', '-input=false'], 1);
  // Each error block, its lines joined (terraform wraps long details): the attribute's line, then the API's words.
  const errors = refused.stderr
    .split(/(?=Error: )/)
    .filter((block) => block.startsWith('Error: '))
    .map((block) => block.replace(/\s+/g, ' '));
  expect(errors).toHaveLength(2);
  expect(errors).toEqual(
    expect.arrayContaining([
      expect.stringContaining(
        'event_types = ["job.run.completed"] event_types may contain only webhook.archived, webhook.failing, webhook.circuit_opened, webhook.recovered, delivery.exhausted',
      ),
      expect.stringContaining('event_types = [] event_types needs at least one event type'),
    ]),
  );
  expect(
    errors.every((error) => error.startsWith('Error: Invalid event_types with dbtcloud_operational_endpoint.')),
  ).toBe(true);
});

test('dbtcloud_operational_endpoint against a host without the operational endpoints API (as dbt Cloud) fails in one sentence', async () => {
  // A stand-in for dbt Cloud, which answers 404 on the operational endpoints route (it has no such API).
  const paths: string[] = [];
  const dbtCloud = createServer((request, response) => {
    paths.push(`${request.method} ${request.url}`);
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status: { code: 404, is_success: false, user_message: 'Not found.' }, data: null }));
  });
  await new Promise<void>((listening) => dbtCloud.listen(0, '127.0.0.1', listening));
  try {
    const { port } = dbtCloud.address() as AddressInfo;
    workspace.write(
      'main.tf',
      `${providerBlock(`http://127.0.0.1:${port}/api`, ADMIN_TOKEN).replace('host_url', 'skip_credentials_validation = true\n  host_url')}
resource "dbtcloud_operational_endpoint" "ops" {
  name        = "ops"
  client_url  = "http://127.0.0.1:9/ops"
  event_types = ["webhook.archived"]
}
`,
    );
    const failed = await workspace.must(['apply', '-auto-approve', '-input=false'], 1);
    expect(paths).toEqual(['POST /api/v3/accounts/1/operational-endpoints']);
    const said = failed.stderr.replace(/\s+/g, ' ');
    // The whole of what terraform prints: one error, one sentence, nothing of the client's internals.
    expect(said.trim()).toBe(
      'Error: Unable to create operational endpoint with dbtcloud_operational_endpoint.ops, on main.tf line 17, in resource "dbtcloud_operational_endpoint" "ops": 17: resource "dbtcloud_operational_endpoint" "ops" { Operational endpoints are jobhooks\' own (dbt Cloud has no such API): the host at host_url answered 404 to the operational endpoints API, so dbtcloud_operational_endpoint works only with host_url pointing at a jobhooks service.',
    );
    expect(await workspace.attributes('dbtcloud_operational_endpoint.ops')).toBeNull();
  } finally {
    await new Promise((closed) => dbtCloud.close(closed));
  }
});
