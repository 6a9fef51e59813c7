// Recent Deliveries in real Chromium: one row per delivery with its attempts beneath, its request and responses in
// a dialog, filters on the log, Redeliver and Recover failed deliveries, paging, and the row's status and result in
// view at 375 px.
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, createWebhook, webhookPath } from '../support/harness';
import { join } from 'node:path';
import { SCREENSHOT_DIR, signIn, startUiHarness, type UiHarness, type UiPage } from '../support/browser';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

// Retries a few milliseconds apart, so a failing delivery uses up its five retries during the test.
const FAST_RETRIES = '0.01,0.01,0.01,0.01,0.01';

let ui: UiHarness;
let receiver: Receiver;
/** Paths whose requests are answered 400 (not 5xx: the endpoint's circuit stays closed). */
const failing = new Set<string>();
/** Requests to /flaky so far: the first is refused, the rest accepted. */
let flakyCount = 0;
beforeAll(async () => {
  ui = await startUiHarness({ env: { JOBHOOKS_RETRY_SCHEDULE: FAST_RETRIES } });
  receiver = await startReceiver((request, response) => {
    const path = request.url;
    if (path === '/flaky') {
      flakyCount += 1;
      if (flakyCount === 1)
        return answer(400, '<b>not yet</b>', { 'content-type': 'text/html', 'x-receiver': 'refused' })(
          request,
          response,
        );
      return answer(200, '{"accepted":true}', { 'content-type': 'application/json', 'x-receiver': 'accepted' })(
        request,
        response,
      );
    }
    // On /mixed only errored runs fail, while that path is failing.
    const refused = failing.has(path) && (path !== '/mixed' || request.body.toString().includes('job.run.errored'));
    if (refused) answer(400, 'database is down')(request, response);
    else answer(200, 'ok')(request, response);
  });
});
afterAll(async () => {
  await receiver.close();
  await ui.close();
});

/** A webhook on the receiver at `path`, for job-run events of job `path.length` only. */
async function hookAt(name: string, path: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const created = await createWebhook(ui.h, {
    name,
    client_url: `${receiver.url}${path}`,
    event_types: ['job.run.completed'],
    job_ids: [path.length],
    ...overrides,
  });
  return created.id;
}

async function attempts(id: string): Promise<Array<{ success: boolean; http_status_code: string }>> {
  return (await ui.h.call('GET', `${webhookPath(id)}/deliveries?limit=100`)).json().data;
}

async function openWebhook(view: UiPage, id: string, name: string): Promise<void> {
  await view.page.locator(`[data-webhook-id="${id}"]`).getByRole('link', { name }).click();
  await view.page.locator('ol.delivery-log, .deliveries-panel .empty').first().waitFor();
}

/** A `datetime-local` value `minutes` from now, in the page's own time zone. */
function localInputValue(page: Page, minutes: number): Promise<string> {
  return page.evaluate((offset) => {
    const d = new Date(Date.now() + offset * 60_000);
    const p = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  }, minutes);
}

const rows = (view: UiPage) => view.page.locator('ol.delivery-log > li.delivery');

test('a delivery that failed and then succeeded is one row with both attempts beneath, and its request and responses show as text', async () => {
  const flaky = await hookAt('Flaky endpoint', '/flaky');
  await ingest(ui.h, 'job.run.completed', { jobId: String('/flaky'.length), runId: '601' });
  await waitFor(async () => (await attempts(flaky)).length === 2, 'a refused attempt and an accepted retry');

  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await openWebhook(view, flaky, 'Flaky endpoint');
  expect(await rows(view).count()).toBe(1);
  const row = rows(view).first();
  expect(await row.locator('.event-type').textContent()).toBe('job.run.completed');
  expect(await row.locator('.status-code').textContent()).toBe('HTTP 200');
  expect(await row.locator('.badge.result').textContent()).toBe('Succeeded');
  // The newest attempt's time, with its zone, and the exact instant in a machine-readable attribute.
  const zone = await view.page.evaluate(
    () =>
      new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
        .formatToParts(new Date())
        .find((part) => part.type === 'timeZoneName')?.value ?? '',
  );
  expect(await row.locator('.delivery-what time').textContent()).toContain(zone);
  expect(await row.locator('.delivery-what time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
  // Both attempts beneath, oldest first.
  await row.locator('summary').getByText('2 attempts').click();
  const attemptRows = row.locator('details tbody tr');
  expect(await attemptRows.count()).toBe(2);
  expect(await attemptRows.locator('td:first-child').allTextContents()).toEqual(['1', '2']);
  expect(await attemptRows.locator('td:nth-child(3)').allTextContents()).toEqual(['400', '200']);
  expect(await attemptRows.locator('td:nth-child(5)').allTextContents()).toEqual(['Failed', 'Succeeded']);
  // Delivered: nothing to redeliver.
  await expect(row.getByRole('button', { name: /Redeliver/ }).count()).resolves.toBe(0);
  await view.screenshot('deliveries-grouped');

  await row.getByRole('button', { name: /Request and responses/ }).click();
  const dialog = view.page.getByRole('dialog', { name: 'Delivery of job.run.completed' });
  await dialog.waitFor();
  const sent = JSON.parse(receiver.requests.find((request) => request.url === '/flaky')!.body.toString());
  expect(await dialog.getByRole('region', { name: 'Request body' }).textContent()).toBe(JSON.stringify(sent, null, 2));
  expect(await dialog.getByText(`POST ${receiver.url}/flaky`).count()).toBe(1);
  expect(await dialog.getByText('Succeeded', { exact: true }).count()).toBeGreaterThan(0);
  const first = dialog.getByRole('region', { name: 'Attempt 1', exact: true });
  const second = dialog.getByRole('region', { name: 'Attempt 2', exact: true });
  expect(await first.locator('h4').textContent()).toBe('Attempt 1: HTTP 400 Failed');
  expect(await first.getByText('refused').count()).toBe(1);
  // The receiver's HTML is shown as text, never as markup.
  expect(await first.getByRole('region', { name: 'Attempt 1 response body' }).textContent()).toBe('<b>not yet</b>');
  expect(await dialog.locator('b').count()).toBe(0);
  expect(await second.getByText('accepted', { exact: true }).count()).toBe(1);
  expect(await second.getByRole('region', { name: 'Attempt 2 response body' }).textContent()).toBe(
    '{\n  "accepted": true\n}',
  );
  expect(await second.locator('time').textContent()).toContain(zone);
  await view.screenshot('delivery-detail');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(view.consoleErrors).toEqual([]);
});

test('a failed delivery is one row with its six attempts, and is redelivered from the page', async () => {
  failing.add('/broken');
  const broken = await hookAt('Broken endpoint', '/broken');
  await ingest(ui.h, 'job.run.completed', { jobId: String('/broken'.length), runId: '501' });
  await waitFor(async () => (await attempts(broken)).length === 6, 'the first attempt and five retries');

  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await openWebhook(view, broken, 'Broken endpoint');
  expect(await rows(view).count()).toBe(1);
  const row = rows(view).first();
  expect(await row.locator('.status-code').textContent()).toBe('HTTP 400');
  expect(await row.locator('.badge.result').textContent()).toBe('Failed');
  expect(await row.locator('summary').textContent()).toBe('6 attempts');
  await expect(view.page.getByRole('button', { name: /Redeliver/ }).count()).resolves.toBe(1);
  await view.screenshot('deliveries-failed');

  failing.delete('/broken');
  await row.getByRole('button', { name: /Redeliver/ }).click();
  await view.page.getByRole('status').getByText('Redelivered: the endpoint answered HTTP 200.').waitFor();
  await rows(view).first().locator('.badge.result').getByText('Succeeded').waitFor();
  expect(await rows(view).count()).toBe(1);
  expect(await rows(view).first().locator('summary').textContent()).toBe('7 attempts');
  await expect(view.page.getByRole('button', { name: /Redeliver/ }).count()).resolves.toBe(0);
  expect(await view.page.locator('article .badge').first().textContent()).toBe('HTTP 200');
  await view.page.getByRole('link', { name: '← All webhooks' }).click();
  await view.page.locator(`[data-webhook-id="${broken}"] .badge`).getByText('HTTP 200').waitFor();
});

let mixed: string;
/** One completed run delivered, one errored run failed for good, on /mixed. */
async function mixedWebhook(): Promise<string> {
  if (mixed) return mixed;
  failing.add('/mixed');
  mixed = await hookAt('Mixed endpoint', '/mixed', { event_types: ['job.run.completed', 'job.run.errored'] });
  await ingest(ui.h, 'job.run.completed', { jobId: String('/mixed'.length), runId: '701' });
  await ingest(ui.h, 'job.run.errored', { jobId: String('/mixed'.length), runId: '702' });
  await waitFor(async () => (await attempts(mixed)).length === 7, 'one success, and a failure with five retries');
  return mixed;
}

test('the filters change the rows, say what they hold, and clear; times are read in the browser’s zone', async () => {
  const id = await mixedWebhook();
  // A zone 5:45 ahead of UTC: a filter time read as UTC would miss the deliveries by hours.
  const context = await ui.browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Asia/Kathmandu' });
  try {
    const page = await context.newPage();
    await page.goto(`${ui.origin}/`);
    const view = { page } as UiPage;
    await signIn(view, ADMIN_TOKEN);
    await openWebhook(view, id, 'Mixed endpoint');
    expect(await rows(view).count()).toBe(2);
    expect(await rows(view).locator('.event-type').allTextContents()).toEqual(['job.run.errored', 'job.run.completed']);
    expect(await rows(view).first().locator('time').first().textContent()).toContain('GMT+5:45');
    const filters = page.getByRole('search', { name: 'Filter deliveries' });

    await filters.getByLabel('Status').selectOption('failed');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('Showing failed attempts.').waitFor();
    expect(await rows(view).locator('.event-type').allTextContents()).toEqual(['job.run.errored']);
    expect(await page.getByText('Attempts 1–6 of 6').count()).toBe(1);

    await filters.getByLabel('Status').selectOption('');
    await filters.getByLabel('Event type').selectOption('job.run.completed');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('Showing attempts of job.run.completed.').waitFor();
    expect(await rows(view).locator('.event-type').allTextContents()).toEqual(['job.run.completed']);
    // The filters stay in their fields.
    expect(await filters.getByLabel('Event type').inputValue()).toBe('job.run.completed');

    // A window of an hour either side of now, in Kathmandu time, holds both; one starting in an hour holds none.
    await filters.getByLabel('Event type').selectOption('');
    await filters.getByLabel('Since').fill(await localInputValue(page, -60));
    await filters.getByLabel('Until').fill(await localInputValue(page, 60));
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText(/^Showing attempts since .* until .*GMT\+5:45\.$/).waitFor();
    expect(await rows(view).count()).toBe(2);
    await filters.getByLabel('Since').fill(await localInputValue(page, 60));
    await filters.getByLabel('Until').fill('');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No attempts match these filters.').waitFor();
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'deliveries-filtered.png'), fullPage: true });

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.locator('ol.delivery-log').waitFor();
    expect(await rows(view).count()).toBe(2);
    expect(await filters.getByLabel('Since').inputValue()).toBe('');
    expect(await page.locator('.filter-summary').count()).toBe(0);
  } finally {
    await context.close();
  }
});

test('Recover failed deliveries sends the failed ones again; bad times and an inactive webhook are refused in the dialog', async () => {
  const id = await mixedWebhook();
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await openWebhook(view, id, 'Mixed endpoint');
  expect(await rows(view).first().locator('.badge.result').textContent()).toBe('Failed');

  await view.page.getByRole('button', { name: 'Recover failed deliveries' }).click();
  const dialog = view.page.getByRole('dialog', { name: 'Recover failed deliveries of Mixed endpoint' });
  await dialog.waitFor();
  // Since is required: the API's message shows at the field.
  await dialog.getByRole('button', { name: 'Recover deliveries' }).click();
  await dialog
    .locator('.field-error')
    .getByText(/since is required/)
    .waitFor();
  expect(await dialog.getByLabel('Failed since').getAttribute('aria-invalid')).toBe('true');
  await view.screenshot('recover-since-required');

  failing.delete('/mixed');
  const before = receiver.requests.filter((request) => request.url === '/mixed').length;
  await dialog.getByLabel('Failed since').fill(await localInputValue(view.page, -60));
  await dialog.getByRole('button', { name: 'Recover deliveries' }).click();
  await dialog.waitFor({ state: 'detached' });
  await view.page.getByRole('status').getByText('1 failed delivery will be sent again.').waitFor();
  await waitFor(
    () => receiver.requests.filter((request) => request.url === '/mixed').length === before + 1,
    'the failed delivery sent once more',
  );
  const resent = receiver.requests.filter((request) => request.url === '/mixed').at(-1)!;
  expect(resent.body.toString()).toContain('job.run.errored');
  await waitFor(async () => (await attempts(id))[0]?.success === true, 'the recovered attempt logged');
  await view.page.getByRole('button', { name: 'Refresh' }).click();
  await rows(view).first().locator('.badge.result').getByText('Succeeded').waitFor();
  // Once the last render is drawn (an earlier one still under way would be dropped), the count is exact.
  await view.page.locator('[data-generation]:not([aria-busy])').waitFor();
  expect(await rows(view).first().locator('summary').textContent()).toBe('7 attempts');

  // An inactive webhook sends nothing: the API's 409 is shown in the dialog.
  const paused = await hookAt('Paused endpoint', '/paused', { active: false });
  await view.page.goto(`${ui.origin}/#/webhooks/${paused}`);
  await view.page.getByRole('heading', { name: 'Paused endpoint', level: 1 }).waitFor();
  await view.page.getByRole('button', { name: 'Recover failed deliveries' }).click();
  const refused = view.page.getByRole('dialog', { name: 'Recover failed deliveries of Paused endpoint' });
  await refused.getByLabel('Failed since').fill(await localInputValue(view.page, -60));
  await refused.getByRole('button', { name: 'Recover deliveries' }).click();
  await refused.getByRole('alert').waitFor();
  expect(await refused.getByRole('alert').textContent()).toMatch(/inactive|reactivate/i);
  await view.screenshot('recover-refused');
  await refused.getByRole('button', { name: 'Cancel' }).click();
  await refused.waitFor({ state: 'detached' });
});

test('a read-only token sees the log and the detail, but neither Redeliver nor Recover', async () => {
  const brokenForGood = await hookAt('Refusing endpoint', '/refusing');
  failing.add('/refusing');
  await ingest(ui.h, 'job.run.completed', { jobId: String('/refusing'.length), runId: '801' });
  await waitFor(async () => (await attempts(brokenForGood)).length === 6, 'six failed attempts');
  const view = await ui.open();
  await signIn(view, await ui.h.token('Read-Only'));
  await openWebhook(view, brokenForGood, 'Refusing endpoint');
  expect(await rows(view).first().locator('.badge.result').textContent()).toBe('Failed');
  await expect(view.page.getByRole('button', { name: /Recover|Redeliver/ }).count()).resolves.toBe(0);
  await rows(view)
    .first()
    .getByRole('button', { name: /Request and responses/ })
    .click();
  await view.page.getByRole('dialog', { name: 'Delivery of job.run.completed' }).waitFor();
});

test('at 375 px each delivery’s status and result stay within the screen', async () => {
  const id = await mixedWebhook();
  const phone = await ui.open({ width: 375, height: 812 });
  await signIn(phone, ADMIN_TOKEN);
  await openWebhook(phone, id, 'Mixed endpoint');
  expect(await phone.page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)).toBe(false);
  const count = await rows(phone).count();
  expect(count).toBeGreaterThan(0);
  for (let index = 0; index < count; index += 1) {
    for (const part of ['.status-code', '.badge.result']) {
      const box = await rows(phone).nth(index).locator(part).boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    }
  }
  await phone.screenshot('phone-deliveries-rows');
});

test('the log pages by 100 attempts, newest first', async () => {
  const healthy = await hookAt('Healthy endpoint', '/healthy');
  for (let run = 1; run <= 101; run += 1)
    await ingest(ui.h, 'job.run.completed', { jobId: String('/healthy'.length), runId: String(9000 + run) });
  await waitFor(
    async () =>
      (await ui.h.call('GET', `${webhookPath(healthy)}/deliveries?limit=1`)).json().extra.pagination.total_count ===
      101,
    '101 deliveries',
  );

  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await openWebhook(view, healthy, 'Healthy endpoint');
  await view.page.getByText('Attempts 1–100 of 101').waitFor();
  expect(await rows(view).count()).toBe(100);
  expect(await view.page.locator('.badge.result').allTextContents()).toEqual(Array(100).fill('Succeeded'));
  expect(await view.page.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);
  await view.page.getByRole('button', { name: 'Older' }).click();
  await view.page.getByText('Attempts 101–101 of 101').waitFor();
  expect(await rows(view).count()).toBe(1);
  expect(await view.page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
  await view.page.getByRole('button', { name: 'Newer' }).click();
  await view.page.getByText('Attempts 1–100 of 101').waitFor();
});

test('a page read before a later Refresh is never drawn over it', async () => {
  const id = await hookAt('Refreshed twice', '/refreshed');
  await ingest(ui.h, 'job.run.completed', { jobId: String('/refreshed'.length), runId: '1801' });
  await waitFor(async () => (await attempts(id)).length === 1, 'the first delivery logged');
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await openWebhook(view, id, 'Refreshed twice');
  expect(await rows(view).count()).toBe(1);

  // The next read of the log is answered as it stands now, but handed to the page only when released.
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  await view.page.route(`**${webhookPath(id)}/deliveries?**`, async (route) => {
    if ((held += 1) > 1) return route.continue();
    const stale = await route.fetch();
    await released;
    await route.fulfill({ response: stale });
  });
  await view.page.getByRole('button', { name: 'Refresh' }).click();
  await waitFor(async () => held === 1, 'the first Refresh reading the log');

  await ingest(ui.h, 'job.run.completed', { jobId: String('/refreshed'.length), runId: '1802' });
  await waitFor(async () => (await attempts(id)).length === 2, 'the second delivery logged');
  await view.page.getByRole('button', { name: 'Refresh' }).click();
  await rows(view).nth(1).waitFor();

  release();
  await waitFor(async () => held === 2, 'both reads answered');
  // The stale answer, drawn last, would show one delivery again.
  await view.page.waitForTimeout(200);
  expect(await rows(view).count()).toBe(2);
  expect(await view.page.locator('[data-generation]').getAttribute('aria-busy')).toBeNull();
  expect(view.consoleErrors).toEqual([]);
});
