// The example Pulumi program under pulumi.runtime.setMocks: the mock rehydrates each resource's serialized
// provider, exactly as the provider host would, and applies it to a live service.
import Module from 'node:module';
import * as pulumi from '@pulumi/pulumi';
import { createWebhooksClient } from '@jobhooks/client';
import { ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { stackConfig } from '../support/pulumi-config';
import { closePulumiInspector } from '../support/pulumi-inspector';

let h: Harness;
let hostUrl: string;
beforeAll(async () => {
  h = await startHarness();
  hostUrl = await h.listen();
});
afterAll(async () => {
  await closePulumiInspector();
  await h.close();
});

interface RegisterRequest {
  getType(): string;
  getAdditionalsecretoutputsList(): string[];
}

/** Loads a serialized provider the way Pulumi's host does (require-from-string): a module compiled from text. */
function rehydrate(serialized: string): Required<pulumi.dynamic.ResourceProvider> {
  const loader = new Module('serialized-provider') as Module & { _compile(code: string, filename: string): void };
  loader.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(process.cwd());
  loader._compile(serialized, '');
  return (loader.exports as { handler: () => Required<pulumi.dynamic.ResourceProvider> }).handler();
}

function outputValue<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((value) => resolve(value)));
}

/**
 * Mocks the engine: each registered resource's serialized provider is rehydrated, checked and created against the
 * live service. Returns the ids created and, by resource type, what each registration asks the engine to keep
 * secret (additionalSecretOutputs travels in each registration request).
 */
async function mockEngine(): Promise<{ created: string[]; secretOutputs: Record<string, string[][]> }> {
  const created: string[] = [];
  const secretOutputs: Record<string, string[][]> = {};
  await pulumi.runtime.setMocks(
    {
      newResource: async ({ inputs }) => {
        const { __provider: serialized, ...declared } = inputs as Record<string, unknown>;
        const provider = rehydrate(serialized as string);
        await provider.configure({ config: stackConfig(hostUrl) });
        const { failures } = await provider.check({}, declared);
        if (failures && failures.length > 0) throw new Error(JSON.stringify(failures));
        const { id, outs } = await provider.create(declared);
        created.push(id);
        return { id, state: outs };
      },
      call: async () => ({}),
    },
    'jobhooks-example',
    'test',
    false,
  );
  const monitor = pulumi.runtime.getMonitor() as unknown as {
    registerResource: (req: RegisterRequest, callback: unknown) => unknown;
  };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) => {
    const type = req.getType().split(':').at(-1)!;
    (secretOutputs[type] ??= []).push(req.getAdditionalsecretoutputsList());
    return register(req, callback);
  };
  return { created, secretOutputs };
}

test('the example program creates its three webhooks through its own serialized providers', async () => {
  const { created, secretOutputs } = await mockEngine();
  // Loaded only now, after setMocks, as the Pulumi language host would run it.
  const program = require('../../examples/pulumi/index') as typeof import('../../examples/pulumi/index.js');
  const ids = await outputValue(pulumi.output(program.webhookIds));
  expect(Object.values(ids).sort()).toEqual([...created].sort());

  const client = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const webhooks = (await client.list()).data;
  expect(webhooks.map((w) => [w.name, w.event_types, w.job_ids])).toEqual(
    expect.arrayContaining([
      ['All completed runs', ['job.run.completed'], []],
      ['nightly-jobs', ['job.run.started', 'job.run.completed'], ['101', '102']],
      ['Errored runs to on-call', ['job.run.errored'], []],
    ]),
  );
  expect(webhooks).toHaveLength(3);
  // Placeholder URLs: every example webhook is inactive, so no event is sent to hosts that are not the user's.
  expect(webhooks.map((w) => w.active)).toEqual([false, false, false]);
  const secrets = (await outputValue(pulumi.output(program.hmacSecrets))) as Record<string, string>;
  expect(Object.values(secrets).every((secret) => /^[0-9a-f]{64}$/.test(secret))).toBe(true);
  // The exported secrets are secret in the program, and every Webhook asks the engine to keep hmacSecret secret.
  expect(await pulumi.isSecret(program.hmacSecrets)).toBe(true);
  expect(secretOutputs.Webhook).toEqual([
    ['hmacSecret', 'connection'],
    ['hmacSecret', 'connection'],
    ['hmacSecret', 'connection'],
  ]);
});

test('a program declares an OperationalEndpoint: the service holds it, and its hmacSecret is kept secret', async () => {
  const { created, secretOutputs } = await mockEngine();
  const { OperationalEndpoint } = require('@jobhooks/pulumi') as typeof import('@jobhooks/pulumi');
  const endpoint = new OperationalEndpoint('platform-on-call', {
    clientUrl: 'http://127.0.0.1:9/operational',
    eventTypes: ['webhook.archived', 'webhook.failing'],
    active: false,
  });
  const id = await outputValue(endpoint.endpointId);
  expect(created).toEqual([id]);
  const client = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  expect(await client.operationalEndpoints.get(id)).toMatchObject({
    name: 'platform-on-call',
    event_types: ['webhook.archived', 'webhook.failing'],
    active: false,
  });
  expect(await outputValue(endpoint.hmacSecret)).toMatch(/^[0-9a-f]{64}$/);
  // The engine (not the mocks) applies it: the registration asks it to keep hmacSecret secret.
  expect(secretOutputs.OperationalEndpoint).toEqual([['hmacSecret', 'connection']]);
});
