// Rotating a webhook's secret in real Chromium (docs/api-contract.md#15-secret-rotation): the dialog asks for the
// overlap, the new secret is shown once, the webhook says until when the old secret signs, and End overlap now
// ends that. Deliveries sent through the UI's Send test verify with the secrets the page showed, in both schemes.
import type { Page } from 'playwright-core';
import { DEFAULT_SECRET_OVERLAP_SECONDS, MAX_SECRET_OVERLAP_SECONDS } from '@jobhooks/client/contract';
import { overlapSecondsOf, SECRET_OVERLAP_HOURS } from '../../service/src/ui/format';
import { ADMIN_TOKEN, createWebhook, webhookPath } from '../support/harness';
import { signIn, startUiHarness, type UiHarness, type UiPage } from '../support/browser';
import { answer, type ReceivedRequest, type Receiver, startReceiver } from '../support/receiver';
import { isGenuine, isGenuineStandard } from '../support/signature';

let ui: UiHarness;
let receiver: Receiver;
beforeAll(async () => {
  ui = await startUiHarness();
  receiver = await startReceiver(answer(200, 'ok'));
});
afterAll(async () => {
  await receiver.close();
  await ui.close();
});

/** The webhook's overlap as the API reports it: microseconds while it lasts, undefined otherwise. */
async function overlapOf(id: string): Promise<string | undefined> {
  return (await ui.h.call('GET', webhookPath(id))).json().data.previous_secret_expires_at;
}

const isoOf = (microseconds: string) => new Date(Math.floor(Number(microseconds) / 1000)).toISOString();

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

function overflowsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

/** Controls without an accessible name: a label, aria-label(ledby), or text of their own. */
function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('input, textarea, select, button, a[href]')]
      .filter((control) => {
        const labelled =
          (control as HTMLInputElement).labels?.length ||
          control.getAttribute('aria-label') ||
          control.getAttribute('aria-labelledby');
        return !labelled && (control.textContent ?? '').trim() === '';
      })
      .map((control) => control.outerHTML),
  );
}

const verifiesDbt = (hmacSecret: string, request: ReceivedRequest) =>
  isGenuine(hmacSecret, request.body, request.headers.authorization);

/** Send test through the page; resolves with the request the receiver got. */
async function sendTest(view: UiPage): Promise<ReceivedRequest> {
  const before = receiver.requests.length;
  await view.page.getByRole('button', { name: 'Send test' }).click();
  await view.page.getByText('Test delivered: the endpoint answered HTTP 200.').waitFor();
  expect(receiver.requests).toHaveLength(before + 1);
  await view.page.getByRole('button', { name: 'Send test' }).and(view.page.locator(':enabled')).waitFor();
  return receiver.requests.at(-1)!;
}

test('the overlap field’s default and bounds are the contract’s, in hours; what it sends is whole seconds', () => {
  expect(SECRET_OVERLAP_HOURS.default * 3600).toBe(DEFAULT_SECRET_OVERLAP_SECONDS);
  expect(SECRET_OVERLAP_HOURS.max * 3600).toBe(MAX_SECRET_OVERLAP_SECONDS);
  expect(overlapSecondsOf('24')).toBe(86_400);
  expect(overlapSecondsOf('0')).toBe(0);
  expect(overlapSecondsOf('0.7')).toBe(2_520);
  // Not a number: sent as typed for the API to refuse; an empty field is never read as 0 (no overlap at all).
  expect(overlapSecondsOf('')).toBe('');
  expect(overlapSecondsOf('soon')).toBe('soon');
});

test('rotate in the UI: the new secret is shown once, the webhook shows the overlap’s end, End overlap now ends it', async () => {
  const created = await createWebhook(ui.h, {
    name: 'Warehouse',
    client_url: `${receiver.url}/warehouse`,
    event_types: ['job.run.completed'],
  });
  const view = await ui.open();
  await signIn(view, ADMIN_TOKEN);
  await view.page.goto(`${ui.origin}/#/webhooks/${created.id}`);
  await view.page.getByRole('heading', { level: 1, name: 'Warehouse' }).waitFor();
  const detail = view.page.locator('article.detail');
  await expect(detail.getByRole('button', { name: 'End overlap now' }).count()).resolves.toBe(0);

  // The dialog asks first: focus starts on Cancel, the field holds the default, and Escape rotates nothing.
  await detail.getByRole('button', { name: 'Rotate secret' }).click();
  const ask = view.page.getByRole('dialog', { name: 'Rotate the secret of Warehouse?' });
  await ask.waitFor();
  expect(await view.page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
  const hours = ask.getByLabel('Overlap in hours');
  expect(await hours.inputValue()).toBe(String(DEFAULT_SECRET_OVERLAP_SECONDS / 3600));
  expect(await hours.getAttribute('min')).toBe('0');
  expect(await hours.getAttribute('max')).toBe(String(MAX_SECRET_OVERLAP_SECONDS / 3600));
  await view.page.keyboard.press('Escape');
  await ask.waitFor({ state: 'detached' });
  expect(await overlapOf(created.id)).toBeUndefined();

  // An overlap the API refuses is named at the field; the dialog stays and nothing is rotated.
  await detail.getByRole('button', { name: 'Rotate secret' }).click();
  await hours.fill('200');
  await ask.getByRole('button', { name: 'Rotate secret' }).click();
  const fieldError = ask.locator('.field-error:not([hidden])');
  await fieldError.waitFor();
  expect(await fieldError.textContent()).toBe(`overlap_seconds must be at most ${MAX_SECRET_OVERLAP_SECONDS} (7 days)`);
  expect(await hours.getAttribute('aria-invalid')).toBe('true');
  expect(await view.page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe(
    'overlap_hours',
  );
  expect(await overlapOf(created.id)).toBeUndefined();
  await view.screenshot('rotate-secret-refused');

  await hours.fill('2');
  const rotatedAt = Date.now();
  await ask.getByRole('button', { name: 'Rotate secret' }).click();
  const shown = view.page.getByRole('dialog', { name: 'New signing secret of Warehouse' });
  await shown.waitFor();
  await ask.waitFor({ state: 'detached' });
  const secret = await shown.getByLabel('Signing secret').inputValue();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  expect(secret).not.toBe(created.hmac_secret);

  // The API has the overlap, two hours from now; the dialog gives its end with the time zone, and the steps.
  const until = await overlapOf(created.id);
  expect(until).toMatch(/^\d+$/);
  expect(Number(until) / 1000 - rotatedAt).toBeGreaterThan(2 * 3600_000 - 60_000);
  expect(Number(until) / 1000 - rotatedAt).toBeLessThan(2 * 3600_000 + 60_000);
  const untilIso = isoOf(until!);
  const zone = await zoneNameAt(view.page, untilIso);
  expect(zone).toBeTruthy();
  const overlapText = (await shown.locator('.secret-overlap').textContent()) ?? '';
  expect(overlapText).toMatch(/^The old secret keeps signing until \S/);
  expect(overlapText).toContain(zone);
  expect(await shown.locator('.secret-overlap time').getAttribute('datetime')).toBe(untilIso);
  const dialogText = (await shown.textContent()) ?? '';
  expect(dialogText).toContain('cannot be shown again');
  expect(dialogText).toContain('Standard Webhooks receivers: give them the new secret');
  expect(dialogText).toContain('dbt-scheme receivers (Authorization): before then, make them accept either secret');
  await expect(shown.getByRole('button', { name: 'Copy secret' }).count()).resolves.toBe(1);
  await view.screenshot('rotate-secret-once');
  await shown.getByRole('button', { name: 'I have stored the secret' }).click();
  await shown.waitFor({ state: 'detached' });
  await view.page.getByRole('status').getByText('The secret of Warehouse is rotated.').waitFor();

  // The webhook's badge and its Signing secret fact give the overlap's end with its zone; the secret is gone.
  const badge = detail.locator('header .badge.overlap');
  await badge.waitFor();
  const badgeText = (await badge.textContent()) ?? '';
  expect(badgeText).toMatch(/^Old secret valid until \S/);
  expect(badgeText).toContain(zone);
  expect(await badge.locator('time').getAttribute('datetime')).toBe(untilIso);
  const fact = detail.locator('dt', { hasText: 'Signing secret' }).locator('xpath=following-sibling::dd[1]');
  expect(await fact.textContent()).toContain('the old secret still signs');
  expect(await view.page.content()).not.toContain(secret);
  await view.screenshot('secret-overlap-detail');

  // Not shown again after a reload; the overlap is still there, on the list's card too.
  await view.page.reload();
  await badge.waitFor();
  expect(await view.page.content()).not.toContain(secret);
  await view.page.getByRole('link', { name: '← All webhooks' }).click();
  const card = view.page.locator(`[data-webhook-id="${created.id}"]`);
  expect(await card.locator('.badge.overlap').textContent()).toBe(badgeText);
  // The table's rows hold the switch, Edit and Delete; the secret's actions are on the webhook's page.
  await expect(card.getByRole('button', { name: 'End overlap now' }).count()).resolves.toBe(0);
  await card.getByRole('link', { name: 'Warehouse' }).click();
  // The webhook's page, once loaded (its overlap badge shows), holds the secret's actions.
  await badge.waitFor();
  await expect(view.page.getByRole('button', { name: 'End overlap now' }).count()).resolves.toBe(1);

  // During the overlap: Standard Webhooks verifies with either secret, dbt's Authorization with the old one.
  const during = await sendTest(view);
  expect([isGenuineStandard(secret, during), isGenuineStandard(created.hmac_secret, during)]).toEqual([true, true]);
  expect([verifiesDbt(created.hmac_secret, during), verifiesDbt(secret, during)]).toEqual([true, false]);

  // End overlap now asks first; Cancel keeps the overlap.
  await detail.getByRole('button', { name: 'End overlap now' }).click();
  const confirm = view.page.getByRole('dialog', { name: 'End the secret overlap of Warehouse?' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'detached' });
  expect(await overlapOf(created.id)).toBe(until);
  await detail.getByRole('button', { name: 'End overlap now' }).click();
  await confirm.getByRole('button', { name: 'End overlap now' }).click();
  await view.page.getByRole('status').getByText('The old secret of Warehouse no longer signs.').waitFor();
  await badge.waitFor({ state: 'detached' });
  await expect(detail.getByRole('button', { name: 'End overlap now' }).count()).resolves.toBe(0);
  await expect(detail.locator('dt', { hasText: 'Signing secret' }).count()).resolves.toBe(0);
  expect(await overlapOf(created.id)).toBeUndefined();

  // The new secret alone, in both schemes: the secret the page showed is the one that signs.
  const after = await sendTest(view);
  expect([isGenuineStandard(secret, after), isGenuineStandard(created.hmac_secret, after)]).toEqual([true, false]);
  expect([verifiesDbt(secret, after), verifiesDbt(created.hmac_secret, after)]).toEqual([true, false]);
  await view.screenshot('secret-overlap-ended');
  expect(view.consoleErrors).toEqual([]);
  expect(view.foreignRequests).toEqual([]);
});

test('at 375 px the overlap badge and the dialogs fit; an overlap of 0 switches at once', async () => {
  const created = await createWebhook(ui.h, {
    name: 'A webhook with a rather long name for a phone',
    client_url: `${receiver.url}/phone`,
    event_types: ['job.run.completed'],
  });
  expect((await ui.h.call('POST', `${webhookPath(created.id)}/secret/rotate`, { body: {} })).statusCode).toBe(200);
  const phone = await ui.open({ width: 375, height: 812 });
  await signIn(phone, ADMIN_TOKEN);
  const card = phone.page.locator(`[data-webhook-id="${created.id}"]`);
  await card.locator('.badge.overlap').waitFor();
  expect(await overflowsWidth(phone.page)).toBe(false);
  expect(await unnamedControls(phone.page)).toEqual([]);
  await phone.screenshot('phone-secret-overlap');

  await card.getByRole('link', { name: 'A webhook with a rather long name for a phone' }).click();
  await phone.page.locator('article.detail header .badge.overlap').waitFor();
  expect(await overflowsWidth(phone.page)).toBe(false);
  await phone.page.getByRole('button', { name: 'Rotate secret' }).click();
  const ask = phone.page.getByRole('dialog', { name: /^Rotate the secret of/ });
  await ask.waitFor();
  expect((await ask.boundingBox())!.width).toBeLessThanOrEqual(375);
  expect(await overflowsWidth(phone.page)).toBe(false);
  expect(await unnamedControls(phone.page)).toEqual([]);
  await phone.screenshot('phone-rotate-secret');
  await ask.getByLabel('Overlap in hours').fill('0');
  await ask.getByRole('button', { name: 'Rotate secret' }).click();

  const shown = phone.page.getByRole('dialog', { name: /^New signing secret of/ });
  await shown.waitFor();
  expect((await shown.boundingBox())!.width).toBeLessThanOrEqual(375);
  expect(await shown.textContent()).toContain('The old secret no longer signs');
  await expect(shown.locator('.secret-overlap').count()).resolves.toBe(0);
  const secret = await shown.getByLabel('Signing secret').inputValue();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  expect(secret).not.toBe(created.hmac_secret);
  await phone.screenshot('phone-secret-once');
  await shown.getByRole('button', { name: 'I have stored the secret' }).click();

  // A rotation with no overlap also ends the one that was running: no badge, no End overlap now.
  await phone.page.locator('article.detail header .badge.overlap').waitFor({ state: 'detached' });
  await expect(phone.page.getByRole('button', { name: 'End overlap now' }).count()).resolves.toBe(0);
  expect(await overlapOf(created.id)).toBeUndefined();
  expect(phone.consoleErrors).toEqual([]);
});

test('a read-only token sees the overlap but neither Rotate secret nor End overlap now', async () => {
  const created = await createWebhook(ui.h, { name: 'Read-only rotation', client_url: `${receiver.url}/read` });
  expect((await ui.h.call('POST', `${webhookPath(created.id)}/secret/rotate`, { body: {} })).statusCode).toBe(200);
  const view = await ui.open();
  await signIn(view, await ui.h.token('Read-Only'));
  const card = view.page.locator(`[data-webhook-id="${created.id}"]`);
  await card.locator('.badge.overlap').waitFor();
  for (const name of ['Rotate secret', 'End overlap now']) {
    await expect(view.page.getByRole('button', { name }).count()).resolves.toBe(0);
  }
  await card.getByRole('link', { name: 'Read-only rotation' }).click();
  await view.page.locator('article.detail header .badge.overlap').waitFor();
  await expect(view.page.getByRole('button', { name: /Rotate secret|End overlap now/ }).count()).resolves.toBe(0);
  await view.screenshot('read-only-secret-overlap');
});
