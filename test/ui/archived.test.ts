// Archived webhooks in real Chromium: the Archived badge in place of the status, the warning banner, its
// dismissal for the browser session, and reactivation.
import { ADMIN_TOKEN, createWebhook, webhookPath } from '../support/harness';
import { signIn, startUiHarness, type UiHarness } from '../support/browser';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

let ui: UiHarness;
let receiver: Receiver;
beforeAll(async () => {
  ui = await startUiHarness();
  // 410 Gone archives a webhook at once (docs/decisions.md#9-failed-deliveries-and-archiving); everything else is
  // accepted.
  receiver = await startReceiver((request, response) =>
    request.url.startsWith('/gone') ? answer(410, 'gone')(request, response) : answer(200, 'ok')(request, response),
  );
});
afterAll(async () => {
  await receiver.close();
  await ui.close();
});

async function hookAt(name: string, path: string, jobId: number): Promise<string> {
  const created = await createWebhook(ui.h, {
    name,
    client_url: `${receiver.url}${path}`,
    event_types: ['job.run.completed'],
    job_ids: [jobId],
  });
  return created.id;
}

async function isArchived(id: string): Promise<boolean> {
  return (await ui.h.call('GET', webhookPath(id))).json().data.archived as boolean;
}

async function archive(id: string, jobId: number): Promise<void> {
  await ingest(ui.h, 'job.run.completed', { jobId: String(jobId), runId: String(Date.now()) });
  await waitFor(() => isArchived(id), `webhook ${id} to be archived`);
}

test('an archived webhook shows the badge and the banner; the banner stays dismissed until another is archived; reactivate', async () => {
  const healthy = await hookAt('Healthy', '/ok', 1);
  const first = await archive_(await hookAt('Retired endpoint', '/gone/1', 2), 2);
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);

  const card = view.page.locator(`[data-webhook-id="${first}"]`);
  await card.locator('.badge').getByText('Archived').waitFor();
  // The badge takes the place of the HTTP status.
  expect(await card.locator('.badge').allTextContents()).toEqual(['Archived']);
  expect(await view.page.locator(`[data-webhook-id="${healthy}"] .badge`).textContent()).toBe('No deliveries yet');
  const banner = view.page.getByRole('region', { name: 'Archived webhooks' });
  await expect(banner.textContent()).resolves.toContain('1 webhook is archived: Retired endpoint.');
  await expect(banner.textContent()).resolves.toContain('Reactivate');
  await view.screenshot('webhooks-archived');

  await banner.getByRole('button', { name: 'Dismiss the archived webhooks warning' }).click();
  await banner.waitFor({ state: 'detached' });
  await view.page.reload();
  await card.locator('.badge').getByText('Archived').waitFor();
  await expect(banner.count()).resolves.toBe(0);

  // Another webhook archived in the same session brings the banner back, naming both.
  const second = await archive_(await hookAt('Old CRM', '/gone/2', 3), 3);
  await view.page.getByRole('button', { name: 'Refresh' }).click();
  await view.page.locator(`[data-webhook-id="${second}"] .badge`).getByText('Archived').waitFor();
  await expect(banner.textContent()).resolves.toContain('2 webhooks are archived');

  // Reactivate: the webhook is active again, its status replaces the badge.
  await card.getByRole('button', { name: 'Reactivate' }).click();
  await view.page.getByRole('status').getByText('Retired endpoint is reactivated').waitFor();
  expect(await isArchived(first)).toBe(false);
  await card.getByRole('switch').waitFor();
  expect(await card.getByRole('switch').getAttribute('aria-checked')).toBe('true');
  expect(await card.locator('.badge').textContent()).not.toBe('Archived');
  await expect(banner.textContent()).resolves.toContain('1 webhook is archived: Old CRM.');
  await view.screenshot('webhook-reactivated');
});

test('a new tab (a new browser session) shows the banner again, and changing the URL reactivates', async () => {
  const archived = await archive_(await hookAt('Moved endpoint', '/gone/3', 4), 4);
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await view.page.getByRole('region', { name: 'Archived webhooks' }).waitFor();
  await view.page
    .getByRole('region', { name: 'Archived webhooks' })
    .getByRole('button', { name: /Dismiss/ })
    .click();

  await view.page.goto(`${ui.origin}/#/webhooks/${archived}/edit`);
  await view.page.getByText('Changing the URL reactivates this archived webhook.').waitFor();
  await view.page.getByLabel('Endpoint URL').fill(`${receiver.url}/new-home`);
  await view.page.getByRole('button', { name: 'Save changes' }).click();
  await view.page.getByRole('heading', { level: 1, name: 'Moved endpoint' }).waitFor();
  await view.page.getByRole('switch', { name: 'Active: Moved endpoint' }).waitFor();
  expect(await isArchived(archived)).toBe(false);
  expect(await view.page.locator('article .badge').first().textContent()).not.toBe('Archived');
  await view.screenshot('reactivated-by-new-url');
});

async function archive_(id: string, jobId: number): Promise<string> {
  await archive(id, jobId);
  return id;
}
