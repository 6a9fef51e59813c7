// `jobhooks start` as a process: first start on an empty database prints a working admin token once; SIGTERM exits 0.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';

const BIN = resolve(__dirname, '..', 'bin', 'jobhooks.js');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-start-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the service on a free port and resolves once it has printed its start-up message (database line last). */
function start(): Promise<{ child: ChildProcess; output: () => string; baseUrl: string }> {
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: { ...process.env, JOBHOOKS_DB: join(dir, 'jobhooks.db'), PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /API base URL \(host_url for clients\): (\S+)/.exec(output);
      if (match && /Database: .*\n/.test(output)) resolvePromise({ child, output: () => output, baseUrl: match[1]! });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolvePromise) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolvePromise(code));
    child.kill('SIGTERM');
  });
}

test('the first start creates account 1 and prints an Account Admin token once; SIGTERM exits 0', async () => {
  const first = await start();
  const token = /^ {2}(jhk_\S+)$/m.exec(first.output())?.[1];
  expect(token).toBeDefined();
  expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
  const response = await request(`${first.baseUrl}/v3/accounts/1/webhooks/subscriptions`, { headers: { authorization: `Token ${token}` } });
  expect(response.statusCode).toBe(200);
  await response.body.text();
  expect(await stop(first.child)).toBe(0);

  const second = await start();
  expect(second.output()).not.toMatch(/jhk_/);
  expect(await stop(second.child)).toBe(0);
});
