// An endpoint whose recent attempts all failed, in real Chromium: the service holds its deliveries back (the
// circuit is open) and the card and the detail view say so beside the latest status, with the time of the next
// try; once that time has passed they say the endpoint is being probed. A healthy endpoint shows nothing extra.
import type { Page } from 'playwright-core';
import { createManualClock } from '../../service/src/core/clock';
import { ADMIN_TOKEN, createWebhook, webhookPath } from '../support/harness';
import { signIn, startUiHarness, type UiHarness } from '../support/browser';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

// A clock that stands still keeps the circuit open for as long as the test looks at it (its first open period
// is only about ten seconds); it starts at the real time so the page shows a plausible next try.
const clock = createManualClock(BigInt(Date.now()) * 1_000_000n);
/** Sick answers in a row that open the circuit (DEFAULT_HEALTH_RULES.openAfterSickInARow). */
const SICK_IN_A_ROW = 5;

let ui: UiHarness;
let receiver: Receiver;
beforeAll(async () => {
  // Retries an hour away on a clock that does not move: only the first attempt of each delivery is sent.
  ui = await startUiHarness({ clock, env: { JOBHOOKS_RETRY_SCHEDULE: '3600,3600,3600,3600,3600' } });
  receiver = await startReceiver((request, response) =>
    request.url.startsWith('/failing') ? answer(500, 'down')(request, response) : answer(200, 'ok')(request, response),
  );
});
afterAll(async () => {
  await receiver.close();
  await ui.close();
});

async function circuitOf(id: string): Promise<{ delivery_circuit?: string; delivery_circuit_open_until?: string }> {
  return (await ui.h.call('GET', webhookPath(id))).json().data;
}

function overflowsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

/** The browser's own short name for its time zone at that moment, e.g. "UTC" or "GMT+1". */
function zoneNameAt(page: Page, iso: string): Promise<string | undefined> {
  return page.evaluate(
    (at) =>
      new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
        .formatToParts(new Date(at))
        .find((part) => part.type === 'timeZoneName')?.value,
    iso,
  );
}

test('five failed attempts in a row pause the endpoint: the card and the detail view show it with the next try; then probing', async () => {
  const { id: failing } = await createWebhook(ui.h, {
    name: 'Failing endpoint',
    client_url: `${receiver.url}/failing`,
    event_types: ['job.run.completed'],
    job_ids: [21],
  });
  const { id: healthy } = await createWebhook(ui.h, {
    name: 'Healthy endpoint',
    client_url: `${receiver.url}/healthy`,
    event_types: ['job.run.completed'],
    job_ids: [21],
  });
  for (let run = 1; run <= SICK_IN_A_ROW; run += 1) {
    await ingest(ui.h, 'job.run.completed', { jobId: '21', runId: String(9000 + run) });
  }
  const failed = () => receiver.requests.filter((request) => request.url.startsWith('/failing')).length;
  await waitFor(() => failed() === SICK_IN_A_ROW, `${SICK_IN_A_ROW} attempts at the failing endpoint`);
  // The receiver seeing the fifth request is not the dispatcher having its answer: wait for the circuit.
  await waitFor(async () => (await circuitOf(failing)).delivery_circuit === 'open', 'the circuit to open');
  const until = (await circuitOf(failing)).delivery_circuit_open_until;
  expect(until).toMatch(/^\d+$/);
  const untilIso = new Date(Math.floor(Number(until) / 1000)).toISOString();
  expect((await circuitOf(healthy)).delivery_circuit).toBe('closed');

  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  const card = view.page.locator(`[data-webhook-id="${failing}"]`);
  const paused = card.locator('.badge.circuit');
  await paused.waitFor();
  // The latest status stays, and the pause is told in words beside it, ending with the next try and its zone.
  expect(await card.locator('.badge').allTextContents()).toEqual(['HTTP 500', expect.any(String)]);
  const text = (await paused.textContent()) ?? '';
  expect(text).toMatch(/^Paused: endpoint failing, next try at \S/);
  expect(await paused.locator('time').getAttribute('datetime')).toBe(untilIso);
  const zone = await zoneNameAt(view.page, untilIso);
  expect(zone).toBeTruthy();
  expect(text).toContain(zone);
  // Closed: nothing beside the status.
  expect(await view.page.locator(`[data-webhook-id="${healthy}"] .badge`).allTextContents()).toEqual(['HTTP 200']);
  await view.screenshot('circuit-open-card');

  await card.getByRole('link', { name: 'Failing endpoint' }).click();
  await view.page.getByRole('heading', { level: 1, name: 'Failing endpoint' }).waitFor();
  const detail = view.page.locator('article.detail');
  expect(await detail.locator('header .badge.circuit').textContent()).toBe(text);
  expect(await detail.locator('header .badge.circuit time').getAttribute('datetime')).toBe(untilIso);
  // The detail view says what the pause means: nothing is lost, and a manual send still goes out.
  const sending = detail.locator('dt', { hasText: 'Sending' }).locator('xpath=following-sibling::dd[1]');
  expect(await sending.textContent()).toContain('not lost');
  expect(await sending.textContent()).toContain('Redeliver and Send test go out anyway');
  await view.screenshot('circuit-open-detail');

  // At 375 px wide the long badge wraps instead of widening the page, on the list and on the detail view.
  const phone = await ui.open({ width: 375, height: 812 });
  await signIn(phone, ADMIN_TOKEN);
  await phone.page.locator(`[data-webhook-id="${failing}"] .badge.circuit`).waitFor();
  expect(await overflowsWidth(phone.page)).toBe(false);
  await phone.screenshot('phone-circuit-open');
  await phone.page.getByRole('link', { name: 'Failing endpoint' }).click();
  await phone.page.locator('article.detail header .badge.circuit').waitFor();
  expect(await overflowsWidth(phone.page)).toBe(false);

  // Past the open period (ten seconds, stretched by at most a fifth) the circuit waits for its probe; nothing is
  // due on the standing clock, so it stays there.
  clock.advanceMillis(15_000);
  expect((await circuitOf(failing)).delivery_circuit).toBe('probing');
  await view.page.getByRole('link', { name: '← All webhooks' }).click();
  await card.locator('.badge.circuit').getByText('Probing endpoint', { exact: true }).waitFor();
  expect(await card.locator('.badge').allTextContents()).toEqual(['HTTP 500', 'Probing endpoint']);
  await view.screenshot('circuit-probing-card');
});
