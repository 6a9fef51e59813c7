// Recent Deliveries in real Chromium: posted job-run events show as succeeded and failed attempts, a failed
// delivery can be sent again, and the list pages.
import { ADMIN_TOKEN, createWebhook, webhookPath } from '../support/harness';
import { signIn, startUiHarness, type UiHarness } from '../support/browser';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

// Retries a few milliseconds apart, so a failing delivery uses up its five retries during the test.
const FAST_RETRIES = '0.01,0.01,0.01,0.01,0.01';

let ui: UiHarness;
let receiver: Receiver;
let failing: boolean;
beforeAll(async () => {
  ui = await startUiHarness({ env: { JOBHOOKS_RETRY_SCHEDULE: FAST_RETRIES } });
  receiver = await startReceiver((request, response) => {
    if (request.url === '/broken' && failing) response.writeHead(500).end('database is down');
    else answer(200, 'ok')(request, response);
  });
});
afterAll(async () => {
  await receiver.close();
  await ui.close();
});

/** A webhook on the receiver at `path`, for job-run events of job `path.length` only. */
async function hookAt(name: string, path: string): Promise<string> {
  const created = await createWebhook(ui.h, {
    name,
    client_url: `${receiver.url}${path}`,
    event_types: ['job.run.completed'],
    job_ids: [path.length],
  });
  return created.id;
}

async function attempts(id: string): Promise<Array<{ success: boolean; http_status_code: string }>> {
  return (await ui.h.call('GET', `${webhookPath(id)}/deliveries?limit=100`)).json().data;
}

test('deliveries show with their outcome, and a failed one is redelivered from the page', async () => {
  failing = true;
  const broken = await hookAt('Broken endpoint', '/broken');
  await ingest(ui.h, 'job.run.completed', { jobId: String('/broken'.length), runId: '501' });
  await waitFor(async () => (await attempts(broken)).length === 6, 'the first attempt and five retries');

  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await view.page.locator(`[data-webhook-id="${broken}"]`).getByRole('link', { name: 'Broken endpoint' }).click();
  const table = view.page.getByRole('table');
  await table.waitFor();
  const rows = table.locator('tbody tr');
  expect(await rows.count()).toBe(6);
  const newest = rows.first();
  expect(await newest.locator('td').nth(1).textContent()).toBe('job.run.completed');
  expect(await newest.locator('td').nth(2).textContent()).toBe('6');
  expect(await newest.locator('td').nth(3).textContent()).toBe('500');
  expect(await newest.locator('td').nth(5).textContent()).toBe('Failed');
  expect(await newest.locator('td').nth(6).textContent()).toContain('500');
  // One Redeliver per delivery: on its newest attempt.
  await expect(view.page.getByRole('button', { name: /Redeliver/ }).count()).resolves.toBe(1);
  // The time is shown in the viewer's local time, with the exact instant in a machine-readable attribute.
  expect(await newest.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
  await view.screenshot('deliveries-failed');

  failing = false;
  await newest.getByRole('button', { name: /Redeliver/ }).click();
  await view.page.getByRole('status').getByText('Redelivered: the endpoint answered HTTP 200.').waitFor();
  await view.page.locator('tbody tr').first().getByText('Succeeded').waitFor();
  expect(await view.page.locator('tbody tr').count()).toBe(7);
  expect(await view.page.locator('tbody tr').first().locator('td').nth(2).textContent()).toBe('7');
  // Delivered now: nothing left to redeliver, and the webhook's status is the redelivery's.
  await expect(view.page.getByRole('button', { name: /Redeliver/ }).count()).resolves.toBe(0);
  expect(await view.page.locator('article .badge').first().textContent()).toBe('HTTP 200');
  await view.screenshot('deliveries-redelivered');
  // So does the list page.
  await view.page.getByRole('link', { name: '← All webhooks' }).click();
  await view.page.locator(`[data-webhook-id="${broken}"] .badge`).getByText('HTTP 200').waitFor();
});

test('a successful delivery shows as succeeded, and the list pages by 20, newest first', async () => {
  const healthy = await hookAt('Healthy endpoint', '/healthy');
  for (let run = 1; run <= 23; run += 1)
    await ingest(ui.h, 'job.run.completed', { jobId: String('/healthy'.length), runId: String(9000 + run) });
  await waitFor(async () => (await attempts(healthy)).length === 23, '23 deliveries');

  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  const card = view.page.locator(`[data-webhook-id="${healthy}"]`);
  expect(await card.locator('.badge').textContent()).toBe('HTTP 200');
  expect(await card.locator('time').count()).toBe(1);
  await card.getByRole('link', { name: 'Healthy endpoint' }).click();
  await view.page.getByText('1–20 of 23').waitFor();
  expect(await view.page.locator('tbody tr').count()).toBe(20);
  expect(await view.page.locator('tbody tr td:nth-child(6)').allTextContents()).toEqual(Array(20).fill('Succeeded'));
  await expect(view.page.getByRole('button', { name: 'Redeliver' }).count()).resolves.toBe(0);
  expect(await view.page.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);
  await view.page.getByRole('button', { name: 'Older' }).click();
  await view.page.getByText('21–23 of 23').waitFor();
  expect(await view.page.locator('tbody tr').count()).toBe(3);
  expect(await view.page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
  await view.screenshot('deliveries-page-2');
  await view.page.getByRole('button', { name: 'Newer' }).click();
  await view.page.getByText('1–20 of 23').waitFor();
});
