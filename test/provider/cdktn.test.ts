// @jobhooks/cdktn is the CDKTF constructs' source built against CDK Terrain: inside a cdktn app it synthesizes
// the same stack as @jobhooks/cdktf does in a cdktf app, and it loads cdktn, never cdktf.
import { execFileSync } from 'node:child_process';
import { Testing as CdktfTesting, TerraformStack as CdktfStack } from 'cdktf';
import { Testing, TerraformOutput, TerraformStack } from 'cdktn';
import * as cdktf from '@jobhooks/cdktf';
import * as cdktn from '@jobhooks/cdktn';
import { useSynthFolders } from '../support/synth-folders';

const synthFolders = useSynthFolders('cdktn');
/** An app that writes into this file's synth folders. */
const testingApp = () => Testing.app({ outdir: synthFolders.outdir() });
const cdktfTestingApp = () => CdktfTesting.app({ outdir: synthFolders.outdir() });

const WEBHOOK = {
  name: 'Errored runs',
  clientUrl: 'https://pager.example.com/v1/dbt',
  eventTypes: ['job.run.errored'] as cdktn.EventType[],
  jobIds: [101],
};

function cdktnStack() {
  const stack = new TerraformStack(testingApp(), 'webhooks');
  new cdktn.DbtcloudProvider(stack, 'dbtcloud', {});
  const hook = new cdktn.DbtcloudWebhook(stack, 'errored_runs', WEBHOOK);
  new TerraformOutput(stack, 'secret', { value: hook.hmacSecret, sensitive: true });
  return JSON.parse(Testing.synth(stack)) as Record<string, Record<string, unknown>>;
}

test('inside a cdktn app the constructs synthesize the provider with its version and the webhook', () => {
  const json = cdktnStack();
  expect(json.terraform!.required_providers).toEqual({ dbtcloud: { source: 'dbt-labs/dbtcloud', version: '~> 1.12' } });
  expect(json.resource).toEqual({
    dbtcloud_webhook: {
      errored_runs: {
        name: 'Errored runs',
        client_url: 'https://pager.example.com/v1/dbt',
        event_types: ['job.run.errored'],
        job_ids: [101],
      },
    },
  });
  expect(json.output).toEqual({ secret: { value: '${dbtcloud_webhook.errored_runs.hmac_secret}', sensitive: true } });
});

test('the cdktn and cdktf builds synthesize the same resources', () => {
  const stack = new CdktfStack(cdktfTestingApp(), 'webhooks');
  new cdktf.DbtcloudProvider(stack, 'dbtcloud', {});
  new cdktf.DbtcloudWebhook(stack, 'errored_runs', WEBHOOK);
  const fromCdktf = JSON.parse(CdktfTesting.synth(stack)) as Record<string, unknown>;
  const fromCdktn = cdktnStack();
  expect(fromCdktn.resource).toEqual(fromCdktf.resource);
  expect(fromCdktn.terraform!.required_providers).toEqual(
    (fromCdktf.terraform as Record<string, unknown>).required_providers,
  );
});

test("the cdktn build writes maxRequestsPerSecond (jobhooks' own) as max_requests_per_second, and checks it", () => {
  const stack = new TerraformStack(testingApp(), 'webhooks');
  new cdktn.DbtcloudWebhook(stack, 'rated', { ...WEBHOOK, maxRequestsPerSecond: 5 });
  const json = JSON.parse(Testing.synth(stack)) as { resource: { dbtcloud_webhook: Record<string, unknown> } };
  expect(json.resource.dbtcloud_webhook.rated).toMatchObject({ max_requests_per_second: 5 });
  expect(() => new cdktn.DbtcloudWebhook(stack, 'too_fast', { ...WEBHOOK, maxRequestsPerSecond: 101 })).toThrow(
    /maxRequestsPerSecond: max_requests_per_second must be a whole number from 1 to 100/,
  );
});

test("the cdktn build emits jobhooks' own dbtcloud_operational_endpoint as the cdktf build does, and checks it", () => {
  const endpoint = {
    name: 'Ops',
    clientUrl: 'https://ops.example.com/jobhooks',
    eventTypes: ['webhook.failing'] as cdktn.OperationalEventType[],
  };
  const stack = new TerraformStack(testingApp(), 'ops');
  new cdktn.DbtcloudOperationalEndpoint(stack, 'ops', endpoint);
  const fromCdktf = new CdktfStack(cdktfTestingApp(), 'ops');
  new cdktf.DbtcloudOperationalEndpoint(fromCdktf, 'ops', endpoint);
  const json = JSON.parse(Testing.synth(stack)) as Record<string, unknown>;
  expect(json.resource).toEqual({
    dbtcloud_operational_endpoint: {
      ops: { name: 'Ops', client_url: 'https://ops.example.com/jobhooks', event_types: ['webhook.failing'] },
    },
  });
  expect(json.resource).toEqual((JSON.parse(CdktfTesting.synth(fromCdktf)) as Record<string, unknown>).resource);
  const jobRun = ['job.run.errored'] as string[] as cdktn.OperationalEventType[];
  expect(() => new cdktn.DbtcloudOperationalEndpoint(stack, 'job_runs', { ...endpoint, eventTypes: jobRun })).toThrow(
    /eventTypes: event_types may contain only webhook\.archived/,
  );
});

test('the cdktn build loads cdktn and not cdktf', () => {
  // In a plain Node process (jest keeps its own module registry): what does requiring the package load?
  const script =
    "require('@jobhooks/cdktn'); const ids = Object.keys(require.cache); console.log(JSON.stringify(['cdktn', 'cdktf'].map((lib) => ids.some((id) => id.includes('/node_modules/' + lib + '/')))));";
  expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))).toEqual([true, false]);
});
