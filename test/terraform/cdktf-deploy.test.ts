// The CDKTF example, deployed for real: its synthesized stack, plus one operational endpoint (jobhooks' own), goes
// through terraform init/apply/destroy with this project's provider against a real service; and cdktf's own toBeValidTerraform matcher, which runs
// terraform init and validate, passes for a valid stack and fails for one with an unknown attribute.
import { join } from 'node:path';
import { Testing, TerraformOutput, TerraformStack } from 'cdktf';
// Types of the matchers Testing.setupJest() registers (toBeValidTerraform).
import 'cdktf/lib/testing/adapters/jest';
import { createWebhooksClient } from '@jobhooks/client';
import { DbtcloudOperationalEndpoint, DbtcloudProvider, DbtcloudWebhook } from '@jobhooks/cdktf';
import { WebhooksStack } from '../../examples/cdktf/main';
import { ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { useSynthFolders } from '../support/synth-folders';
import { createTerraformWorkspace, type TerraformWorkspace } from '../support/terraform';

jest.setTimeout(180_000);
Testing.setupJest();
const synthFolders = useSynthFolders('cdktf-deploy');
/** An app that writes into this file's synth folders. */
const testingApp = () => Testing.app({ outdir: synthFolders.outdir() });

let harness: Harness;
let hostUrl: string;
let workspace: TerraformWorkspace;

beforeAll(async () => {
  harness = await startHarness();
  hostUrl = await harness.listen();
  // The example takes its connection from the environment, as docs/iac-cdktf.md says.
  workspace = await createTerraformWorkspace({
    DBT_CLOUD_ACCOUNT_ID: '1',
    DBT_CLOUD_TOKEN: ADMIN_TOKEN,
    DBT_CLOUD_HOST_URL: hostUrl,
  });
});
afterAll(async () => {
  workspace?.close();
  await harness?.close();
});

test("the synthesized example stack, with jobhooks' own operational endpoint added, applies, settles, and destroys through the provider", async () => {
  const stack = new WebhooksStack(testingApp(), 'webhooks');
  const endpoint = new DbtcloudOperationalEndpoint(stack, 'ops', {
    name: 'Ops',
    clientUrl: 'http://127.0.0.1:9/ops',
    eventTypes: ['webhook.archived', 'delivery.exhausted'],
  });
  new TerraformOutput(stack, 'ops_id', { value: endpoint.endpointId });
  const outdir = synthFolders.adopt(Testing.fullSynth(stack));
  const stackDir = join(outdir, 'stacks', 'webhooks');
  await workspace.must(['init', '-input=false'], 0, stackDir);
  await workspace.must(['apply', '-auto-approve', '-input=false'], 0, stackDir);
  await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 0, stackDir);

  const outputs = JSON.parse((await workspace.must(['output', '-json'], 0, stackDir)).stdout) as Record<
    string,
    { value: string; sensitive: boolean }
  >;
  expect(outputs.errored_runs_hmac_secret).toMatchObject({ sensitive: true, value: expect.stringMatching(/\S{16,}/) });
  const api = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const nightly = await api.get(outputs.nightly_jobs_id!.value);
  expect(nightly).toMatchObject({
    name: 'Nightly jobs',
    job_ids: ['101', '102'],
    event_types: ['job.run.started', 'job.run.completed'],
  });
  expect((await api.list()).data.map((hook) => hook.name).sort()).toEqual([
    'All completed runs',
    'Errored runs to on-call',
    'Nightly jobs',
  ]);

  const ops = outputs.ops_id!.value;
  expect(await api.operationalEndpoints.get(ops)).toMatchObject({
    name: 'Ops',
    client_url: 'http://127.0.0.1:9/ops',
    event_types: ['webhook.archived', 'delivery.exhausted'],
    active: true,
  });

  await workspace.must(['destroy', '-auto-approve', '-input=false'], 0, stackDir);
  expect(await api.operationalEndpoints.get(ops)).toBeNull();
  for (const name of ['all_completed_runs', 'nightly_jobs', 'errored_runs'])
    expect(await api.get(outputs[`${name}_id`]!.value)).toBeNull();
});

describe("cdktf's toBeValidTerraform, run against this provider's schema", () => {
  const saved = { ...process.env };
  beforeAll(() => Object.assign(process.env, workspace.env));
  afterAll(() => {
    process.env = saved;
  });

  test('passes for the example stack', () => {
    expect(synthFolders.adopt(Testing.fullSynth(new WebhooksStack(testingApp(), 'webhooks')))).toBeValidTerraform();
  });

  test('fails for a stack whose webhook has an attribute the provider does not know, for that reason', async () => {
    const stack = new TerraformStack(testingApp(), 'invalid');
    new DbtcloudProvider(stack, 'dbtcloud');
    const hook = new DbtcloudWebhook(stack, 'hook', {
      name: 'x',
      clientUrl: 'https://example.com/x',
      eventTypes: ['job.run.completed'],
    });
    hook.addOverride('retry_forever', true);
    const outdir = synthFolders.adopt(Testing.fullSynth(stack));
    expect(outdir).not.toBeValidTerraform();
    // The matcher ran init in the stack folder; validate there says why (and that it is not, say, init failing).
    const validate = await workspace.run(['validate', '-json'], join(outdir, 'stacks', 'invalid'));
    const result = JSON.parse(validate.stdout) as {
      valid: boolean;
      diagnostics: Array<{ summary: string; detail: string }>;
    };
    expect(result.valid).toBe(false);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        summary: 'Extraneous JSON object property',
        detail: 'No argument or block type is named "retry_forever".',
      }),
    ]);
  });
});
