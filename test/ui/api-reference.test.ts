// The API reference: the service's own OpenAPI document rendered by Redoc at /api/reference, opened from the web
// UI in a tab of its own, in real Chromium, with nothing loaded from another host and no Content-Security-Policy
// violation.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { SCREENSHOT_DIR, signInToOverview, startUiHarness, type UiHarness } from '../support/browser';
import { ADMIN_TOKEN } from '../support/harness';

let ui: UiHarness;
beforeAll(async () => {
  ui = await startUiHarness();
});
afterAll(async () => ui.close());

/** Records the CSP violations of every page of `context` from its first script on, across navigations. */
async function watchCspViolations(context: BrowserContext): Promise<(page: Page) => Promise<string[]>> {
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return (page) => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
}

test("the web UI opens the API reference in a tab of its own, which shows the contract's operations offline, within its CSP", async () => {
  const view = await ui.open();
  // Each step may take as long as the whole test would on an idle machine (see the limit below).
  view.context.setDefaultTimeout(60_000);
  const violations = await watchCspViolations(view.context);
  await view.page.reload();
  await signInToOverview(view, ADMIN_TOKEN);
  const document = (await (await fetch(`${ui.origin}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { summary?: string }>>;
  };
  const summaries = Object.values(document.paths).flatMap((operations) =>
    Object.values(operations).map((operation) => operation.summary ?? ''),
  );
  const create = document.paths['/api/v3/accounts/{account_id}/webhooks/subscriptions']?.post?.summary;
  const rotate = summaries.find((summary) => summary.startsWith('Rotate'));
  expect([create, rotate]).toEqual([expect.any(String), expect.any(String)]);

  const [reference] = await Promise.all([
    view.context.waitForEvent('page'),
    view.page.getByRole('link', { name: 'API reference (opens in a new tab)' }).click(),
  ]);
  await reference.waitForURL(`${ui.origin}/api/reference`);
  // Redoc draws the operations of the document the service serves, each under its summary.
  await reference.getByRole('heading', { name: /jobhooks webhooks management API/ }).waitFor();
  await reference.getByRole('heading', { level: 2, name: create }).waitFor();
  // Its search runs in a worker made from a blob, which the page's policy allows; a result leads to the operation.
  await reference.getByPlaceholder('Search...').fill('rotate');
  await reference.locator('[data-role="search:results"]').getByRole('menuitem', { name: rotate, exact: true }).click();
  await reference.getByRole('heading', { level: 2, name: rotate }).waitFor();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await reference.screenshot({ path: join(SCREENSHOT_DIR, 'api-reference.png'), fullPage: true });

  // Its tab starts a session of its own: the token the UI keeps in its tab's sessionStorage is out of its reach,
  // and the UI stays signed in where it was.
  expect(await reference.evaluate(() => [window.opener === null, sessionStorage.length])).toEqual([true, 0]);
  expect(await view.page.evaluate(() => sessionStorage.length)).toBeGreaterThan(0);
  await view.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

  expect(view.foreignRequests).toEqual([]);
  expect(view.consoleErrors).toEqual([]);
  expect(await violations(view.page)).toEqual([]);
  expect(await violations(reference)).toEqual([]);
  // Redoc lays out every operation of the document in Chromium: about 11 s on an idle 2-core machine, and three
  // times that beside another suite, past jest's default of 30 s.
}, 90_000);

test('the reference page has a policy of its own; the UI keeps its strict one, and the page is no UI file', async () => {
  const page = await fetch(`${ui.origin}/api/reference`);
  expect(page.status).toBe(200);
  const csp = page.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("script-src 'self';");
  expect(csp).toContain("connect-src 'self';");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src[^;]*unsafe/);
  expect(await page.text()).toContain('<redoc spec-url="/api/openapi.json"');
  const uiPolicy = (await fetch(`${ui.origin}/`)).headers.get('content-security-policy');
  expect(uiPolicy).toContain("style-src 'self';");
  expect((await fetch(`${ui.origin}/ui/api-reference.html`)).status).toBe(404);
  const redoc = await fetch(`${ui.origin}/ui/redoc.standalone.js`);
  expect(redoc.status).toBe(200);
  expect(await redoc.text()).not.toContain('cdn.redoc.ly');
});
