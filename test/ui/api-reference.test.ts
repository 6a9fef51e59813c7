// The API reference: the service's own OpenAPI document rendered by Redoc at /api/reference, reached from the web
// UI, in real Chromium, with nothing loaded from another host and no Content-Security-Policy violation.
import type { Page } from 'playwright-core';
import { startUiHarness, type UiHarness } from '../support/browser';

let ui: UiHarness;
beforeAll(async () => {
  ui = await startUiHarness();
});
afterAll(async () => ui.close());

/** Records the page's CSP violations from its first script on, across navigations. */
async function watchCspViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return () => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
}

test("the web UI links to the API reference, which shows the contract's operations offline, within its CSP", async () => {
  const view = await ui.open();
  // Each step may take as long as the whole test would on an idle machine (see the limit below).
  view.page.setDefaultTimeout(60_000);
  const violations = await watchCspViolations(view.page);
  await view.page.reload();
  const document = (await (await fetch(`${ui.origin}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { summary?: string }>>;
  };
  const summaries = Object.values(document.paths).flatMap((operations) =>
    Object.values(operations).map((operation) => operation.summary ?? ''),
  );
  const create = document.paths['/api/v3/accounts/{account_id}/webhooks/subscriptions']?.post?.summary;
  const rotate = summaries.find((summary) => summary.startsWith('Rotate'));
  expect([create, rotate]).toEqual([expect.any(String), expect.any(String)]);

  await view.page.getByRole('link', { name: 'API reference' }).click();
  await view.page.waitForURL(`${ui.origin}/api/reference`);
  // Redoc draws the operations of the document the service serves, each under its summary.
  await view.page.getByRole('heading', { name: /jobhooks webhooks management API/ }).waitFor();
  await view.page.getByRole('heading', { level: 2, name: create }).waitFor();
  // Its search runs in a worker made from a blob, which the page's policy allows; a result leads to the operation.
  await view.page.getByPlaceholder('Search...').fill('rotate');
  await view.page.locator('[data-role="search:results"]').getByRole('menuitem', { name: rotate, exact: true }).click();
  await view.page.getByRole('heading', { level: 2, name: rotate }).waitFor();
  await view.screenshot('api-reference');

  expect(view.foreignRequests).toEqual([]);
  expect(view.consoleErrors).toEqual([]);
  expect(await violations()).toEqual([]);
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
