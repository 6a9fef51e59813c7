// The key that seals webhook secrets: a start with another key, or with none for a database that holds secrets,
// is refused in one sentence (and no key file is made); `jobhooks secret-key rotate` re-seals every secret under
// a new key in one transaction; a secret the key cannot open makes a failed attempt that says so.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { createWebhook, type Harness, startHarness, webhookPath } from '../support/harness';
import { ingest } from '../support/events';
import { answer, startReceiver } from '../support/receiver';
import { isGenuine } from '../support/signature';
import { startServiceProcess, stopServiceProcesses } from '../support/service-process';
import { waitFor } from '../support/wait';
import { untilSeenByService } from '../support/db-inspect';

const run = promisify(execFile);
const BIN = resolve(__dirname, '..', '..', 'service', 'bin', 'jobhooks.js');
const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);

let dir: string;
let h: Harness | null = null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-key-'));
});
afterEach(async () => {
  await h?.close();
  h = null;
  rmSync(dir, { recursive: true, force: true });
});

const keyFile = () => join(dir, 'secret.key');
const start = async (env: Record<string, string> = {}) => (h = await startHarness({ dir, env }));
const stop = async () => {
  await h?.close();
  h = null;
};
const startFails = (env: Record<string, string> = {}) =>
  startHarness({ dir, env }).then(
    async (started) => {
      await started.close();
      throw new Error('the service started');
    },
    (error: Error) => error.message,
  );

test('a database restored without its key file is refused, and no new key file is made for it', async () => {
  await start();
  await createWebhook(h!);
  await stop();
  rmSync(keyFile());
  expect(await startFails()).toBe(
    `This database holds webhook secrets, but there is no JOBHOOKS_SECRET_KEY and no key file at ${keyFile()}: set JOBHOOKS_SECRET_KEY to the key, or restore the secret.key kept with the database.`,
  );
  expect(existsSync(keyFile())).toBe(false);
});

test('another JOBHOOKS_SECRET_KEY, or another key file, is refused; the right one starts', async () => {
  await start({ JOBHOOKS_SECRET_KEY: KEY_A });
  await createWebhook(h!);
  await stop();
  expect(await startFails({ JOBHOOKS_SECRET_KEY: KEY_B })).toBe(
    "The secret key from JOBHOOKS_SECRET_KEY is not the key this database's webhook secrets are sealed with: set JOBHOOKS_SECRET_KEY to that key, or restore the secret.key kept with the database.",
  );
  // Without the variable, a key file is not made either: the database holds secrets.
  expect(await startFails()).toMatch(/^This database holds webhook secrets, but there is no JOBHOOKS_SECRET_KEY/);
  // Another key file is refused the same way, naming the file.
  writeFileSync(keyFile(), `${KEY_B}\n`);
  expect(await startFails()).toBe(
    `The secret key from ${keyFile()} is not the key this database's webhook secrets are sealed with: set JOBHOOKS_SECRET_KEY to that key, or restore the secret.key kept with the database.`,
  );
  await start({ JOBHOOKS_SECRET_KEY: KEY_A });
});

test('a database from before the key check is checked against a stored secret, then gets its check', async () => {
  await start({ JOBHOOKS_SECRET_KEY: KEY_A });
  await createWebhook(h!);
  await stop();
  const db = new Database(join(dir, 'jobhooks.db'));
  db.prepare('DELETE FROM secret_key_check').run();
  db.close();
  expect(await startFails({ JOBHOOKS_SECRET_KEY: KEY_B })).toMatch(
    /^The secret key from JOBHOOKS_SECRET_KEY is not the key/,
  );
  await start({ JOBHOOKS_SECRET_KEY: KEY_A });
  await stop();
  const after = new Database(join(dir, 'jobhooks.db'));
  expect(after.prepare('SELECT count(*) AS n FROM secret_key_check').get()).toEqual({ n: 1 });
  after.close();
});

describe('jobhooks secret-key rotate', () => {
  const cli = (env: Record<string, string> = {}) =>
    run(process.execPath, [BIN, 'secret-key', 'rotate'], {
      env: { ...process.env, JOBHOOKS_DB: join(dir, 'jobhooks.db'), ...env },
    });

  test('with the key file: every secret re-sealed, the old key refused after, and deliveries signed as before', async () => {
    const receiver = await startReceiver(answer(200));
    try {
      await start();
      const created = await createWebhook(h!, { client_url: `${receiver.url}/hook` });
      await createWebhook(h!, { name: 'second' });
      // In a rotation's overlap: the replaced secret is sealed too, and must be re-sealed with the new key.
      const rotation = await h!.call('POST', `${webhookPath(created.id)}/secret/rotate`, { body: {} });
      const newSecret = (rotation.json() as { data: { hmac_secret: string } }).data.hmac_secret;
      await stop();
      const oldKey = readFileSync(keyFile(), 'utf8').trim();

      const rotated = await cli();
      expect(rotated.stdout).toBe('');
      expect(rotated.stderr).toContain(`Re-encrypted 2 webhook secrets under a new key, now in ${keyFile()}`);
      const newKey = readFileSync(keyFile(), 'utf8').trim();
      expect(newKey).toMatch(/^[0-9a-f]{64}$/);
      expect(newKey).not.toBe(oldKey);
      const kept = readdirSync(dir).filter((name) => /^secret\.key\..+\.old$/.test(name));
      expect(kept).toHaveLength(1);
      expect(readFileSync(join(dir, kept[0]!), 'utf8').trim()).toBe(oldKey);
      expect(existsSync(`${keyFile()}.new`)).toBe(false);

      expect(await startFails({ JOBHOOKS_SECRET_KEY: oldKey })).toMatch(
        /^The secret key from JOBHOOKS_SECRET_KEY is not the key/,
      );
      await start();
      expect((await h!.call('GET', `${webhookPath(created.id)}/test`)).json().data.verification_error).toBeNull();
      const sent = receiver.requests.at(-1)!;
      // dbt's signature still with the replaced secret (the overlap lasts a day); Standard Webhooks' with both.
      expect(isGenuine(created.hmac_secret, sent.body, sent.headers.authorization)).toBe(true);
      const standard = String(sent.headers['webhook-signature']).split(' ');
      expect(standard).toHaveLength(2);
      expect(newSecret).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await receiver.close();
    }
  });

  test('with JOBHOOKS_SECRET_KEY: prints only the new key, which the next start needs', async () => {
    await start({ JOBHOOKS_SECRET_KEY: KEY_A });
    await createWebhook(h!);
    await stop();
    const rotated = await cli({ JOBHOOKS_SECRET_KEY: KEY_A });
    const newKey = rotated.stdout.trim();
    expect(rotated.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    expect(rotated.stderr).toContain(
      `Re-encrypted 1 webhook secrets under the new key printed above, also written to ${keyFile()}.new: set JOBHOOKS_SECRET_KEY to it`,
    );
    // Written before the commit, so a lost terminal cannot lose the key; 0600 like the key file.
    expect(readFileSync(`${keyFile()}.new`, 'utf8').trim()).toBe(newKey);
    expect(statSync(`${keyFile()}.new`).mode & 0o777).toBe(0o600);
    expect(existsSync(keyFile())).toBe(false);
    // The old key is refused, and the refusal points at the file that holds the right one.
    expect(await startFails({ JOBHOOKS_SECRET_KEY: KEY_A })).toMatch(
      new RegExp(
        `^The secret key from JOBHOOKS_SECRET_KEY is not the key .* The key in ${keyFile()}\\.new opens it \\(a key rotation stopped before its last step\\)`,
      ),
    );
    await start({ JOBHOOKS_SECRET_KEY: newKey });
  });

  test('is refused while the service runs on the database', async () => {
    const running = await startServiceProcess({ JOBHOOKS_DB: join(dir, 'jobhooks.db'), JOBHOOKS_SECRET_KEY: KEY_A });
    try {
      const refused = await cli({ JOBHOOKS_SECRET_KEY: KEY_A }).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(refused).toMatchObject({ code: 1 });
      expect((refused as { stderr: string }).stderr).toContain(
        `The service is running on this database (pid ${running.child.pid}): stop it first`,
      );
    } finally {
      await stopServiceProcesses();
    }
  });

  test('with the wrong key it changes nothing', async () => {
    await start({ JOBHOOKS_SECRET_KEY: KEY_A });
    await createWebhook(h!);
    await stop();
    const refused = await cli({ JOBHOOKS_SECRET_KEY: KEY_B }).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 1 });
    expect((refused as { stderr: string }).stderr).toContain('The secret key from JOBHOOKS_SECRET_KEY is not the key');
    await start({ JOBHOOKS_SECRET_KEY: KEY_A });
  });
});

test('a secret the key cannot open makes a failed attempt that says so, not a delivery leased forever', async () => {
  const receiver = await startReceiver(answer(200));
  try {
    await start({ JOBHOOKS_RETRY_SCHEDULE: '3600,3600,3600,3600,3600' });
    const created = await createWebhook(h!, {
      client_url: `${receiver.url}/hook`,
      event_types: ['job.run.completed'],
      job_ids: [],
    });
    const db = new Database(join(dir, 'jobhooks.db'));
    db.prepare('UPDATE webhooks SET sealed_secret = ? WHERE id = ?').run(
      `v1:${Buffer.alloc(40, 7).toString('base64')}`,
      created.id,
    );
    db.close();
    await untilSeenByService();
    await ingest(h!, 'job.run.completed');
    const log = async () =>
      (await h!.call('GET', `${webhookPath(created.id)}/deliveries`)).json().data as Array<Record<string, unknown>>;
    await waitFor(async () => (await log()).length === 1, 'the failed attempt in the log');
    expect((await log())[0]).toMatchObject({
      attempt: 1,
      success: false,
      http_status_code: '599',
      error:
        "not sent: the webhook's secret cannot be decrypted with this service's key (JOBHOOKS_SECRET_KEY or secret.key)",
    });
    expect(receiver.requests).toHaveLength(0);
  } finally {
    await receiver.close();
  }
});

test('a test send and a redelivery of a webhook whose secret the key cannot open are logged failed attempts, not errors', async () => {
  const receiver = await startReceiver(answer(200));
  try {
    await start();
    const created = await createWebhook(h!, {
      client_url: `${receiver.url}/hook`,
      event_types: ['job.run.completed'],
      job_ids: [],
    });
    await ingest(h!, 'job.run.completed');
    const log = async () =>
      (await h!.call('GET', `${webhookPath(created.id)}/deliveries`)).json().data as Array<Record<string, unknown>>;
    await waitFor(async () => (await log()).length === 1, 'the delivery');
    const deliveryId = (await log())[0]!.delivery_id as string;
    const db = new Database(join(dir, 'jobhooks.db'));
    db.prepare('UPDATE webhooks SET sealed_secret = ? WHERE id = ?').run(
      `v1:${Buffer.alloc(40, 7).toString('base64')}`,
      created.id,
    );
    db.close();
    await untilSeenByService();
    const unsent =
      "not sent: the webhook's secret cannot be decrypted with this service's key (JOBHOOKS_SECRET_KEY or secret.key)";

    const tested = await h!.call('GET', `${webhookPath(created.id)}/test`);
    expect(tested.statusCode).toBe(200);
    expect(tested.json().data).toEqual({ verification_error: unsent, verification_status_code: '599' });

    const redelivered = await h!.call('POST', `${webhookPath(created.id)}/deliveries/${deliveryId}/retry`);
    expect(redelivered.statusCode).toBeLessThan(300);
    expect(redelivered.json().data).toMatchObject({
      delivery_id: deliveryId,
      attempt: 2,
      success: false,
      http_status_code: '599',
      error: unsent,
    });
    expect(receiver.requests).toHaveLength(1);
  } finally {
    await receiver.close();
  }
});
