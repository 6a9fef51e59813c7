// The UI at 375 px wide and from the keyboard alone, in real Chromium.
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, createWebhook, webhookPath, webhooksPath } from '../support/harness';
import { signIn, startUiHarness, type UiHarness } from '../support/browser';
import { ingest } from '../support/events';
import { answer, type Receiver, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait';

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

/** Whether the page is wider than the window, so a phone user would scroll the whole page sideways. */
function overflowsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

test('at 375 px wide nothing overflows the page, and every control has a name', async () => {
  const { id: long } = await createWebhook(ui.h, {
    name: 'A webhook with a rather long name for a small screen',
    client_url: `${receiver.url}/${'deeply/nested/'.repeat(6)}endpoint?with=query&and=more`,
    event_types: ['job.run.completed', 'job.run.errored'],
    job_ids: [11],
  });
  await ingest(ui.h, 'job.run.completed', { jobId: '11', runId: '7001' });
  await waitFor(
    async () => (await ui.h.call('GET', webhookPath(long))).json().data.dispatched_at !== undefined,
    'a dispatch',
  );

  const phone = await ui.open({ width: 375, height: 812 });
  expect(await unnamedControls(phone.page)).toEqual([]);
  await signIn(phone, ADMIN_TOKEN);
  expect(await overflowsWidth(phone.page)).toBe(false);
  expect(await unnamedControls(phone.page)).toEqual([]);
  await phone.screenshot('phone-webhooks');

  await phone.page.getByRole('link', { name: /rather long name/ }).click();
  await phone.page.locator('ol.delivery-log').waitFor();
  expect(await overflowsWidth(phone.page)).toBe(false);
  // A delivery's attempts, opened beneath it, are a wide table: it scrolls inside its own labelled, focusable region.
  await phone.page.locator('ol.delivery-log summary').first().click();
  const region = phone.page.getByRole('region', { name: /^Attempts of event/ });
  expect(await region.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
  expect(await overflowsWidth(phone.page)).toBe(false);
  expect(await unnamedControls(phone.page)).toEqual([]);
  await phone.screenshot('phone-deliveries');

  await phone.page.goto(`${ui.origin}/#/new`);
  await phone.page.getByLabel('Endpoint URL').waitFor();
  expect(await overflowsWidth(phone.page)).toBe(false);
  expect(await unnamedControls(phone.page)).toEqual([]);
  await phone.screenshot('phone-new-webhook');
});

/** Presses Tab until the focused element's text is `text`, as a keyboard user would. */
async function tabTo(page: Page, text: string): Promise<void> {
  for (let presses = 0; presses < 40; presses += 1) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate(() => document.activeElement?.textContent?.trim())) === text) return;
  }
  throw new Error(`"${text}" cannot be reached with Tab`);
}

test('sign in, create a webhook and cancel a delete with the keyboard alone', async () => {
  const view = await ui.open();
  // The token field has focus when the page opens.
  await view.page.keyboard.type(ADMIN_TOKEN);
  await view.page.keyboard.press('Enter');
  // The landing page is the overview; the main navigation leads to the list.
  await view.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  await tabTo(view.page, 'Webhooks');
  await view.page.keyboard.press('Enter');
  await view.page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();

  await tabTo(view.page, 'New webhook');
  await view.page.keyboard.press('Enter');
  await view.page.getByLabel('Name', { exact: true }).waitFor();
  // Focus moved to the form's heading; the next Tab is the first field.
  await view.page.keyboard.press('Tab');
  expect(await view.page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe('name');
  await view.page.keyboard.type('Typed by keyboard');
  await view.page.keyboard.press('Tab');
  await view.page.keyboard.type(`${receiver.url}/keyboard`);
  await view.page.keyboard.press('Enter');
  const dialog = view.page.getByRole('dialog', { name: /Signing secret/ });
  await dialog.waitFor();
  await view.page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await view.page.getByRole('heading', { name: 'Typed by keyboard', level: 1 }).waitFor();

  await tabTo(view.page, 'Delete');
  await view.page.keyboard.press('Enter');
  const confirm = view.page.getByRole('dialog', { name: 'Delete Typed by keyboard?' });
  await confirm.waitFor();
  // Focus starts on Cancel, the safe choice; Escape closes without deleting.
  expect(await view.page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
  await view.page.keyboard.press('Escape');
  await confirm.waitFor({ state: 'detached' });
  const names = ((await ui.h.call('GET', `${webhooksPath()}?limit=100`)).json().data as Array<{ name: string }>).map(
    (webhook) => webhook.name,
  );
  expect(names).toContain('Typed by keyboard');
  await view.screenshot('keyboard');
});
