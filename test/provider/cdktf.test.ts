// The CDKTF constructs: the example stack synthesizes the public provider's dbtcloud_webhook exactly, in JSON
// and HCL, jobhooks' own dbtcloud_operational_endpoint is emitted too, and invalid declarations are refused at synth
// time with the service's own messages.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Testing, TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import { WebhooksStack } from '../../examples/cdktf/main';
import {
  DbtcloudOperationalEndpoint,
  DbtcloudProvider,
  DbtcloudWebhook,
  type EventType,
  type OperationalEventType,
} from '@jobhooks/cdktf';
import { useSynthFolders } from '../support/synth-folders';

const synthFolders = useSynthFolders('cdktf');
/** An app that writes into this file's synth folders. */
const testingApp = () => Testing.app({ outdir: synthFolders.outdir() });

/** The parts of a synthesized stack these tests read. */
interface SynthesizedStack {
  terraform: { required_providers: Record<string, unknown> };
  provider: Record<string, unknown>;
  resource: Record<string, Record<string, unknown>>;
  output: Record<string, unknown>;
}

function synthesizedExample() {
  const app = testingApp();
  const stack = new WebhooksStack(app, 'webhooks');
  return { stack, json: JSON.parse(Testing.synth(stack)) as SynthesizedStack };
}

test('the example stack declares the provider from dbt-labs/dbtcloud and three webhooks with the public attribute names', () => {
  const { json } = synthesizedExample();
  expect(json.terraform.required_providers).toEqual({ dbtcloud: { source: 'dbt-labs/dbtcloud', version: '~> 1.12' } });
  expect(json.provider).toEqual({ dbtcloud: [{}] });
  expect(json.resource.dbtcloud_webhook).toEqual({
    all_completed_runs: {
      name: 'All completed runs',
      description: 'Feeds the run tracker',
      client_url: 'https://tracker.example.com/hooks/dbt',
      event_types: ['job.run.completed'],
      active: false,
    },
    nightly_jobs: {
      name: 'Nightly jobs',
      client_url: 'https://dashboards.example.com/ingest/runs',
      event_types: ['job.run.started', 'job.run.completed'],
      job_ids: [101, 102],
      active: false,
    },
    errored_runs: {
      name: 'Errored runs to on-call',
      client_url: 'https://pager.example.com/v1/dbt',
      event_types: ['job.run.errored'],
      active: false,
    },
  });
});

test('the secrets are sensitive outputs and the ids are references to the resources', () => {
  const { json } = synthesizedExample();
  expect(json.output.nightly_jobs_hmac_secret).toEqual({
    value: '${dbtcloud_webhook.nightly_jobs.hmac_secret}',
    sensitive: true,
  });
  expect(json.output.nightly_jobs_id).toEqual({ value: '${dbtcloud_webhook.nightly_jobs.id}' });
});

test('Testing matchers see the resources by type', () => {
  const { stack } = synthesizedExample();
  const synthesized = Testing.synth(stack);
  expect(Testing.toHaveResource(synthesized, 'dbtcloud_webhook')).toBe(true);
  expect(Testing.toHaveResourceWithProperties(synthesized, 'dbtcloud_webhook', { job_ids: [101, 102] })).toBe(true);
  expect(Testing.toHaveProvider(synthesized, 'dbtcloud')).toBe(true);
});

test('synth --hcl writes every attribute, not empty blocks', () => {
  const app = testingApp();
  const stack = new WebhooksStack(app, 'webhooks');
  const hcl = Testing.synthHcl(stack);
  expect(hcl).toMatch(
    /resource "dbtcloud_webhook" "nightly_jobs" \{[^}]*client_url\s*=\s*"https:\/\/dashboards\.example\.com\/ingest\/runs"/,
  );
  expect(hcl).toMatch(/job_ids\s*=\s*\[\s*101,\s*102\s*\]/);
  expect(hcl).toMatch(/event_types\s*=\s*\[\s*"job\.run\.started",\s*"job\.run\.completed"\s*\]/);
  expect(hcl).toMatch(/active\s*=\s*false/);
  expect(hcl).toMatch(/source\s*=\s*"dbt-labs\/dbtcloud"/);
});

test("maxRequestsPerSecond (jobhooks' own) is written as max_requests_per_second in JSON and HCL, and only when set", () => {
  const stack = new TerraformStack(testingApp(), 's');
  const declared = { clientUrl: 'https://hooks.example.com/', eventTypes: ['job.run.completed' as EventType] };
  new DbtcloudWebhook(stack, 'rated', { ...declared, name: 'rated', maxRequestsPerSecond: 5 });
  new DbtcloudWebhook(stack, 'unrated', { ...declared, name: 'unrated' });
  const json = JSON.parse(Testing.synth(stack)) as SynthesizedStack;
  expect(json.resource.dbtcloud_webhook).toEqual({
    rated: {
      name: 'rated',
      client_url: 'https://hooks.example.com/',
      event_types: ['job.run.completed'],
      max_requests_per_second: 5,
    },
    unrated: { name: 'unrated', client_url: 'https://hooks.example.com/', event_types: ['job.run.completed'] },
  });
  const hcl = Testing.synthHcl(stack);
  expect(hcl).toMatch(/resource "dbtcloud_webhook" "rated" \{[^}]*max_requests_per_second\s*=\s*5/);
  expect(hcl.match(/max_requests_per_second/g)).toHaveLength(1);
});

test('the provider construct writes the public provider configuration', () => {
  const app = testingApp();
  const stack = new TerraformStack(app, 's');
  new DbtcloudProvider(stack, 'dbtcloud', {
    accountId: 1,
    hostUrl: 'http://127.0.0.1:8080/api',
    token: 'jhk_x',
    skipCredentialsValidation: true,
  });
  expect(JSON.parse(Testing.synth(stack)).provider.dbtcloud).toEqual([
    { account_id: 1, host_url: 'http://127.0.0.1:8080/api', token: 'jhk_x', skip_credentials_validation: true },
  ]);
});

test('the stack requires the provider at a version the installed one satisfies, unless the app names another', () => {
  const stack = new TerraformStack(testingApp(), 's');
  new DbtcloudProvider(stack, 'dbtcloud', { versionConstraint: '>= 1.3, < 2.0' });
  expect(JSON.parse(Testing.synth(stack)).terraform.required_providers).toEqual({
    dbtcloud: { source: 'dbt-labs/dbtcloud', version: '>= 1.3, < 2.0' },
  });
});

describe('synth-time validation', () => {
  const build = (config: Partial<ConstructorParameters<typeof DbtcloudWebhook>[2]>) => () => {
    const stack = new TerraformStack(testingApp(), 's');
    new DbtcloudWebhook(stack, 'hook', {
      name: 'n',
      clientUrl: 'https://hooks.example.com/',
      eventTypes: ['job.run.completed'],
      ...config,
    });
  };

  test.each([
    [
      'an unknown event type',
      // As a JavaScript app passes it: the type would refuse it at compile time.
      { eventTypes: ['job.run.paused'] as string[] as EventType[] },
      /eventTypes: event_types may contain only job.run.started, job.run.completed, job.run.errored/,
    ],
    ['no event types', { eventTypes: [] }, /eventTypes: event_types needs at least one event type/],
    ['a URL that is not http(s)', { clientUrl: 'ftp://x' }, /clientUrl:/],
    ['a repeated job id', { jobIds: [5, 5] }, /jobIds: job_ids must not repeat a job id/],
    ['a job id that is not a whole number', { jobIds: [1.5] }, /jobIds: job ids must be whole numbers/],
    ['a blank name', { name: ' ' }, /name: name must not be blank/],
    [
      'a rate of 0 requests per second',
      { maxRequestsPerSecond: 0 },
      /maxRequestsPerSecond: max_requests_per_second must be a whole number from 1 to 100, or null for no limit/,
    ],
    ['a fractional rate', { maxRequestsPerSecond: 2.5 }, /maxRequestsPerSecond: max_requests_per_second must be/],
  ])('%s is refused, naming the construct and the property', (_name, config, message) => {
    expect(build(config)).toThrow(/^Invalid dbtcloud_webhook "hook":/);
    expect(build(config)).toThrow(message);
  });

  test('values that are tokens are left to Terraform', () => {
    const stack = new TerraformStack(testingApp(), 's');
    const url = new TerraformVariable(stack, 'url', { type: 'string' });
    expect(
      () =>
        new DbtcloudWebhook(stack, 'hook', {
          name: 'n',
          clientUrl: url.stringValue,
          eventTypes: ['job.run.completed'],
        }),
    ).not.toThrow();
  });
});

describe("DbtcloudOperationalEndpoint (jobhooks' own)", () => {
  const declared = {
    name: 'Ops',
    clientUrl: 'https://ops.example.com/jobhooks',
    eventTypes: ['webhook.archived', 'delivery.exhausted'] as OperationalEventType[],
  };

  test('emits dbtcloud_operational_endpoint in JSON and HCL, optionals only when set, and its id and secret as references', () => {
    const stack = new TerraformStack(testingApp(), 's');
    const endpoint = new DbtcloudOperationalEndpoint(stack, 'ops', declared);
    new DbtcloudOperationalEndpoint(stack, 'quiet', { ...declared, name: 'Quiet', description: 'd', active: false });
    new TerraformOutput(stack, 'ops_id', { value: endpoint.endpointId });
    new TerraformOutput(stack, 'ops_secret', { value: endpoint.hmacSecret, sensitive: true });
    const json = JSON.parse(Testing.synth(stack)) as SynthesizedStack;
    expect(json.resource).toEqual({
      dbtcloud_operational_endpoint: {
        ops: { name: 'Ops', client_url: 'https://ops.example.com/jobhooks', event_types: declared.eventTypes },
        quiet: {
          name: 'Quiet',
          client_url: 'https://ops.example.com/jobhooks',
          event_types: declared.eventTypes,
          description: 'd',
          active: false,
        },
      },
    });
    expect(json.output).toEqual({
      ops_id: { value: '${dbtcloud_operational_endpoint.ops.id}' },
      ops_secret: { value: '${dbtcloud_operational_endpoint.ops.hmac_secret}', sensitive: true },
    });
    const hcl = Testing.synthHcl(stack);
    expect(hcl).toMatch(
      /resource "dbtcloud_operational_endpoint" "ops" \{[^}]*event_types\s*=\s*\[\s*"webhook\.archived",\s*"delivery\.exhausted"\s*\]/,
    );
    expect(hcl).toMatch(/resource "dbtcloud_operational_endpoint" "quiet" \{[^}]*active\s*=\s*false/);
  });

  const build = (config: Partial<ConstructorParameters<typeof DbtcloudOperationalEndpoint>[2]>) => () =>
    new DbtcloudOperationalEndpoint(new TerraformStack(testingApp(), 's'), 'ops', { ...declared, ...config });

  test.each([
    [
      'a job-run event type',
      // As a JavaScript app passes it: the type would refuse it at compile time.
      { eventTypes: ['job.run.completed'] as string[] as OperationalEventType[] },
      /eventTypes: event_types may contain only webhook.archived, webhook.failing, webhook.circuit_opened, webhook.recovered, delivery.exhausted/,
    ],
    ['no event types', { eventTypes: [] }, /eventTypes: event_types needs at least one event type/],
    ['a URL that is not http(s)', { clientUrl: 'ftp://x' }, /clientUrl:/],
  ])('%s is refused at synth time, naming the construct and the property', (_name, config, message) => {
    expect(build(config)).toThrow(/^Invalid dbtcloud_operational_endpoint "ops":/);
    expect(build(config)).toThrow(message);
  });
});

test('the app writes cdktf.out-style stacks/webhooks/cdk.tf.json with the same resources', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdktf-'));
  try {
    const app = new App({ outdir });
    new WebhooksStack(app, 'webhooks');
    app.synth();
    // The app's output carries construct metadata under "//"; the attributes are the same.
    const written = JSON.parse(
      readFileSync(join(outdir, 'stacks', 'webhooks', 'cdk.tf.json'), 'utf8'),
      (key, value: unknown) => (key === '//' ? undefined : value),
    ) as SynthesizedStack;
    expect(written.resource).toEqual(synthesizedExample().json.resource);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
});

test('`npx cdktf synth` in examples/cdktf writes the stack offline', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdktf-cli-'));
  try {
    execFileSync('npx', ['--no-install', 'cdktf', 'synth', '--output', outdir], {
      cwd: join(__dirname, '..', '..', 'examples', 'cdktf'),
      env: { ...process.env, CHECKPOINT_DISABLE: '1', CI: '1' },
      stdio: 'pipe',
      timeout: 120_000,
    });
    const written = JSON.parse(
      readFileSync(join(outdir, 'stacks', 'webhooks', 'cdk.tf.json'), 'utf8'),
      (key, value: unknown) => (key === '//' ? undefined : value),
    ) as SynthesizedStack;
    expect(written.resource).toEqual(synthesizedExample().json.resource);
    expect(written.terraform.required_providers).toEqual({
      dbtcloud: { source: 'dbt-labs/dbtcloud', version: '~> 1.12' },
    });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}, 150_000);
