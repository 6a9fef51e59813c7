// The Pulumi OperationalEndpoint provider's methods called directly, as the engine would, against a real service
// (and against a stand-in for dbt Cloud, which has no operational endpoints API).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as pulumi from '@pulumi/pulumi';
import { createWebhooksClient } from '@jobhooks/client';
import {
  createOperationalEndpointProvider,
  type OperationalEndpointInputs,
  type OperationalEndpointOutputs,
} from '../../provider/pulumi/src/operational-endpoint-provider';
import { ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { configured } from '../support/pulumi-config';

let h: Harness;
let hostUrl: string;
let provider: Required<pulumi.dynamic.ResourceProvider>;
beforeAll(async () => {
  h = await startHarness();
  hostUrl = await h.listen();
  provider = await configured(createOperationalEndpointProvider({}), hostUrl);
});
afterAll(() => h.close());

const api = () => createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).operationalEndpoints;

// Nothing is delivered in these tests; the URLs are loopback all the same.
const declared = (overrides: Partial<OperationalEndpointInputs> = {}): OperationalEndpointInputs => ({
  name: 'platform-on-call',
  clientUrl: 'http://127.0.0.1:9/operational',
  eventTypes: ['webhook.archived', 'delivery.exhausted'],
  ...overrides,
});
/** The declared endpoint with the API's defaults filled in, as the outputs and a refresh's inputs hold it. */
const asHeld = { ...declared(), description: '', active: true };

test('the lifecycle: create, refresh, update in place keeping the secret, rotate, delete, then read as gone', async () => {
  const inputs = declared();
  expect((await provider.check({}, inputs)).failures).toEqual([]);
  const created = await provider.create(inputs);
  const outs = created.outs as OperationalEndpointOutputs;
  expect(outs).toEqual({
    ...asHeld,
    endpointId: created.id,
    hmacSecret: expect.stringMatching(/^[0-9a-f]{64}$/),
    previousSecretExpiresAt: null,
    httpStatusCode: '0',
    archived: false,
  });
  // It is an operational endpoint of the account, not a webhook.
  expect(await api().get(created.id)).toMatchObject({ name: 'platform-on-call', event_types: inputs.eventTypes });
  expect(await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).get(created.id)).toBeNull();

  // A refresh keeps the secret the API showed once; its inputs leave out what the server made.
  expect(await provider.read(created.id, outs)).toEqual({
    id: created.id,
    props: outs,
    inputs: asHeld,
  });
  expect((await provider.diff(created.id, outs, declared({ description: '', active: true }))).changes).toBe(false);

  const changed = declared({ description: 'pages the platform team', eventTypes: ['webhook.circuit_opened'] });
  expect(await provider.diff(created.id, outs, changed)).toEqual({
    changes: true,
    replaces: [],
    deleteBeforeReplace: false,
  });
  const updated = (await provider.update(created.id, outs, changed)).outs as OperationalEndpointOutputs;
  expect(updated).toMatchObject({
    endpointId: created.id,
    description: 'pages the platform team',
    eventTypes: ['webhook.circuit_opened'],
    hmacSecret: outs.hmacSecret,
  });
  expect(await api().get(created.id)).toMatchObject({ event_types: ['webhook.circuit_opened'] });

  // A new secretRotation rotates the endpoint's secret through its own rotation endpoint.
  const rotation = declared({ ...changed, secretRotation: '2026-11', secretOverlapSeconds: 60 });
  expect((await provider.diff(created.id, updated, rotation)).changes).toBe(true);
  const rotated = (await provider.update(created.id, updated, rotation)).outs as OperationalEndpointOutputs;
  expect(rotated.hmacSecret).toMatch(/^[0-9a-f]{64}$/);
  expect(rotated.hmacSecret).not.toBe(outs.hmacSecret);
  expect(rotated).toMatchObject({ secretRotation: '2026-11', secretOverlapSeconds: 60 });
  expect(Date.parse(rotated.previousSecretExpiresAt!) / 1000 - Date.now() / 1000).toBeCloseTo(60, -1);
  expect((await api().get(created.id))?.previous_secret_expires_at).toMatch(/^\d+$/);

  await provider.delete(created.id, rotated);
  expect(await api().get(created.id)).toBeNull();
  expect(await provider.read(created.id, rotated)).toEqual({ id: '' });
});

test('an endpoint deleted outside Pulumi reads as gone, and deleting it again succeeds', async () => {
  const { id, outs } = await provider.create(declared());
  expect(await api().delete(id)).toBe(true);
  expect(await provider.read(id, outs)).toEqual({ id: '' });
  await expect(provider.delete(id, outs)).resolves.toBeUndefined();
});

test('adoption takes over an existing endpoint by id and makes it what the program declares', async () => {
  const existing = await api().create({
    name: 'made by hand',
    client_url: 'http://127.0.0.1:9/old',
    event_types: ['webhook.failing'],
  });
  const adopted = await provider.create(declared({ adoptEndpointId: existing.id }));
  expect(adopted.id).toBe(existing.id);
  expect(adopted.outs).toMatchObject({
    endpointId: existing.id,
    name: 'platform-on-call',
    eventTypes: ['webhook.archived', 'delivery.exhausted'],
    adoptEndpointId: existing.id,
    // The API showed the secret once, to whoever made it by hand.
    hmacSecret: '',
  });
  expect(await api().get(existing.id)).toMatchObject({
    name: 'platform-on-call',
    client_url: 'http://127.0.0.1:9/operational',
  });
  expect((await provider.diff(existing.id, adopted.outs, declared({ adoptEndpointId: existing.id }))).changes).toBe(
    false,
  );
  expect((await provider.diff(existing.id, adopted.outs, declared({ adoptEndpointId: 'oep_other' }))).replaces).toEqual(
    ['adoptEndpointId'],
  );
  await expect(provider.create(declared({ adoptEndpointId: 'oep_missing' }))).rejects.toThrow(
    'Cannot adopt operational endpoint oep_missing: it does not exist in this account.',
  );
  await api().delete(existing.id);
});

test("check refuses an event type that is not an operational one, in the contract's words", async () => {
  const { failures } = await provider.check({}, declared({ eventTypes: ['webhook.archived', 'job.run.completed'] }));
  expect(failures).toEqual([
    {
      property: 'eventTypes',
      reason:
        'event_types may contain only webhook.archived, webhook.failing, webhook.circuit_opened, webhook.recovered, delivery.exhausted',
    },
  ]);
  const several = await provider.check({}, declared({ eventTypes: [], name: ' ' }));
  expect(several.failures!.map((failure) => failure.property).sort()).toEqual(['eventTypes', 'name']);
});

test('a new clientUrl on an endpoint that stays inactive is refused; moving and deactivating at once ends inactive', async () => {
  const olds = { clientUrl: 'http://127.0.0.1:9/a', active: false } as Partial<OperationalEndpointOutputs>;
  const refused = await provider.check(olds, declared({ clientUrl: 'http://127.0.0.1:9/b', active: false }));
  expect(refused.failures).toEqual([
    {
      property: 'clientUrl',
      reason:
        'Cannot change clientUrl while active is false: the service reactivates any operational endpoint whose URL changes. Set active: true in the same change.',
    },
  ]);

  const { id, outs } = await provider.create(declared());
  const moved = declared({ clientUrl: 'http://127.0.0.1:9/moved', active: false });
  expect((await provider.check(outs, moved)).failures).toEqual([]);
  // The API reactivates on a URL change, so a single PUT would come back active: the update takes two.
  expect((await provider.update(id, outs, moved)).outs).toMatchObject({ clientUrl: moved.clientUrl, active: false });
  expect(await api().get(id)).toMatchObject({ client_url: moved.clientUrl, active: false });
  await api().delete(id);
});

test("against a host without the API (dbt Cloud answers 404), create fails saying operational endpoints are jobhooks' own", async () => {
  // dbt Cloud's answer to a route it does not have.
  const dbtCloud: Server = createServer((_request, response) => {
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status: { code: 404, is_success: false, user_message: 'Not found.' }, data: null }));
  });
  await new Promise<void>((resolve) => dbtCloud.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = dbtCloud.address() as AddressInfo;
    const connection = { hostUrl: `http://127.0.0.1:${port}/api`, accountId: 1, token: 'dbt-token' };
    await expect(provider.create(declared({ connection }))).rejects.toThrow(
      "Cannot create the operational endpoint: the host answered 404 Not Found, so it has no operational endpoints API; operational endpoints are jobhooks' own (dbt Cloud has none), so point the connection at a jobhooks service.",
    );
  } finally {
    await new Promise((resolve) => dbtCloud.close(resolve));
  }
});
