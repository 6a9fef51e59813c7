// The console with 1,000 webhooks and 100,000 logged attempts, in real Chromium: the overview and the webhooks table
// are usable soon after sign-in (the bound here is generous, for a loaded CI machine; the figures measured are
// written to test-output/ui-scale.jsonl and quoted in docs/performance.md), and their numbers are still the log's.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_TOKEN, webhooksPath } from '../support/harness';
import { SCREENSHOT_DIR, startUiHarness, type UiHarness } from '../support/browser';
import { INSTANCES_ENV, testBackend } from '../support/postgres';
import { SEED_FAIL_EVERY, seedLog } from '../support/seed-log';
import { rateText } from '../../service/src/ui/webhook-rows';

// Two sign-ins and four timed phases, each with its own bound: jest's limit is a hang guard, not a bound on speed.
jest.setTimeout(90_000);

const WEBHOOKS = 1000;
const ATTEMPTS = 100_000;
/** Generous: the figure measured on the 2-core machine is far below it (docs/performance.md). */
const USABLE_WITHIN_MS = 8_000;

let ui: UiHarness;
const ids: string[] = [];
beforeAll(async () => {
  ui = await startUiHarness();
  for (let i = 0; i < WEBHOOKS; i += 1) {
    const created = await ui.h.call('POST', webhooksPath(), {
      body: {
        name: `Webhook ${String(i).padStart(4, '0')}`,
        // Nothing is ingested: no request is ever sent to it.
        client_url: `http://127.0.0.1:9/hook/${i}`,
        event_types: ['job.run.completed'],
      },
    });
    if (created.statusCode !== 201) throw new Error(`create failed: ${created.body}`);
    ids.push(created.json().data.id);
  }
  await seedLog(ui.h.db, {
    accountId: 1,
    webhookIds: ids,
    attempts: ATTEMPTS,
    now: Date.now() * 1000,
    spanSeconds: 23 * 3600,
  });
}, 300_000);
afterAll(async () => ui.close());

test('with 1,000 webhooks and 100,000 attempts the overview and the table are usable within the bound after sign-in', async () => {
  // The log, counted: every seventh attempt failed.
  const [counted] = await ui.h.db.rows<{ n: number; failed: number }>(
    `SELECT count(*) AS n, sum(CASE WHEN success THEN 0 ELSE 1 END) AS failed FROM delivery_attempts`,
  );
  expect(counted).toEqual({ n: ATTEMPTS, failed: Math.floor(ATTEMPTS / SEED_FAIL_EVERY) });
  const stats = (await ui.h.call('GET', '/api/v3/accounts/1/webhooks/statistics')).json().data;
  expect(stats.totals).toMatchObject({
    attempts_succeeded: counted!.n - counted!.failed,
    attempts_failed: counted!.failed,
  });

  const view = await ui.open();
  await view.page.getByLabel('API token').fill(ADMIN_TOKEN);
  let started = Date.now();
  await view.page.getByRole('button', { name: 'Sign in' }).click();
  await view.page.locator('[data-tile="Success rate, last 24 h"] .tile-value').waitFor();
  const overviewMs = Date.now() - started;
  expect(await view.page.locator('[data-tile="Success rate, last 24 h"] .tile-value').textContent()).toBe(
    rateText(stats.totals.success_rate),
  );
  await view.screenshot('scale-overview');

  // The list, opened by its address (a shared link): from sign-in until it is usable (its first rows on screen,
  // with their numbers, and the search there), then until its last row is there too.
  const list = await ui.open();
  await list.page.goto(`${ui.origin}/#/webhooks`);
  await list.page.getByLabel('API token').fill(ADMIN_TOKEN);
  started = Date.now();
  await list.page.getByRole('button', { name: 'Sign in' }).click();
  await list.page.locator('table.webhook-table tbody tr .rate').first().waitFor();
  const listUsableMs = Date.now() - started;
  await list.page
    .locator('table.webhook-table tbody tr')
    .nth(WEBHOOKS - 1)
    .waitFor();
  const tableMs = Date.now() - started;
  // Usable: a search narrows the 1,000 rows at once.
  started = Date.now();
  // Found by its type, not its label: Playwright's label lookup reads the labels of all 1,000 rows' controls, and
  // would be most of what is timed here.
  await list.page.locator('input[type="search"]').fill('Webhook 0777');
  await list.page.locator('table.webhook-table tbody tr').nth(1).waitFor({ state: 'detached' });
  const searchMs = Date.now() - started;
  expect(await list.page.locator('tbody th a.name').allTextContents()).toEqual(['Webhook 0777']);
  await list.screenshot('scale-webhooks');

  // One line per run and backend, added to the file, so runs can be compared.
  const backend = process.env[INSTANCES_ENV] === '2' ? 'postgres, two instances' : testBackend();
  mkdirSync(join(SCREENSHOT_DIR, '..'), { recursive: true });
  appendFileSync(
    join(SCREENSHOT_DIR, '..', 'ui-scale.jsonl'),
    `${JSON.stringify({ backend, webhooks: WEBHOOKS, attempts: ATTEMPTS, overviewMs, listUsableMs, tableMs, searchMs })}\n`,
  );
  expect(overviewMs).toBeLessThan(USABLE_WITHIN_MS);
  expect(listUsableMs).toBeLessThan(USABLE_WITHIN_MS);
  expect(tableMs).toBeLessThan(USABLE_WITHIN_MS);
  expect(searchMs).toBeLessThan(USABLE_WITHIN_MS);
  expect(view.consoleErrors).toEqual([]);
  expect(list.consoleErrors).toEqual([]);
});
