// jobhooks' provider under an address of its own (`install --source jobhooks/dbtcloud`) beside a provider at
// dbt-labs/dbtcloud in one configuration: webhooks declared with `provider = jobhooks` go to jobhooks, the
// other dbtcloud_* resources to the public provider. Offline, the public provider is played by a second
// install of this one (on another account), which is enough to show which provider each resource reaches.
import { createWebhooksClient } from '@jobhooks/client';
import { ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { createTerraformWorkspace, type TerraformWorkspace } from '../support/terraform';

jest.setTimeout(180_000);

let harness: Harness;
let hostUrl: string;
let workspace: TerraformWorkspace;
let otherToken: string;

beforeAll(async () => {
  harness = await startHarness();
  hostUrl = await harness.listen();
  otherToken = await harness.token('Account Admin', 2);
  workspace = await createTerraformWorkspace();
});
afterAll(async () => {
  workspace?.close();
  await harness?.close();
});

test('a second --source into the same folder serves both addresses from the mirror', async () => {
  const second = await workspace.install(['--source', 'jobhooks/dbtcloud']);
  expect(second.code).toBe(0);
  expect(second.stdout).toContain('as registry.terraform.io/jobhooks/dbtcloud 1.12.0');
  const refused = await workspace.install(['--source', 'Jobhooks']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(
    '--source must look like namespace/type or host/namespace/type (lowercase), not "Jobhooks"',
  );
});

test('resources with provider = jobhooks reach jobhooks, the others the provider at dbt-labs/dbtcloud', async () => {
  await workspace.install(['--source', 'jobhooks/dbtcloud']);
  workspace.write(
    'main.tf',
    `terraform {
  required_providers {
    dbtcloud = { source = "dbt-labs/dbtcloud", version = "~> 1.0" }
    jobhooks = { source = "jobhooks/dbtcloud", version = "~> 1.12" }
  }
}

# Stands in for dbt Cloud: another account of the same service.
provider "dbtcloud" {
  account_id = 2
  token      = ${JSON.stringify(otherToken)}
  host_url   = ${JSON.stringify(hostUrl)}
}

provider "jobhooks" {
  account_id = 1
  token      = ${JSON.stringify(ADMIN_TOKEN)}
  host_url   = ${JSON.stringify(hostUrl)}
}

resource "dbtcloud_webhook" "on_dbt_cloud" {
  name        = "Stays on dbt Cloud"
  client_url  = "http://127.0.0.1:9/dbt-cloud"
  event_types = ["job.run.completed"]
}

resource "dbtcloud_webhook" "on_jobhooks" {
  provider    = jobhooks
  name        = "Goes to jobhooks"
  client_url  = "http://127.0.0.1:9/jobhooks"
  event_types = ["job.run.errored"]
}

output "ids" { value = [dbtcloud_webhook.on_dbt_cloud.id, dbtcloud_webhook.on_jobhooks.id] }
`,
  );
  const init = await workspace.must(['init', '-input=false']);
  expect(init.stdout).toMatch(/Installing jobhooks\/dbtcloud v1\.12\.0/);
  expect(init.stdout).toMatch(/Installing dbt-labs\/dbtcloud v1\.12\.0/);
  await workspace.must(['apply', '-auto-approve', '-input=false']);
  await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 0);

  const [onDbtCloud, onJobhooks] = JSON.parse((await workspace.must(['output', '-json', 'ids'])).stdout) as [
    string,
    string,
  ];
  const jobhooks = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const dbtCloud = createWebhooksClient({ hostUrl, accountId: 2, token: otherToken });
  expect(await jobhooks.get(onJobhooks)).toMatchObject({ name: 'Goes to jobhooks' });
  expect(await dbtCloud.get(onDbtCloud)).toMatchObject({ name: 'Stays on dbt Cloud' });
  expect(await jobhooks.get(onDbtCloud)).toBeNull();

  await workspace.must(['destroy', '-auto-approve', '-input=false']);
  expect(await jobhooks.get(onJobhooks)).toBeNull();
});
