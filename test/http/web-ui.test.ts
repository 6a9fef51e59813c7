// How the service serves the web UI, and the account facts the UI reads, without a browser.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { webUiRoutes } from '../../service/src/http/web-ui';
import { type Harness, startHarness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());

test('/ and the assets carry the CSP; a path outside the built files is a 404 in the API envelope', async () => {
  const page = await h.call('GET', '/', { token: null });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toMatch(/text\/html/);
  expect(page.headers['content-security-policy']).toContain("default-src 'none'");
  const style = await h.call('GET', '/ui/app.css', { token: null });
  expect(style.statusCode).toBe(200);
  expect(style.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(page.headers['cache-control']).toBe('no-cache');
  expect(style.headers['cache-control']).toBe('no-cache');
  // The API is not the UI: its responses do not carry the page's headers.
  expect((await h.call('GET', '/healthz', { token: null })).headers['content-security-policy']).toBeUndefined();
  const traversal = await h.call('GET', '/ui/..%2f..%2fpackage.json', { token: null });
  expect(traversal.statusCode).toBe(404);
  expect(traversal.json().status.is_success).toBe(false);
});

test('without a build, / and the API reference say how to build the UI instead of failing', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'jobhooks-no-ui-'));
  const app = Fastify();
  await app.register(webUiRoutes, { directory: empty });
  for (const url of ['/', '/api/reference']) {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(503);
    expect(response.json().status.user_message).toBe('The web UI is not built: run `npm run build`.');
  }
  await app.close();
  rmSync(empty, { recursive: true, force: true });
});

test('the accounts list tells the token’s permission set, so the UI can hide what it may not do', async () => {
  const readOnly = await h.token('Read-Only');
  const response = await h.call('GET', '/api/v2/accounts/', { token: readOnly });
  expect(response.statusCode).toBe(200);
  expect(response.json().data[0].permission_set).toBe('Read-Only');
});
