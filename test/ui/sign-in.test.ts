// Sign-in, sign-out and what a token may see, in real Chromium against a real service.
import { ADMIN_TOKEN, createWebhook } from '../support/harness';
import { signIn, startUiHarness, type UiHarness } from '../support/browser';

let ui: UiHarness;
beforeAll(async () => {
  ui = await startUiHarness();
});
afterAll(async () => ui.close());

test('the page is served by the service under a strict CSP, and loads nothing from elsewhere', async () => {
  const response = await fetch(`${ui.origin}/`);
  expect(response.status).toBe(200);
  const csp = response.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  await response.text(); // read to its end, so the connection is free again
  const script = await fetch(`${ui.origin}/ui/app.js`);
  expect(script.status).toBe(200);
  expect(script.headers.get('content-type')).toMatch(/javascript/);
  await script.text();

  const page = await ui.open();
  await page.page.getByRole('heading', { name: 'Sign in to jobhooks' }).waitFor();
  await page.screenshot('sign-in');
  expect(page.foreignRequests).toEqual([]);
  expect(page.consoleErrors).toEqual([]);
});

test('a wrong token is refused with a message; the right one opens the Webhooks page and lives in sessionStorage only', async () => {
  const view = await ui.open();
  const { page, screenshot } = view;
  await page.getByLabel('API token').fill('not-a-real-token-0000000000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert').textContent()).resolves.toContain('That token was not accepted');
  await screenshot('sign-in-refused');

  await signIn(view, ADMIN_TOKEN);
  expect(await page.evaluate(() => sessionStorage.getItem('jobhooks.token'))).toBe(ADMIN_TOKEN);
  expect(await page.evaluate(() => localStorage.length)).toBe(0);
  expect(await page.context().cookies()).toEqual([]);

  // A reload keeps the session (same tab); signing out forgets the token.
  await page.reload();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to jobhooks' }).waitFor();
  expect(await page.evaluate(() => sessionStorage.getItem('jobhooks.token'))).toBeNull();
  await screenshot('signed-out');
  expect(view.consoleErrors).toEqual([]);
});

test('a read-only token sees the webhooks but no control that would change them', async () => {
  const { id } = await createWebhook(ui.h, { name: 'Read-only view' });
  const readOnly = await ui.h.token('Read-Only');
  const view = await ui.open();
  await signIn(view, readOnly);
  const card = view.page.locator(`[data-webhook-id="${id}"]`);
  await card.getByRole('link', { name: 'Read-only view' }).waitFor();
  await expect(view.page.getByText('(read only)').count()).resolves.toBe(1);
  for (const name of ['New webhook', 'Edit', 'Delete', 'Send test', 'Reactivate']) {
    await expect(view.page.getByRole('button', { name }).count()).resolves.toBe(0);
    await expect(view.page.getByRole('link', { name }).count()).resolves.toBe(0);
  }
  await expect(view.page.getByRole('switch').count()).resolves.toBe(0);

  // Its details page shows the deliveries, still without write controls.
  await card.getByRole('link', { name: 'Read-only view' }).click();
  await view.page.getByRole('heading', { name: 'Recent Deliveries' }).waitFor();
  await expect(
    view.page.getByRole('button', { name: /Edit|Delete|Send test|Redeliver|Recover/ }).count(),
  ).resolves.toBe(0);
  await view.screenshot('read-only');
});

test('a 403 from the API is shown as a message, not a crash', async () => {
  await ui.h.service.accounts.createAccount({ id: 77, name: 'Hobby account', plan: 'developer' });
  const token = await ui.h.token('Account Admin', 77);
  const view = await ui.open();
  await signIn(view, token);
  const alert = view.page.getByRole('alert');
  await expect(alert.textContent()).resolves.toContain('Webhooks are available on the Starter and Enterprise plans');
  await expect(view.page.getByText('The webhooks could not be loaded.').count()).resolves.toBe(1);
  // The page still works: signing out is possible.
  await view.page.getByRole('button', { name: 'Sign out' }).click();
  await view.page.getByRole('heading', { name: 'Sign in to jobhooks' }).waitFor();
  await view.screenshot('forbidden-plan');
  expect(view.consoleErrors).toEqual([]);
});
