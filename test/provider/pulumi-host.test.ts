// The Webhook provider driven through Pulumi's own dynamic-provider host over gRPC, the way the engine drives it:
// this runs the real closure serialization of the provider, where dynamic providers usually break.
import * as grpc from '@grpc/grpc-js';
import { type ChildProcess, spawn } from 'node:child_process';
import * as pulumi from '@pulumi/pulumi';
import * as providerRpc from '@pulumi/pulumi/proto/provider_grpc_pb';
import * as providerProto from '@pulumi/pulumi/proto/provider_pb';
import { Struct } from 'google-protobuf/google/protobuf/struct_pb';
import { serializableProvider } from '../../provider/pulumi/src/webhook';
import { createWebhooksClient } from '@jobhooks/client';
import { ingest } from '../support/events';
import { ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { answer, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';
import { closePulumiInspector } from '../support/pulumi-inspector';

const URN = 'urn:pulumi:test::jobhooks::pulumi-nodejs:dynamic/jobhooks:Webhook::team';
type Props = Record<string, unknown>;

let h: Harness;
let hostUrl: string;
let host: ChildProcess;
let client: providerRpc.ResourceProviderClient;
let serialized: string;

beforeAll(async () => {
  // As pulumi.dynamic.Resource does it: the provider object is built here and the host gets `() => provider`.
  const provider = serializableProvider();
  serialized = (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text;
});
afterAll(closePulumiInspector);

beforeEach(async () => {
  h = await startHarness();
  hostUrl = await h.listen();
  host = spawn(process.execPath, [require.resolve('@pulumi/pulumi/cmd/dynamic-provider'), '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve) =>
    host.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())),
  );
  client = new providerRpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
});
afterEach(async () => {
  client.close();
  host.kill();
  await h.close();
});

/** Calls one RPC of the host and resolves with its response. */
function rpc<Res>(call: (callback: (error: grpc.ServiceError | null, response: Res) => void) => unknown): Promise<Res> {
  return new Promise((resolve, reject) => call((error, response) => (error ? reject(error) : resolve(response))));
}
const struct = (props: Props) => Struct.fromJavaScript(props as Parameters<typeof Struct.fromJavaScript>[0]);
const withProvider = (props: Props) => ({ ...props, __provider: serialized });

async function configure(config: Props) {
  await rpc<providerProto.ConfigureResponse>((callback) =>
    client.configure(new providerProto.ConfigureRequest().setArgs(struct(config)), callback),
  );
}

const inputs = { name: 'team', clientUrl: 'https://hooks.example.com/team', eventTypes: ['job.run.completed'] };

test('check, create, read, diff, update and delete through the host, with the token only in the config', async () => {
  await configure({ 'jobhooks:baseUrl': hostUrl, 'jobhooks:accountId': '1', 'jobhooks:token': ADMIN_TOKEN });

  const checked = await rpc<providerProto.CheckResponse>((callback) =>
    client.check(
      new providerProto.CheckRequest()
        .setUrn(URN)
        .setOlds(struct({}))
        .setNews(struct(withProvider(inputs))),
      callback,
    ),
  );
  expect(checked.getFailuresList()).toEqual([]);

  const created = await rpc<providerProto.CreateResponse>((callback) =>
    client.create(new providerProto.CreateRequest().setUrn(URN).setProperties(struct(withProvider(inputs))), callback),
  );
  const id = created.getId();
  const outs = created.getProperties()!.toJavaScript() as Props;
  expect(id).toMatch(/^wsu_/);
  expect(outs).toMatchObject({ webhookId: id, name: 'team', active: true, archived: false, httpStatusCode: '0' });
  expect(outs.hmacSecret).toMatch(/^[0-9a-f]{64}$/);
  expect(JSON.stringify(outs)).not.toContain(ADMIN_TOKEN);

  const read = await rpc<providerProto.ReadResponse>((callback) =>
    client.read(
      new providerProto.ReadRequest()
        .setId(id)
        .setUrn(URN)
        .setProperties(struct(withProvider(outs))),
      callback,
    ),
  );
  expect(read.getId()).toBe(id);
  expect(read.getProperties()!.toJavaScript()).toMatchObject({ name: 'team', hmacSecret: outs.hmacSecret });
  expect(JSON.stringify(read.getInputs()!.toJavaScript())).not.toContain(ADMIN_TOKEN);

  const news = withProvider({ ...inputs, jobIds: [5], active: false });
  const diff = await rpc<providerProto.DiffResponse>((callback) =>
    client.diff(
      new providerProto.DiffRequest()
        .setId(id)
        .setUrn(URN)
        .setOlds(struct(withProvider(outs)))
        .setNews(struct(news)),
      callback,
    ),
  );
  expect(diff.getChanges()).toBe(providerProto.DiffResponse.DiffChanges.DIFF_SOME);
  expect(diff.getReplacesList()).toEqual([]);

  const updated = await rpc<providerProto.UpdateResponse>((callback) =>
    client.update(
      new providerProto.UpdateRequest()
        .setId(id)
        .setUrn(URN)
        .setOlds(struct(withProvider(outs)))
        .setNews(struct(news)),
      callback,
    ),
  );
  expect(updated.getProperties()!.toJavaScript()).toMatchObject({
    jobIds: [5],
    active: false,
    hmacSecret: outs.hmacSecret,
  });

  // A new secretRotation: an update in place that rotates the secret.
  const before = updated.getProperties()!.toJavaScript() as Props;
  const rotation = withProvider({ ...inputs, jobIds: [5], active: false, secretRotation: '2026-11' });
  const rotationDiff = await rpc<providerProto.DiffResponse>((callback) =>
    client.diff(
      new providerProto.DiffRequest().setId(id).setUrn(URN).setOlds(struct(before)).setNews(struct(rotation)),
      callback,
    ),
  );
  expect(rotationDiff.getChanges()).toBe(providerProto.DiffResponse.DiffChanges.DIFF_SOME);
  expect(rotationDiff.getReplacesList()).toEqual([]);
  const rotated = await rpc<providerProto.UpdateResponse>((callback) =>
    client.update(
      new providerProto.UpdateRequest().setId(id).setUrn(URN).setOlds(struct(before)).setNews(struct(rotation)),
      callback,
    ),
  );
  const rotatedProps = rotated.getProperties()!.toJavaScript() as Props;
  expect(rotatedProps).toMatchObject({
    webhookId: id,
    secretRotation: '2026-11',
    previousSecretExpiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
  });
  expect(rotatedProps.hmacSecret).toMatch(/^[0-9a-f]{64}$/);
  expect(rotatedProps.hmacSecret).not.toBe(outs.hmacSecret);

  await rpc<unknown>((callback) =>
    client.delete(
      new providerProto.DeleteRequest()
        .setId(id)
        .setUrn(URN)
        .setProperties(struct(withProvider(outs))),
      callback,
    ),
  );
  expect(await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).get(id)).toBeNull();
  const gone = await rpc<providerProto.ReadResponse>((callback) =>
    client.read(
      new providerProto.ReadRequest()
        .setId(id)
        .setUrn(URN)
        .setProperties(struct(withProvider(outs))),
      callback,
    ),
  );
  expect(gone.getId()).toBe('');
});

test('through the host, a refresh shows archiving and an update with active true reactivates', async () => {
  await configure({ 'jobhooks:baseUrl': hostUrl, 'jobhooks:accountId': '1', 'jobhooks:token': ADMIN_TOKEN });
  const receiver = await startReceiver(answer(410));
  try {
    const declared = { ...inputs, clientUrl: `${receiver.url}/gone` };
    const created = await rpc<providerProto.CreateResponse>((callback) =>
      client.create(
        new providerProto.CreateRequest().setUrn(URN).setProperties(struct(withProvider(declared))),
        callback,
      ),
    );
    const id = created.getId();
    await ingest(h, 'job.run.completed');
    await waitFor(
      async () =>
        (await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).get(id))?.archived === true,
      'archiving',
    );

    const refreshed = await rpc<providerProto.ReadResponse>((callback) =>
      client.read(
        new providerProto.ReadRequest()
          .setId(id)
          .setUrn(URN)
          .setProperties(struct(withProvider(created.getProperties()!.toJavaScript() as Props))),
        callback,
      ),
    );
    const archived = refreshed.getProperties()!.toJavaScript() as Props;
    expect(archived).toMatchObject({ active: false, archived: true, httpStatusCode: '410' });

    const news = withProvider({ ...declared, active: true });
    const diff = await rpc<providerProto.DiffResponse>((callback) =>
      client.diff(
        new providerProto.DiffRequest()
          .setId(id)
          .setUrn(URN)
          .setOlds(struct(withProvider(archived)))
          .setNews(struct(news)),
        callback,
      ),
    );
    expect(diff.getChanges()).toBe(providerProto.DiffResponse.DiffChanges.DIFF_SOME);
    const updated = await rpc<providerProto.UpdateResponse>((callback) =>
      client.update(
        new providerProto.UpdateRequest()
          .setId(id)
          .setUrn(URN)
          .setOlds(struct(withProvider(archived)))
          .setNews(struct(news)),
        callback,
      ),
    );
    expect(updated.getProperties()!.toJavaScript()).toMatchObject({ active: true, archived: false });
  } finally {
    await receiver.close();
  }
});

test("maxRequestsPerSecond (jobhooks' own) through the host: checked, created, read, changed and removed in place", async () => {
  await configure({ 'jobhooks:baseUrl': hostUrl, 'jobhooks:accountId': '1', 'jobhooks:token': ADMIN_TOKEN });
  const api = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const check = async (news: Props) =>
    (
      await rpc<providerProto.CheckResponse>((callback) =>
        client.check(
          new providerProto.CheckRequest()
            .setUrn(URN)
            .setOlds(struct({}))
            .setNews(struct(withProvider(news))),
          callback,
        ),
      )
    )
      .getFailuresList()
      .map((failure) => [failure.getProperty(), failure.getReason()]);
  const message = 'max_requests_per_second must be a whole number from 1 to 100, or null for no limit';
  for (const bad of [0, 101, 2.5, '5'])
    expect(await check({ ...inputs, maxRequestsPerSecond: bad })).toEqual([['maxRequestsPerSecond', message]]);
  expect(await check({ ...inputs, maxRequestsPerSecond: 5 })).toEqual([]);

  const created = await rpc<providerProto.CreateResponse>((callback) =>
    client.create(
      new providerProto.CreateRequest()
        .setUrn(URN)
        .setProperties(struct(withProvider({ ...inputs, maxRequestsPerSecond: 5 }))),
      callback,
    ),
  );
  const id = created.getId();
  const outs = created.getProperties()!.toJavaScript() as Props;
  expect(outs).toMatchObject({ webhookId: id, maxRequestsPerSecond: 5 });
  expect((await api.get(id))?.max_requests_per_second).toBe(5);

  const read = await rpc<providerProto.ReadResponse>((callback) =>
    client.read(
      new providerProto.ReadRequest()
        .setId(id)
        .setUrn(URN)
        .setProperties(struct(withProvider(outs))),
      callback,
    ),
  );
  expect(read.getProperties()!.toJavaScript()).toMatchObject({ maxRequestsPerSecond: 5 });
  expect(read.getInputs()!.toJavaScript()).toMatchObject({ maxRequestsPerSecond: 5 });

  /** A diff then an update from `olds` to `news`; the outputs after it, and a second diff that finds nothing. */
  const change = async (olds: Props, news: Props) => {
    const diff = (against: Props) =>
      rpc<providerProto.DiffResponse>((callback) =>
        client.diff(
          new providerProto.DiffRequest()
            .setId(id)
            .setUrn(URN)
            .setOlds(struct(withProvider(against)))
            .setNews(struct(withProvider(news))),
          callback,
        ),
      );
    const before = await diff(olds);
    expect(before.getChanges()).toBe(providerProto.DiffResponse.DiffChanges.DIFF_SOME);
    expect(before.getReplacesList()).toEqual([]);
    const updated = await rpc<providerProto.UpdateResponse>((callback) =>
      client.update(
        new providerProto.UpdateRequest()
          .setId(id)
          .setUrn(URN)
          .setOlds(struct(withProvider(olds)))
          .setNews(struct(withProvider(news))),
        callback,
      ),
    );
    const after = updated.getProperties()!.toJavaScript() as Props;
    expect((await diff(after)).getChanges()).toBe(providerProto.DiffResponse.DiffChanges.DIFF_NONE);
    return after;
  };
  const raised = await change(outs, { ...inputs, maxRequestsPerSecond: 20 });
  expect(raised).toMatchObject({ webhookId: id, maxRequestsPerSecond: 20, hmacSecret: outs.hmacSecret });
  expect((await api.get(id))?.max_requests_per_second).toBe(20);

  // Removed from the program: the webhook has no rate again, and the output says null.
  const removed = await change(raised, inputs);
  expect(removed).toMatchObject({ webhookId: id, maxRequestsPerSecond: null });
  expect(await api.get(id)).not.toHaveProperty('max_requests_per_second');
});

test('check failures come back by property through the host', async () => {
  await configure({ 'jobhooks:baseUrl': hostUrl, 'jobhooks:accountId': '1', 'jobhooks:token': ADMIN_TOKEN });
  const request = new providerProto.CheckRequest()
    .setUrn(URN)
    .setOlds(struct({}))
    .setNews(struct(withProvider({ ...inputs, clientUrl: 'nope', eventTypes: [] })));
  const checked = await rpc<providerProto.CheckResponse>((callback) => client.check(request, callback));
  expect(
    checked
      .getFailuresList()
      .map((f) => f.getProperty())
      .sort(),
  ).toEqual(['clientUrl', 'eventTypes']);
});

test('without configuration the host reports which settings are missing', async () => {
  await configure({});
  const error = await rpc<providerProto.CreateResponse>((callback) =>
    client.create(new providerProto.CreateRequest().setUrn(URN).setProperties(struct(withProvider(inputs))), callback),
  ).catch((e: unknown) => e);
  expect(String((error as Error).message)).toMatch(/The jobhooks provider is not configured: set jobhooks:baseUrl/);
});
