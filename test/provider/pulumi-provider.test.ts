// The Pulumi dynamic provider's methods called directly, as the engine would, against a real service.
import type * as pulumi from '@pulumi/pulumi';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createWebhooksClient } from '@jobhooks/client';
import { createClients, REQUEST_TIMEOUT_MS, resolveConnection } from '../../provider/pulumi/src/connection';
import {
  createWebhookProvider,
  type WebhookInputs,
  type WebhookOutputs,
} from '../../provider/pulumi/src/webhook-provider';
import { ingest } from '../support/events';
import { ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { configured } from '../support/pulumi-config';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine } from '../support/signature';
import { waitFor } from '../support/wait';

let h: Harness;
let receiver: Receiver;
let hostUrl: string;
let provider: Required<pulumi.dynamic.ResourceProvider>;
beforeEach(async () => {
  h = await startHarness();
  hostUrl = await h.listen();
  receiver = await startReceiver();
  provider = await configured(createWebhookProvider({}), hostUrl);
});
afterEach(async () => {
  await receiver.close();
  await h.close();
});

const declared = (overrides: Partial<WebhookInputs> = {}): WebhookInputs => ({
  name: 'data-team',
  clientUrl: `${receiver.url}/hook`,
  eventTypes: ['job.run.completed', 'job.run.errored'],
  ...overrides,
});

test('the full lifecycle: create, refresh, update in place, archive, reactivate, delete', async () => {
  const inputs = declared();
  expect((await provider.check({}, inputs)).failures).toEqual([]);
  const created = await provider.create(inputs);
  const outs = created.outs as WebhookOutputs;
  expect(created.id).toMatch(/^wsu_/);
  expect(outs).toMatchObject({
    webhookId: created.id,
    name: 'data-team',
    description: '',
    jobIds: [],
    active: true,
    archived: false,
    httpStatusCode: '0',
    accountIdentifier: expect.stringMatching(/^act_/),
  });
  expect(outs.hmacSecret).toMatch(/^[0-9a-f]{64}$/);

  const refreshed = await provider.read(created.id, outs);
  expect(refreshed).toEqual({
    id: created.id,
    props: outs,
    inputs: expect.objectContaining({ name: 'data-team', active: true }),
  });
  expect((await provider.diff(created.id, outs, inputs)).changes).toBe(false);

  const changed = declared({ name: 'renamed', jobIds: [7, 3], description: 'runs of two jobs' });
  expect(await provider.diff(created.id, outs, changed)).toEqual({
    changes: true,
    replaces: [],
    deleteBeforeReplace: false,
  });
  const updated = (await provider.update(created.id, outs, changed)).outs as WebhookOutputs;
  expect(updated).toMatchObject({
    name: 'renamed',
    jobIds: [7, 3],
    description: 'runs of two jobs',
    hmacSecret: outs.hmacSecret,
  });

  // The service archives it after a 410; a refresh shows it, and the next update with active: true reactivates it.
  receiver.respondWith(answer(410));
  await ingest(h, 'job.run.completed', { jobId: '7' });
  await waitFor(
    async () =>
      (await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).get(created.id))?.archived === true,
    'archiving',
  );
  const archived = (await provider.read(created.id, updated)).props as WebhookOutputs;
  expect(archived).toMatchObject({ active: false, archived: true, httpStatusCode: '410' });
  const again = declared({ name: 'renamed', jobIds: [7, 3], description: 'runs of two jobs', active: true });
  expect((await provider.diff(created.id, archived, again)).changes).toBe(true);
  const reactivated = (await provider.update(created.id, archived, again)).outs as WebhookOutputs;
  expect(reactivated).toMatchObject({ active: true, archived: false });

  await provider.delete(created.id, reactivated);
  expect(await provider.read(created.id, reactivated)).toEqual({ id: '' });
});

test('a new secretRotation rotates hmacSecret in place: during the overlap both secrets sign, Authorization the old', async () => {
  const created = await provider.create(declared());
  const id = created.id;
  const outs = created.outs as WebhookOutputs;
  expect(outs.previousSecretExpiresAt).toBeNull();
  const update = async (olds: WebhookOutputs, news: WebhookInputs) => {
    expect(await provider.diff(id, olds, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const next = (await provider.update(id, olds, news)).outs as WebhookOutputs;
    expect((await provider.diff(id, next, news)).changes).toBe(false);
    return next;
  };

  // The overlap alone rotates nothing.
  const overlapOnly = await update(outs, declared({ secretOverlapSeconds: 3600 }));
  expect(overlapOnly).toMatchObject({ hmacSecret: outs.hmacSecret, secretOverlapSeconds: 3600 });

  // Set where there was none: a rotation, the webhook kept.
  const news = declared({ secretOverlapSeconds: 3600, secretRotation: '2026-11' });
  const rotated = await update(overlapOnly, news);
  expect(rotated).toMatchObject({
    webhookId: id,
    secretRotation: '2026-11',
    hmacSecret: expect.stringMatching(/^[0-9a-f]{64}$/),
  });
  expect(rotated.hmacSecret).not.toBe(outs.hmacSecret);
  // An `up` run again from the state before it (its answer was lost, so the state kept the old inputs) gets the same
  // rotation's secret, and rotates nothing again.
  const rerun = (await provider.update(id, overlapOnly, news)).outs as WebhookOutputs;
  expect(rerun.hmacSecret).toBe(rotated.hmacSecret);
  // jobhooks' own time, readable in the stack's outputs: RFC 3339, not the API's microsecond digits.
  expect(rotated.previousSecretExpiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  expect(Date.parse(rotated.previousSecretExpiresAt!) / 1000 - Date.now() / 1000).toBeCloseTo(3600, -2);
  expect((await provider.read(id, rotated)).props).toEqual(rotated);
  // Outputs an earlier version wrote hold microsecond digits: the next update writes them in RFC 3339.
  const earlier = { ...rotated, previousSecretExpiresAt: '1700000000000000' };
  const carried = await update(
    earlier,
    declared({ secretOverlapSeconds: 3600, secretRotation: '2026-11', description: 'kept' }),
  );
  expect(carried.previousSecretExpiresAt).toBe('2023-11-14T22:13:20.000000Z');

  // A Standard Webhooks receiver verifies with the new secret, a dbt receiver still with the old one.
  expect(await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).test(id)).toMatchObject({
    verification_status_code: '200',
  });
  const sent = receiver.requests.at(-1)!;
  expect(String(sent.headers['webhook-signature']).split(' ')).toEqual([
    expect.stringMatching(/^v1,/),
    expect.stringMatching(/^v1,/),
  ]);
  expect(isGenuine(outs.hmacSecret, sent.body, sent.headers.authorization)).toBe(true);
  const standard = new StandardWebhook(Buffer.from(rotated.hmacSecret).toString('base64'));
  expect(() => standard.verify(sent.body.toString(), sent.headers as Record<string, string>)).not.toThrow();

  // Another value rotates again (0: at once); removing it rotates nothing.
  const again = await update(rotated, declared({ secretOverlapSeconds: 0, secretRotation: '2026-12' }));
  expect(again.hmacSecret).not.toBe(rotated.hmacSecret);
  expect(again.previousSecretExpiresAt).toBeNull();
  // An earlier value again, within the day a rotation's key is kept, is another rotation: the state's secret moved on.
  const back = await update(again, declared({ secretOverlapSeconds: 3600, secretRotation: '2026-11' }));
  expect(back.hmacSecret).not.toBe(again.hmacSecret);
  const removed = await update(back, declared({ secretOverlapSeconds: 3600 }));
  expect(removed.hmacSecret).toBe(back.hmacSecret);
  expect(removed).not.toHaveProperty('secretRotation');
});

test("check refuses an invalid secretOverlapSeconds with the rotation endpoint's own message", async () => {
  expect((await provider.check({}, declared({ secretOverlapSeconds: 604801 }))).failures).toEqual([
    { property: 'secretOverlapSeconds', reason: 'overlap_seconds must be at most 604800 (7 days)' },
  ]);
  expect((await provider.check({}, declared({ secretOverlapSeconds: -1 }))).failures).toEqual([
    { property: 'secretOverlapSeconds', reason: 'overlap_seconds must not be negative' },
  ]);
});

test('a webhook deleted outside Pulumi reads as gone, and deleting it again succeeds', async () => {
  const { id, outs } = await provider.create(declared());
  await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).delete(id);
  expect(await provider.read(id, outs)).toEqual({ id: '' });
  await expect(provider.delete(id, outs)).resolves.toBeUndefined();
});

test('adoption takes over an existing webhook by id and makes it what the program declares', async () => {
  const existing = await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).create({
    name: 'made by hand',
    client_url: 'https://hooks.example.com/old',
    event_types: ['job.run.started'],
  });
  const adopted = await provider.create(declared({ adoptWebhookId: existing.id }));
  expect(adopted.id).toBe(existing.id);
  expect(adopted.outs).toMatchObject({
    name: 'data-team',
    clientUrl: `${receiver.url}/hook`,
    adoptWebhookId: existing.id,
    hmacSecret: '',
  });
  expect((await provider.diff(existing.id, adopted.outs, declared({ adoptWebhookId: existing.id }))).changes).toBe(
    false,
  );
  expect(
    (await provider.diff(existing.id, adopted.outs, declared({ adoptWebhookId: 'wsu_01HAAAAAAAAAAAAAAAAAAAAAAA' })))
      .replaces,
  ).toEqual(['adoptWebhookId']);
  await expect(provider.create(declared({ adoptWebhookId: 'wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ' }))).rejects.toThrow(
    /Cannot adopt webhook wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ: it does not exist/,
  );
});

test('adopting the webhook a resource already manages replaces nothing, and a replacement that adopts it keeps it', async () => {
  const { id, outs } = await provider.create(declared());
  // Writing down, as adoptWebhookId, the id the resource already has is no other webhook.
  expect(await provider.diff(id, outs as WebhookOutputs, declared({ adoptWebhookId: id }))).toEqual({
    changes: false,
    replaces: [],
    deleteBeforeReplace: false,
  });
  // A replacement (create before delete) whose new resource adopts that id: the engine then deletes the old
  // resource's id, which is the webhook the new one has just taken over. It stays.
  const replacement = await provider.create(declared({ adoptWebhookId: id, description: 'taken over' }));
  expect(replacement.id).toBe(id);
  await provider.delete(id, outs);
  expect(await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).get(id)).toMatchObject({
    description: 'taken over',
  });
  // Deleting the resource that holds it now, in a later run (another provider process), deletes it.
  const later = await configured(createWebhookProvider({}), hostUrl);
  await later.delete(id, replacement.outs);
  expect(await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).get(id)).toBeNull();
});

test.each([
  ['a URL that is not http(s)', { clientUrl: 'ftp://example.com/x' }, 'clientUrl'],
  ['no event types', { eventTypes: [] }, 'eventTypes'],
  ['an unknown event type', { eventTypes: ['job.run.paused'] }, 'eventTypes'],
  ['a repeated job id', { jobIds: [1, 1] }, 'jobIds'],
  ['a negative job id', { jobIds: [-4] }, 'jobIds'],
  ['a blank name', { name: '  ' }, 'name'],
  ['a name over 255 characters', { name: 'n'.repeat(256) }, 'name'],
  ['a description over 1,024 characters', { description: 'd'.repeat(1025) }, 'description'],
])('check refuses %s, naming the property', async (_name, overrides, property) => {
  const { failures } = await provider.check({}, declared(overrides as Partial<WebhookInputs>));
  expect(failures).toEqual([{ property, reason: expect.any(String) }]);
});

test('check reports every failure at once', async () => {
  const { failures } = await provider.check({}, declared({ clientUrl: 'nope', eventTypes: [], name: '' }));
  expect(failures!.map((f) => f.property).sort()).toEqual(['clientUrl', 'eventTypes', 'name']);
});

test('check refuses a clientUrl change while active is false, and allows it with active true', async () => {
  const olds = { clientUrl: 'https://hooks.example.com/a', active: false } as Partial<WebhookOutputs>;
  const refused = await provider.check(olds, declared({ clientUrl: 'https://hooks.example.com/b', active: false }));
  expect(refused.failures).toEqual([
    { property: 'clientUrl', reason: expect.stringMatching(/^Cannot change clientUrl while active is false/) },
  ]);
  expect(
    (await provider.check(olds, declared({ clientUrl: 'https://hooks.example.com/b', active: true }))).failures,
  ).toEqual([]);
});

test('check allows moving an active webhook and deactivating it in one change; update ends in exactly that state', async () => {
  const { id, outs } = await provider.create(declared());
  const moved = declared({ clientUrl: 'https://hooks.example.com/moved', active: false });
  expect((await provider.check(outs, moved)).failures).toEqual([]);
  // The API reactivates on a URL change, so a single PUT would come back active: the update takes two.
  const updated = (await provider.update(id, outs, moved)).outs as WebhookOutputs;
  expect(updated).toMatchObject({ clientUrl: 'https://hooks.example.com/moved', active: false });
  expect(await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).get(id)).toMatchObject({
    client_url: 'https://hooks.example.com/moved',
    active: false,
  });
});

test('check skips values that are not known yet during a preview', async () => {
  const unknown = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';
  expect((await provider.check({}, declared({ clientUrl: unknown }))).failures).toEqual([]);
});

test('diff treats omitted optional inputs as their defaults', async () => {
  const { id, outs } = await provider.create(declared());
  expect((await provider.diff(id, outs, declared({ description: '', jobIds: [], active: true }))).changes).toBe(false);
  expect(
    (await provider.diff(id, outs, declared({ eventTypes: ['job.run.errored', 'job.run.completed'] }))).changes,
  ).toBe(true);
});

describe('connection', () => {
  test('falls back to the DBT_CLOUD_* environment variables', () => {
    expect(
      resolveConnection(undefined, {
        DBT_CLOUD_HOST_URL: 'http://h/api',
        DBT_CLOUD_ACCOUNT_ID: '3',
        DBT_CLOUD_TOKEN: 't',
      }),
    ).toEqual({
      hostUrl: 'http://h/api',
      accountId: 3,
      token: 't',
    });
  });

  test('names every missing setting and both ways to give it', async () => {
    const unconfigured = createWebhookProvider({}) as Required<pulumi.dynamic.ResourceProvider>;
    await expect(unconfigured.create(declared())).rejects.toThrow(
      'The jobhooks provider is not configured: set jobhooks:baseUrl or dbtcloud:hostUrl (or DBT_CLOUD_HOST_URL), jobhooks:accountId or dbtcloud:accountId (or DBT_CLOUD_ACCOUNT_ID), jobhooks:token or dbtcloud:token (or DBT_CLOUD_TOKEN), or give the resource a connection.',
    );
  });

  test("reads pulumi-dbtcloud's config names, and jobhooks' own first when both are set", () => {
    const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });
    const dbtcloud = { 'dbtcloud:hostUrl': 'http://dbt/api', 'dbtcloud:accountId': '7', 'dbtcloud:token': 'dbt-token' };
    expect(resolveConnection(config(dbtcloud), {})).toEqual({
      hostUrl: 'http://dbt/api',
      accountId: 7,
      token: 'dbt-token',
    });
    expect(resolveConnection(config({ ...dbtcloud, 'jobhooks:accountId': '8' }), {})).toEqual({
      hostUrl: 'http://dbt/api',
      accountId: 8,
      token: 'dbt-token',
    });
  });

  test('a resource with its own connection lives in that account, and the stack config is not needed for it', async () => {
    const otherToken = await h.token('Account Admin', 2);
    const unconfigured = createWebhookProvider({}) as Required<pulumi.dynamic.ResourceProvider>;
    await unconfigured.configure({ config: { get: () => undefined, require: () => '' } });
    const connection = { hostUrl, accountId: 2, token: otherToken };
    const inputs = declared({ connection });
    expect((await unconfigured.check({}, inputs)).failures).toEqual([]);
    const { id, outs } = await unconfigured.create(inputs);
    expect(outs).toMatchObject({ connection });
    const account2 = createWebhooksClient({ hostUrl, accountId: 2, token: otherToken });
    expect(await account2.get(id)).toMatchObject({ name: 'data-team' });
    expect(await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).get(id)).toBeNull();

    expect((await unconfigured.read(id, outs)).id).toBe(id);
    const diffToAccount1 = await unconfigured.diff(
      id,
      outs as WebhookOutputs,
      declared({ connection: { ...connection, accountId: 1, token: ADMIN_TOKEN } }),
    );
    expect(diffToAccount1).toMatchObject({ changes: true, replaces: ['connection'] });
    const newToken = await unconfigured.diff(
      id,
      outs as WebhookOutputs,
      declared({ connection: { ...connection, token: ADMIN_TOKEN } }),
    );
    expect(newToken).toMatchObject({ changes: true, replaces: [] });
    // The same API written with trailing slashes is the same place.
    const sameApi = await unconfigured.diff(
      id,
      outs as WebhookOutputs,
      declared({ connection: { ...connection, hostUrl: `${hostUrl}//` } }),
    );
    expect(sameApi).toMatchObject({ changes: true, replaces: [] });

    await unconfigured.delete(id, outs);
    expect(await account2.get(id)).toBeNull();
  });

  test("a connection giving the stack's own API and account moves nothing, either way; another account is replaced", async () => {
    const { id, outs } = await provider.create(declared());
    const stacks = { hostUrl: `${hostUrl}/`, accountId: 1, token: ADMIN_TOKEN };
    const toOwn = await provider.diff(id, outs as WebhookOutputs, declared({ connection: stacks }));
    expect(toOwn).toMatchObject({ changes: true, replaces: [] });
    const own = { ...(outs as WebhookOutputs), connection: stacks };
    expect(await provider.diff(id, own, declared())).toMatchObject({ changes: true, replaces: [] });
    const elsewhere = { ...stacks, accountId: 2 };
    expect(await provider.diff(id, outs as WebhookOutputs, declared({ connection: elsewhere }))).toMatchObject({
      replaces: ['connection'],
    });
  });

  test('a connection not known yet (a preview) is a change, not a failure and not yet a replacement', async () => {
    const { id, outs } = await provider.create(declared());
    const unknown = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';
    for (const connection of [unknown, { hostUrl: unknown, accountId: 1, token: ADMIN_TOKEN }])
      expect(
        await provider.diff(id, outs as WebhookOutputs, declared({ connection } as unknown as Partial<WebhookInputs>)),
      ).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  test('an incomplete connection is a check failure on that property', async () => {
    const { failures } = await provider.check({}, declared({ connection: { hostUrl, accountId: 0, token: '' } }));
    expect(failures).toEqual([{ property: 'connection', reason: 'connection needs token' }]);
    const badAccount = await provider.check({}, declared({ connection: { hostUrl, accountId: -1, token: 't' } }));
    expect(badAccount.failures).toEqual([
      { property: 'connection', reason: 'connection.accountId must be a positive whole number, not "-1"' },
    ]);
    // A token broken across lines is named, not shown; so is the stack's.
    const broken = await provider.check(
      {},
      declared({ connection: { hostUrl, accountId: 1, token: 'jhk_a\nSECRET' } }),
    );
    expect(broken.failures).toEqual([
      {
        property: 'connection',
        reason:
          'connection.token: the token holds a space, line break or other character inside it that no API token has (pasted across lines?); it is not shown here.',
      },
    ]);
    expect(() =>
      resolveConnection(undefined, { DBT_CLOUD_HOST_URL: hostUrl, DBT_CLOUD_ACCOUNT_ID: '1', DBT_CLOUD_TOKEN: 'a b' }),
    ).toThrow(
      'jobhooks:token: the token holds a space, line break or other character inside it that no API token has (pasted across lines?); it is not shown here.',
    );
  });

  test("a server that takes the request and never answers fails it at the request's time limit (30 s by default)", async () => {
    expect(REQUEST_TIMEOUT_MS).toBe(30_000);
    const silent = await startReceiver(() => undefined);
    try {
      const own = { hostUrl: `${silent.url}/api`, accountId: 1, token: ADMIN_TOKEN };
      const client = createClients({}, { timeoutMs: 200, maxAttempts: 1 }).of(own);
      await expect(client.get('wsu_x')).rejects.toThrow(
        /^Read webhook wsu_x failed: could not reach .* \(.*timeout.*\)$/,
      );
    } finally {
      await silent.close();
    }
  });

  test('refuses an account id that is not a number', () => {
    expect(() =>
      resolveConnection(undefined, { DBT_CLOUD_HOST_URL: 'x', DBT_CLOUD_ACCOUNT_ID: 'abc', DBT_CLOUD_TOKEN: 't' }),
    ).toThrow(/positive whole number/);
  });
});
