// The example Pulumi program under pulumi.runtime.setMocks: the mock rehydrates each resource's serialized
// provider, exactly as the provider host would, and applies it to a live service.
import Module from 'node:module';
import * as pulumi from '@pulumi/pulumi';
import { createWebhooksClient } from '@jobhooks/client';
import { ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
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

test('the example program creates its three webhooks through its own serialized providers', async () => {
  const config: Record<string, string> = {
    'jobhooks:baseUrl': hostUrl,
    'jobhooks:accountId': '1',
    'jobhooks:token': ADMIN_TOKEN,
  };
  const created: string[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: async ({ inputs }) => {
        const { __provider: serialized, ...declared } = inputs as Record<string, unknown>;
        const provider = rehydrate(serialized as string);
        await provider.configure({
          config: { get: (key: string) => config[key], require: (key: string) => config[key]! },
        });
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
  // What the engine is asked to keep secret: additionalSecretOutputs travels in each registration request.
  const monitor = pulumi.runtime.getMonitor() as unknown as {
    registerResource: (req: RegisterRequest, callback: unknown) => unknown;
  };
  const register = monitor.registerResource.bind(monitor);
  const secretOutputs: string[][] = [];
  monitor.registerResource = (req, callback) => {
    if (req.getType().endsWith(':Webhook')) secretOutputs.push(req.getAdditionalsecretoutputsList());
    return register(req, callback);
  };
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
  expect(secretOutputs).toEqual([
    ['hmacSecret', 'connection'],
    ['hmacSecret', 'connection'],
    ['hmacSecret', 'connection'],
  ]);
});
