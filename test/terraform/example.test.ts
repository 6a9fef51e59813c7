// examples/terraform as a user runs it: copied into a working folder, connection from DBT_CLOUD_*, init
// offline, apply, a second plan with nothing to do, and destroy, against a real service.
import { copyFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createWebhooksClient } from '@jobhooks/client';
import { ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { createTerraformWorkspace, type TerraformWorkspace } from '../support/terraform';

jest.setTimeout(120_000);

const EXAMPLE = resolve(__dirname, '..', '..', 'examples', 'terraform');
let harness: Harness;
let workspace: TerraformWorkspace;
let hostUrl: string;

beforeAll(async () => {
  harness = await startHarness();
  hostUrl = await harness.listen();
  workspace = await createTerraformWorkspace({
    DBT_CLOUD_ACCOUNT_ID: '1',
    DBT_CLOUD_TOKEN: ADMIN_TOKEN,
    DBT_CLOUD_HOST_URL: hostUrl,
  });
  for (const file of readdirSync(EXAMPLE).filter((name) => name.endsWith('.tf')))
    copyFileSync(join(EXAMPLE, file), join(workspace.dir, file));
});
afterAll(async () => {
  workspace?.close();
  await harness?.close();
});

test('examples/terraform applies, settles and destroys', async () => {
  await workspace.must(['init', '-input=false']);
  await workspace.must(['apply', '-auto-approve', '-input=false']);
  await workspace.must(['plan', '-detailed-exitcode', '-input=false'], 0);

  const ids = JSON.parse((await workspace.must(['output', '-json', 'webhook_ids'])).stdout) as Record<string, string>;
  const secrets = JSON.parse((await workspace.must(['output', '-json', 'hmac_secrets'])).stdout) as Record<
    string,
    string
  >;
  expect(Object.keys(ids).sort()).toEqual(['all_completed_runs', 'errored_runs', 'nightly_jobs']);
  expect(Object.values(secrets).every((secret) => secret.length >= 16)).toBe(true);
  const api = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  expect(await api.get(ids.nightly_jobs!)).toMatchObject({ name: 'Nightly jobs', job_ids: ['101', '102'] });
  expect(await api.get(ids.all_completed_runs!)).toMatchObject({ job_ids: [], description: 'Feeds the run tracker' });
  // Placeholder URLs: every example webhook is inactive, so no event is sent to hosts that are not the user's.
  for (const id of Object.values(ids)) expect(await api.get(id)).toMatchObject({ active: false });

  await workspace.must(['destroy', '-auto-approve', '-input=false']);
  for (const id of Object.values(ids)) expect(await api.get(id)).toBeNull();
});
