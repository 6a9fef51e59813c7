// `jobhooks start` as a process: first start on an empty database prints a working admin token once; SIGTERM exits 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startServiceProcess, stopServiceProcesses } from './support/service-process';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-start-'));
});
afterEach(async () => {
  await stopServiceProcesses();
  rmSync(dir, { recursive: true, force: true });
});

const start = () => startServiceProcess({ JOBHOOKS_DB: join(dir, 'jobhooks.db') });

test('the first start creates account 1, prints an Account Admin token once and serves the web UI; SIGTERM exits 0', async () => {
  const first = await start();
  const token = /^ {2}(jhk_\S+)$/m.exec(first.output())?.[1];
  expect(token).toBeDefined();
  expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
  const response = await request(`${first.baseUrl}/v3/accounts/1/webhooks/subscriptions`, { headers: { authorization: `Token ${token}` } });
  expect(response.statusCode).toBe(200);
  await response.body.text();
  // The built service (dist/) finds the built web UI and serves it at /.
  const page = await request(first.baseUrl.replace(/\/api$/, '/'));
  expect(page.statusCode).toBe(200);
  expect(await page.body.text()).toContain('<script type="module" src="/ui/app.js">');
  expect(await first.signal('SIGTERM')).toBe(0);

  const second = await start();
  expect(second.output()).not.toMatch(/jhk_/);
  expect(await second.signal('SIGTERM')).toBe(0);
});

test('a service a test left running is killed by stopServiceProcesses, so jest does not wait on it', async () => {
  const left = await start();
  expect(left.child.exitCode).toBeNull();
  await stopServiceProcesses();
  expect(left.child.signalCode).toBe('SIGKILL');
});
