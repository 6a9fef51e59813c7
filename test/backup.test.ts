// `jobhooks backup --to FILE` while the service writes: the copy is consistent, holds what was committed
// before it, never overwrites a file, and a service started on it with the key serves the same webhooks.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { createWebhook, type Harness, startHarness, webhooksPath } from './support/harness';

const run = promisify(execFile);
const BIN = resolve(__dirname, '..', 'service', 'bin', 'jobhooks.js');

let h: Harness;
let restoreDir: string;
beforeEach(async () => {
  h = await startHarness({
    env: { JOBHOOKS_MAX_SUBSCRIPTIONS_PER_ACCOUNT: '100000', JOBHOOKS_RATE_LIMIT_PER_MINUTE: '100000' },
  });
  restoreDir = mkdtempSync(join(tmpdir(), 'jobhooks-restore-'));
});
afterEach(async () => {
  await h.close();
  rmSync(restoreDir, { recursive: true, force: true });
});

const backup = (to: string) =>
  run(process.execPath, [BIN, 'backup', '--to', to], { env: { ...process.env, JOBHOOKS_DB: h.dbPath } });

test('a backup taken while webhooks are being created is consistent and restores with the key', async () => {
  for (let i = 0; i < 20; i += 1) await createWebhook(h, { name: `before ${i}` });
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i += 1) await createWebhook(h, { name: `during ${i}` });
  })();
  const target = join(restoreDir, 'jobhooks.db');
  const { stdout } = await backup(target);
  writing = false;
  await writer;
  expect(stdout).toContain(`Backed up ${h.dbPath} to ${target}`);
  expect(stdout).toContain(`keep ${join(h.dir, 'secret.key')} with the backup`);
  expect(statSync(target).mode & 0o777).toBe(0o600);

  const copy = new Database(target, { readonly: true });
  expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
  const names = (copy.prepare('SELECT name FROM webhooks').all() as Array<{ name: string }>).map((row) => row.name);
  copy.close();
  for (let i = 0; i < 20; i += 1) expect(names).toContain(`before ${i}`);

  // Restore: the backup file and the key beside it.
  copyFileSync(join(h.dir, 'secret.key'), join(restoreDir, 'secret.key'));
  const restored = await startHarness({ dir: restoreDir });
  try {
    const listed = await restored.call('GET', webhooksPath());
    expect(listed.statusCode).toBe(200);
    expect(listed.json().extra.pagination.total_count).toBe(names.length);
  } finally {
    await restored.close();
  }
});

test('a backup never overwrites a file', async () => {
  const target = join(restoreDir, 'taken.db');
  writeFileSync(target, 'keep me');
  const refused = await backup(target).catch((error: { code: number; stderr: string }) => error);
  expect(refused).toMatchObject({ code: 1 });
  expect((refused as { stderr: string }).stderr).toContain(
    `${target} exists already: give --to a new file (a backup never overwrites one).`,
  );
});
