// The operator's console in real Chromium, against a real service whose log holds known outcomes: the overview
// (the landing page), the webhooks table (search, filter, sort, the view in the URL) and a webhook's health chart.
// Every number on the screen is the API's, and the API's are the delivery log's, counted here from the log itself.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { ACCOUNT_ID, ADMIN_TOKEN, createWebhook, webhookPath } from '../support/harness';
import { signIn, signInToOverview, startUiHarness, type UiHarness, type UiPage } from '../support/browser';
import { ingest } from '../support/events';
import { type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';
import { rateText } from '../../service/src/ui/webhook-rows';
import { bucketSentence } from '../../service/src/ui/health-chart';

/**
 * The screenshots the guide shows (docs/getting-started.md, the web UI), written only when asked for with
 * JOBHOOKS_DOCS_SCREENSHOTS=1 (docs/development.md), so a test run leaves the committed pictures alone.
 */
const DOCS_SCREENSHOTS = join(__dirname, '..', '..', 'docs', 'screenshots');
const WRITE_DOCS_SCREENSHOTS = process.env.JOBHOOKS_DOCS_SCREENSHOTS === '1';

let ui: UiHarness;
let receiver: Receiver;
const ids: Record<'ok' | 'refused' | 'sick' | 'gone' | 'off', string> = {
  ok: '',
  refused: '',
  sick: '',
  gone: '',
  off: '',
};

interface LogRow {
  success: boolean;
  delivery_id: string | null;
  test: boolean;
}
const logOf = async (id: string): Promise<LogRow[]> =>
  (await ui.h.call('GET', `${webhookPath(id)}/deliveries?limit=100`)).json().data;
const api = async (path: string) => (await ui.h.call('GET', path)).json().data;
const accountStats = () => api(`/api/v3/accounts/${ACCOUNT_ID}/webhooks/statistics`);

beforeAll(async () => {
  ui = await startUiHarness({ env: { JOBHOOKS_RETRY_SCHEDULE: '0,0,0,0,0' } });
  // /ok answers 200; /refused 400 (a failure that leaves the circuit closed: six attempts a delivery); /sick 500
  // (its circuit opens after five); /gone 410 (archived at once).
  receiver = await startReceiver((req, res) => {
    res.writeHead({ '/ok': 200, '/refused': 400, '/sick': 500, '/gone': 410 }[req.url ?? ''] ?? 404).end();
  });
  const hook = async (name: string, path: string, active = true) =>
    (
      await createWebhook(ui.h, {
        name,
        client_url: `${receiver.url}${path}`,
        event_types: ['job.run.completed'],
        job_ids: [],
        active,
      })
    ).id;
  ids.ok = await hook('Orders warehouse', '/ok');
  ids.refused = await hook('Billing sync', '/refused');
  ids.sick = await hook('Search index', '/sick');
  ids.gone = await hook('Legacy CRM', '/gone');
  ids.off = await hook('Paused experiment', '/ok', false);
  for (const runId of ['1', '2', '3']) await ingest(ui.h, 'job.run.completed', { runId });
  await waitFor(async () => (await logOf(ids.refused)).length === 18, 'six attempts of each /refused delivery');
  await waitFor(async () => (await logOf(ids.ok)).length === 3, 'the /ok deliveries');
  await waitFor(async () => (await api(webhookPath(ids.sick))).delivery_circuit === 'open', 'the circuit to open');
  await waitFor(async () => (await api(webhookPath(ids.gone))).archived === true, 'the archive');
});
afterAll(async () => {
  await receiver.close();
  await ui.close();
});

/**
 * What the log says: attempts by outcome, and the deliveries its attempts belong to by the state they ended in (a
 * delivery skipped when its webhook was archived made an attempt, but did not finish by it).
 */
async function countedFromLog(id: string) {
  const rows = (await logOf(id)).filter((r) => !r.test);
  const ok = rows.filter((r) => r.success).length;
  const states = await Promise.all(
    [...new Set(rows.map((r) => r.delivery_id))].map(
      async (deliveryId) => (await api(`${webhookPath(id)}/deliveries/${deliveryId}`)).state as string,
    ),
  );
  return {
    ok,
    failed: rows.length - ok,
    deliveriesOk: states.filter((s) => s === 'succeeded').length,
    deliveriesFailed: states.filter((s) => s === 'failed').length,
    rate: rows.length === 0 ? null : ok / rows.length,
  };
}

const tileValue = (view: UiPage, label: string) =>
  view.page.locator(`[data-tile="${label}"] .tile-value`).textContent();

function overflowsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

/** Just the part of the page the guide is about, so the picture stays small. */
async function docsScreenshot(part: Locator, name: string): Promise<void> {
  if (!WRITE_DOCS_SCREENSHOTS) return;
  mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
  await part.screenshot({ path: join(DOCS_SCREENSHOTS, `${name}.png`) });
}

test('the overview is the landing page; its numbers are the API’s, which are the log’s; two clicks reach a webhook', async () => {
  const logs = {
    ok: await countedFromLog(ids.ok),
    refused: await countedFromLog(ids.refused),
    sick: await countedFromLog(ids.sick),
    gone: await countedFromLog(ids.gone),
  };
  const attemptsOk = Object.values(logs).reduce((n, l) => n + l.ok, 0);
  const attemptsFailed = Object.values(logs).reduce((n, l) => n + l.failed, 0);
  const deliveriesOk = Object.values(logs).reduce((n, l) => n + l.deliveriesOk, 0);
  const deliveriesFailed = Object.values(logs).reduce((n, l) => n + l.deliveriesFailed, 0);
  // From the log: 3 successes; 18 refused and 5 sick attempts failed, and the 410s (the first archived /gone:
  // its other deliveries were skipped, so only that one failed).
  expect([attemptsOk, deliveriesOk]).toEqual([3, 3]);
  expect(logs.refused.deliveriesFailed).toBe(3);
  expect(logs.gone.deliveriesFailed).toBe(1);
  const stats = await accountStats();
  expect(stats.totals).toMatchObject({
    attempts_succeeded: attemptsOk,
    attempts_failed: attemptsFailed,
    deliveries_succeeded: deliveriesOk,
    deliveries_failed: deliveriesFailed,
    success_rate: attemptsOk / (attemptsOk + attemptsFailed),
  });

  const view = await ui.open();
  await signInToOverview(view, ADMIN_TOKEN);
  expect(await tileValue(view, 'Success rate, last 24 h')).toBe(rateText(stats.totals.success_rate));
  expect(await tileValue(view, 'Deliveries, last 24 h')).toBe(String(deliveriesOk + deliveriesFailed));
  // Failing: /refused and /sick (their last attempts failed); paused: /sick; archived: /gone.
  expect(await tileValue(view, 'Failing webhooks')).toBe('2');
  expect(await tileValue(view, 'Open circuits')).toBe('1');
  expect(await tileValue(view, 'Archived webhooks')).toBe('1');
  expect(await tileValue(view, 'Due backlog')).toBe(String(stats.due));
  expect(stats.pending).toBe(3);

  // The chart's table holds the API's hours; the current hour's attempts are the log's.
  const lastHour = view.page.locator('#overview-chart ~ figure .chart-table tbody tr').last();
  expect(await lastHour.locator('td').allTextContents()).toEqual(
    expect.arrayContaining([String(attemptsOk), String(attemptsFailed)]),
  );
  expect((await lastHour.locator('td').allTextContents()).slice(0, 4)).toEqual(
    [attemptsOk, attemptsFailed, deliveriesOk, deliveriesFailed].map(String),
  );

  // Needs attention: the paused webhook first, then the failing one, each with its rate from the API.
  const attention = view.page.locator('table.attention tbody tr');
  expect(await attention.locator('th').allTextContents()).toEqual(['Search index', 'Billing sync']);
  const billing = stats.webhooks.find((w: { webhook_id: string }) => w.webhook_id === ids.refused);
  expect(await attention.nth(1).locator('.rate').textContent()).toBe(rateText(billing.totals.success_rate));
  expect(await attention.nth(1).locator('.rate').textContent()).toBe(rateText(logs.refused.rate));
  expect(await attention.nth(0).textContent()).toContain('Paused (circuit open)');
  expect(await attention.nth(0).textContent()).toContain('Failing since');
  expect(await view.page.locator('#overview-archived ~ ul li').textContent()).toContain('Legacy CRM');
  expect(await view.page.locator('#overview-waiting ~ ul li').textContent()).toContain('Search index: 3 waiting');
  // Each tile about webhooks opens the list filtered to them.
  for (const [tile, filter] of [
    ['Failing webhooks', 'failing'],
    ['Open circuits', 'paused'],
    ['Archived webhooks', 'archived'],
  ])
    expect(await view.page.locator(`[data-tile="${tile}"] a`).getAttribute('href')).toBe(`#/webhooks?state=${filter}`);
  await view.page.setViewportSize({ width: 1000, height: 800 });
  await docsScreenshot(view.page.locator('main'), 'overview');
  await view.screenshot('overview');

  // Two clicks: the Failing tile opens the filtered list, and a name opens the webhook.
  await view.page.locator('[data-tile="Failing webhooks"] a').click();
  // The heading shows while the webhooks load; the table comes with them. The list's own table: the overview's
  // attention table has the same rows' class and may still be there when the click returns.
  await view.page.locator('table.all-webhooks tbody tr').first().waitFor();
  expect(view.page.url()).toContain('#/webhooks?state=failing');
  expect(await view.page.locator('table.all-webhooks tbody tr').count()).toBe(2);
  await view.page.getByRole('link', { name: 'Billing sync' }).click();
  await view.page.getByRole('heading', { name: 'Billing sync', level: 1 }).waitFor();
  expect(view.consoleErrors).toEqual([]);
  expect(view.foreignRequests).toEqual([]);
});

test("a webhook's chart shows the API's hours, hour by hour on hover and from the keyboard, with its markers", async () => {
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await view.page.locator(`[data-webhook-id="${ids.refused}"]`).getByRole('link', { name: 'Billing sync' }).click();
  const chart = view.page.locator('.health-panel svg.health-chart');
  await chart.waitFor();
  const stats = await api(`${webhookPath(ids.refused)}/statistics`);
  const log = await countedFromLog(ids.refused);
  expect(stats.totals).toMatchObject({
    attempts_succeeded: log.ok,
    attempts_failed: log.failed,
    deliveries_failed: log.deliveriesFailed,
  });
  expect(await view.page.locator('[data-total="attempts"]').textContent()).toBe(`0 succeeded, ${log.failed} failed`);
  expect(await view.page.locator('[data-total="deliveries"]').textContent()).toBe('0 succeeded, 3 failed');
  expect(await view.page.locator('[data-total="success_rate"]').textContent()).toBe('0 %');
  expect(await view.page.locator('[data-total="latency"]').textContent()).toBe(
    `p50 ≤ ${stats.totals.p50_ms} ms, p95 ≤ ${stats.totals.p95_ms} ms`,
  );

  // Focus reads the current hour; the arrow keys move along the hours; hovering reads the hour under the pointer.
  const readout = view.page.locator('.health-panel .chart-readout');
  await chart.focus();
  expect(await readout.textContent()).toBe(bucketSentence(stats.buckets[23]));
  await docsScreenshot(view.page.locator('.health-panel'), 'webhook-chart');
  await view.page.keyboard.press('ArrowLeft');
  expect(await readout.textContent()).toBe(bucketSentence(stats.buckets[22]));
  await view.page.keyboard.press('Home');
  expect(await readout.textContent()).toBe(bucketSentence(stats.buckets[0]));
  await view.page.keyboard.press('End');
  expect(await readout.textContent()).toBe(bucketSentence(stats.buckets[23]));
  await chart.locator('g.bar').nth(5).hover();
  expect(await readout.textContent()).toBe(bucketSentence(stats.buckets[5]));
  // The same numbers as a table, for screen readers.
  await view.page.getByText('Show these numbers as a table').click();
  const rows = view.page.locator('.health-panel .chart-table tbody tr');
  expect(await rows.count()).toBe(24);
  expect((await rows.last().locator('td').allTextContents()).slice(0, 4)).toEqual(['0', String(log.failed), '0', '3']);
  await view.screenshot('webhook-chart');

  // Seven days: 168 hours.
  await view.page.getByRole('button', { name: 'Last 7 days' }).click();
  await view.page.locator('.health-panel .window-switch [aria-pressed="true"]').getByText('Last 7 days').waitFor();
  expect(await view.page.locator('.health-panel .chart-table tbody tr').count()).toBe(168);

  // The circuit's opening and the archive are marked on their webhooks' charts.
  await view.page.goto(`${ui.origin}/#/webhooks/${ids.sick}`);
  await view.page.locator('.health-panel .key.marker.circuit_opened').waitFor();
  expect(await view.page.locator('.health-panel svg .marker.circuit_opened').count()).toBe(1);
  await view.page.goto(`${ui.origin}/#/webhooks/${ids.gone}`);
  const archived = await api(webhookPath(ids.gone));
  await view.page
    .locator('.health-panel .key.marker.archived')
    .getByText(archived.archived_reason, { exact: false })
    .waitFor();
  expect(view.consoleErrors).toEqual([]);
});

test('the table searches, filters and sorts; the view is in the URL, and a shared URL opens the same view', async () => {
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  const names = () => view.page.locator('table.webhook-table tbody th a.name').allTextContents();
  expect(await names()).toEqual([
    'Billing sync',
    'Legacy CRM',
    'Orders warehouse',
    'Paused experiment',
    'Search index',
  ]);

  // Each row's 24 hours: its deliveries and its attempts (the sparkline's label) are the log's.
  for (const id of [ids.ok, ids.refused, ids.sick, ids.gone]) {
    const log = await countedFromLog(id);
    const row = view.page.locator(`tr[data-webhook-id="${id}"]`);
    const deliveries = log.deliveriesOk + log.deliveriesFailed;
    expect(await row.locator('.deliveries').textContent()).toBe(
      `${deliveries} ${deliveries === 1 ? 'delivery' : 'deliveries'}`,
    );
    expect(await row.locator('.rate').textContent()).toBe(rateText(log.rate));
    expect(await row.locator('svg.sparkline').getAttribute('aria-label')).toBe(
      `Attempts per hour over the last 24 hours: ${log.ok + log.failed} in all, ${log.failed} failed`,
    );
  }

  // The other columns: the endpoint's host, the event types, the state, the last status and the last dispatch.
  const okRow = view.page.locator(`tr[data-webhook-id="${ids.ok}"]`);
  const okHook = await api(webhookPath(ids.ok));
  expect(await okRow.locator('td[data-label="Endpoint"]').textContent()).toBe(new URL(receiver.url).host);
  expect(await okRow.locator('td[data-label="Events"]').textContent()).toBe('completed');
  expect(await okRow.locator('td[data-label="State"]').textContent()).toBe('Active');
  expect(await okRow.locator('td[data-label="Last status"]').textContent()).toContain(okHook.http_status_code);
  expect(await okRow.locator('td[data-label="Last dispatch"] time').getAttribute('datetime')).toBe(
    new Date(Number(okHook.dispatched_at) / 1000).toISOString(),
  );
  expect(await view.page.locator(`tr[data-webhook-id="${ids.sick}"] td[data-label="State"]`).textContent()).toMatch(
    /^Paused \(circuit open\)Failing since /,
  );

  await view.page.getByLabel('Search', { exact: true }).fill('BILL');
  expect(await names()).toEqual(['Billing sync']);
  // By URL too: the receiver's port is in every URL, its path only in one.
  await view.page.getByLabel('Search', { exact: true }).fill('/gone');
  expect(await names()).toEqual(['Legacy CRM']);
  await view.page.getByLabel('Search', { exact: true }).fill('');

  for (const [filter, expected] of [
    ['failing', ['Billing sync', 'Search index']],
    ['paused', ['Search index']],
    ['archived', ['Legacy CRM']],
    ['inactive', ['Paused experiment']],
  ] as const) {
    await view.page.getByLabel('Show', { exact: true }).selectOption(filter);
    expect(await names()).toEqual(expected);
  }
  await view.page.getByLabel('Show', { exact: true }).selectOption('all');

  // Sort by the 24-hour success rate, then again for descending: the rates come from the API.
  await view.page.getByRole('button', { name: 'Last 24 h' }).click();
  expect(await names()).toEqual([
    'Billing sync',
    'Legacy CRM',
    'Search index',
    'Orders warehouse',
    'Paused experiment',
  ]);
  await view.page.getByRole('button', { name: 'Last 24 h' }).click();
  expect(await view.page.locator('th:has(button[data-sort="rate"])').getAttribute('aria-sort')).toBe('descending');
  expect((await names())[0]).toBe('Paused experiment');
  await view.page.getByRole('button', { name: 'State' }).click();
  await view.page.getByLabel('Show', { exact: true }).selectOption('failing');
  await view.page.getByLabel('Search', { exact: true }).fill('s');
  // The page's own address (history.replaceState changes it without a navigation).
  const shared = await view.page.evaluate(() => location.href);
  expect(shared).toMatch(/#\/webhooks\?q=s&state=failing&sort=state$/);
  const rates = await view.page.locator('tbody .rate').allTextContents();
  const stats = await accountStats();
  const rateOf = (id: string) =>
    rateText(stats.webhooks.find((w: { webhook_id: string }) => w.webhook_id === id).totals.success_rate);
  expect(rates).toEqual([rateOf(ids.refused), rateOf(ids.sick)]);

  // Shared: another browser session opens the URL, signs in, and sees the same view.
  const colleague = await ui.open();
  await colleague.page.goto(shared);
  await colleague.page.getByLabel('API token').fill(ADMIN_TOKEN);
  await colleague.page.getByRole('button', { name: 'Sign in' }).click();
  await colleague.page.locator('table.webhook-table tbody tr').first().waitFor();
  expect(await colleague.page.getByLabel('Search', { exact: true }).inputValue()).toBe('s');
  expect(await colleague.page.getByLabel('Show', { exact: true }).inputValue()).toBe('failing');
  expect(await colleague.page.locator('tbody th a.name').allTextContents()).toEqual(['Billing sync', 'Search index']);
  expect(await colleague.page.locator('th:has(button[data-sort="state"])').getAttribute('aria-sort')).toBe('ascending');
  await view.screenshot('webhooks-table-filtered');
});

test('at 375 px wide the overview, the table and the chart fit; the keyboard alone searches, sorts and reads the chart', async () => {
  const phone = await ui.open({ width: 375, height: 812 });
  await signInToOverview(phone, ADMIN_TOKEN);
  expect(await overflowsWidth(phone.page)).toBe(false);
  await phone.screenshot('phone-overview');
  await phone.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
  await phone.page.locator('table.webhook-table tbody tr').first().waitFor();
  expect(await overflowsWidth(phone.page)).toBe(false);
  await phone.screenshot('phone-webhooks-table');
  await phone.page.getByRole('link', { name: 'Billing sync' }).click();
  await phone.page.locator('.health-panel svg.health-chart').waitFor();
  expect(await overflowsWidth(phone.page)).toBe(false);

  // Keyboard only: from the page's start, Tab to the search field, type, Tab to the filter, choose, sort by name.
  const view = await ui.open();
  await view.page.keyboard.type(ADMIN_TOKEN);
  await view.page.keyboard.press('Enter');
  await view.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  await tabTo(view.page, (el) => el.textContent === 'Webhooks' && el.tagName === 'A');
  await view.page.keyboard.press('Enter');
  await view.page.locator('table.webhook-table tbody tr').first().waitFor();
  await tabTo(view.page, (el) => el.getAttribute('type') === 'search');
  await view.page.keyboard.type('i');
  await view.page.keyboard.press('Tab');
  await view.page.keyboard.press('ArrowDown');
  expect(await view.page.getByLabel('Show', { exact: true }).inputValue()).toBe('failing');
  await tabTo(view.page, (el) => el.getAttribute('data-sort') === 'name');
  await view.page.keyboard.press('Enter');
  expect(await view.page.locator('tbody th a.name').allTextContents()).toEqual(['Search index', 'Billing sync']);
  await tabTo(view.page, (el) => el.textContent === 'Search index' && el.tagName === 'A');
  await view.page.keyboard.press('Enter');
  // The chart is drawn once the webhook's statistics are in, after its heading.
  await view.page.locator('.health-panel svg.health-chart').waitFor();
  await tabTo(view.page, (el) => el.classList.contains('health-chart'));
  await view.page.keyboard.press('ArrowLeft');
  expect(await view.page.locator('.health-panel .chart-readout').textContent()).toMatch(/attempts succeeded/);
  expect(view.consoleErrors).toEqual([]);
});

test('the overview, still loading when the operator opens the list, does not draw over the list', async () => {
  const view = await ui.open();
  // The overview's statistics are held back (the real answer, late) until the list is on screen.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  await view.page.route('**/webhooks/statistics?window=24h', async (route) => {
    if (!first) return route.continue();
    first = false;
    await held;
    await route.continue();
  });
  await view.page.getByLabel('API token').fill(ADMIN_TOKEN);
  await view.page.getByRole('button', { name: 'Sign in' }).click();
  await view.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  await view.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
  await view.page.locator('table.all-webhooks tbody tr').first().waitFor();
  const overviewAnswered = view.page.waitForResponse('**/webhooks/statistics?window=24h');
  release();
  await overviewAnswered;
  // The overview's answer is in and handled (a task later); the list is still what is shown.
  await view.page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
  expect(await view.page.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['Webhooks']);
  expect(await view.page.locator('table.all-webhooks tbody tr').count()).toBe(5);
  expect(view.consoleErrors).toEqual([]);
});

/** Presses Tab until the focused element passes `found`; fails after 80 presses. */
async function tabTo(page: Page, found: (el: Element) => boolean): Promise<void> {
  for (let presses = 0; presses < 80; presses += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`(${found.toString()})(document.activeElement)`)) return;
  }
  throw new Error(`no element reached with Tab passes ${found.toString()}`);
}

test('a read-only token sees the overview, the table and the charts, without any control that changes a webhook', async () => {
  const view = await ui.open();
  await signInToOverview(view, await ui.h.token('Read-Only'));
  expect(await tileValue(view, 'Failing webhooks')).toBe('2');
  await view.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
  await view.page.locator('table.all-webhooks tbody tr').first().waitFor();
  expect(await view.page.locator('table.webhook-table thead th').allTextContents()).not.toContain('Actions');
  await expect(view.page.getByRole('switch').count()).resolves.toBe(0);
  await view.page.getByRole('link', { name: 'Orders warehouse' }).click();
  await view.page.locator('.health-panel svg.health-chart').waitFor();
  expect(await view.page.locator('[data-total="attempts"]').textContent()).toBe('3 succeeded, 0 failed');
  expect(view.consoleErrors).toEqual([]);
});
