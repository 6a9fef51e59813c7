// What a Terraform user sees when something is wrong: validation at plan time in the API's own words at the
// attribute concerned, the server's message on an API refusal, and connection problems named precisely.
import { ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { createTerraformWorkspace, providerBlock, type TerraformWorkspace } from '../support/terraform';

jest.setTimeout(120_000);

let harness: Harness;
let workspace: TerraformWorkspace;
let hostUrl: string;

beforeAll(async () => {
  harness = await startHarness();
  hostUrl = await harness.listen();
  workspace = await createTerraformWorkspace();
  workspace.write('main.tf', providerBlock(hostUrl, ADMIN_TOKEN));
  await workspace.must(['init', '-input=false']);
});
afterAll(async () => {
  workspace?.close();
  await harness?.close();
});

const webhook = (attributes: string) => `resource "dbtcloud_webhook" "hook" {\n${attributes}\n}\n`;

test('invalid values fail the plan at their attribute, with the API validation messages', async () => {
  workspace.write(
    'main.tf',
    `${providerBlock(hostUrl, ADMIN_TOKEN)}${webhook(`  name        = "bad"
  client_url  = "ftp://example.com/x"
  event_types = ["job.run.finished"]
  job_ids     = [1.5]
  max_requests_per_second = 101
  secret_overlap_seconds = 604801`)}`,
  );
  const plan = await workspace.must(['plan', '-input=false'], 1);
  expect(plan.stderr).toMatch(/Error: Invalid client_url[\s\S]*client_url\s+= "ftp:\/\/example\.com\/x"/);
  expect(plan.stderr).toMatch(/Error: Invalid event_types[\s\S]*job\.run\.finished/);
  expect(plan.stderr).toMatch(/Error: Invalid job_ids/);
  // Terraform wraps the message at the terminal's width.
  expect(plan.stderr).toMatch(
    /Error: Invalid max_requests_per_second[\s\S]*max_requests_per_second must be a whole number from 1 to 100, or null for\s+no\s+limit/,
  );
  expect(plan.stderr).toMatch(
    /Error: Invalid secret_overlap_seconds[\s\S]*overlap_seconds must be at most 604800 \(7 days\)/,
  );
});

test('values known only at apply are checked then, not at plan', async () => {
  workspace.write(
    'main.tf',
    `${providerBlock(hostUrl, ADMIN_TOKEN)}
resource "terraform_data" "later" {
  input = "https://example.com/from-another-resource"
}
${webhook(`  name        = "late"
  client_url  = terraform_data.later.output
  event_types = ["job.run.completed"]`)}`,
  );
  const plan = await workspace.run(['plan', '-input=false']);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toMatch(/client_url\s+= \(known after apply\)/);
});

test("an API refusal at apply carries the server's message and status", async () => {
  const viewer = await harness.token('Read-Only');
  workspace.write(
    'main.tf',
    `${providerBlock(hostUrl, viewer)}${webhook(`  name        = "not allowed"
  client_url  = "https://example.com/no"
  event_types = ["job.run.completed"]`)}`,
  );
  const apply = await workspace.must(['apply', '-auto-approve', '-input=false'], 1);
  expect(apply.stderr).toMatch(/Error: Unable to create webhook/);
  expect(apply.stderr).toMatch(/\(HTTP 403\)/);
});

test('a wrong token fails at configuration, before any change', async () => {
  workspace.write(
    'main.tf',
    `${providerBlock(hostUrl, 'not-a-real-token')}${webhook(`  name        = "x"
  client_url  = "https://example.com/x"
  event_types = ["job.run.completed"]`)}`,
  );
  const plan = await workspace.must(['plan', '-input=false'], 1);
  expect(plan.stderr).toMatch(/Error: Unable to connect to http:\/\/127\.0\.0\.1:\d+\/api/);
  expect(plan.stderr).toMatch(/\(HTTP 401\)/);
});

test('missing credentials are named with the variable that can give them; DBT_CLOUD_* work instead of the block', async () => {
  const bare = `terraform {
  required_providers {
    dbtcloud = { source = "dbt-labs/dbtcloud" }
  }
}
${webhook(`  name        = "from-env"
  client_url  = "https://example.com/env"
  event_types = ["job.run.completed"]`)}`;
  workspace.write('main.tf', bare);
  const missing = await workspace.must(['plan', '-input=false'], 1);
  expect(missing.stderr).toMatch(/Missing dbt Cloud account identifier[\s\S]*DBT_CLOUD_ACCOUNT_ID/);
  expect(missing.stderr).toMatch(/Missing dbt Cloud token[\s\S]*DBT_CLOUD_TOKEN/);

  const fromEnv = await createTerraformWorkspace({
    DBT_CLOUD_ACCOUNT_ID: '1',
    DBT_CLOUD_TOKEN: ADMIN_TOKEN,
    DBT_CLOUD_HOST_URL: hostUrl,
  });
  try {
    fromEnv.write('main.tf', bare);
    await fromEnv.must(['init', '-input=false']);
    const plan = await fromEnv.must(['plan', '-input=false']);
    expect(plan.stdout).toMatch(/1 to add/);
  } finally {
    fromEnv.close();
  }
});

test('skip_credentials_validation skips the account check: a wrong account shows only when the API is used', async () => {
  const hook = webhook(`  name        = "x"
  client_url  = "https://example.com/x"
  event_types = ["job.run.completed"]`);
  const block = providerBlock(hostUrl, ADMIN_TOKEN, 999).replace(
    'host_url   =',
    'skip_credentials_validation = true\n  host_url   =',
  );
  workspace.write('main.tf', `${block}${hook}`);
  expect((await workspace.must(['plan', '-input=false'])).stdout).toMatch(/1 to add/);
  workspace.write('main.tf', `${providerBlock(hostUrl, ADMIN_TOKEN, 999)}${hook}`);
  const checked = await workspace.must(['plan', '-input=false'], 1);
  expect(checked.stderr).toMatch(/Account not accessible[\s\S]*account 999/);
});
