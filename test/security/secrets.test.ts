// hmac_secret leaves the service only in the create response; API tokens and secrets never reach logs or the file in
// clear.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { REDACTED_LOG_PATHS } from '../../service/src/http/app';
import {
  ADMIN_TOKEN,
  createWebhook,
  type Harness,
  startHarness,
  webhookPath,
  webhooksPath,
  validCreateBody,
} from '../support/harness';

let h: Harness;
let logged = '';
beforeEach(async () => {
  logged = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  // The most verbose level, with the production redaction, so anything any log call includes is seen.
  h = await startHarness({ logger: { level: 'trace', stream, redact: REDACTED_LOG_PATHS } });
});
afterEach(async () => {
  await h.close();
});

test('hmac_secret is in the create response and in no other response', async () => {
  const created = await createWebhook(h);
  const secret = created.hmac_secret;
  const responses = [
    await h.call('GET', webhookPath(created.id)),
    await h.call('GET', webhooksPath()),
    await h.call('PUT', webhookPath(created.id), { body: validCreateBody({ name: 'renamed' }) }),
    await h.call('GET', '/api/v2/accounts/'),
  ];
  for (const response of responses) {
    expect(response.body).not.toContain(secret);
    expect(response.body).not.toContain('"hmac_secret":');
  }
  expect((await h.call('GET', '/api/openapi.json', { token: null })).body).not.toContain(secret);
});

test('neither the secret, the API token nor the Idempotency-Key reaches the log, even at trace level', async () => {
  const created = (
    await h.call('POST', webhooksPath(), {
      body: validCreateBody(),
      headers: { 'idempotency-key': 'idem-key-visible-only-to-client' },
    })
  ).json().data;
  await h.call('GET', webhookPath(created.id));
  await h.call('GET', webhooksPath(), { token: 'wrong-token-that-must-not-be-logged' });
  expect(logged.length).toBeGreaterThan(0);
  expect(logged).toContain('incoming request');
  expect(logged).not.toContain(created.hmac_secret);
  expect(logged).not.toContain(ADMIN_TOKEN);
  expect(logged).not.toContain('wrong-token-that-must-not-be-logged');
  expect(logged).not.toContain('idem-key-visible-only-to-client');
});

test('the database holds neither the secret nor the API token in clear text', async () => {
  const created = await createWebhook(h);
  await h.service.close();
  // SQLite: every byte of its files, the write-ahead log included; PostgreSQL: every row of every table.
  const files =
    h.databaseUrl === null
      ? readdirSync(h.dir).map((name) => readFileSync(join(h.dir, name)))
      : [Buffer.from(await h.db.snapshot())];
  for (const bytes of files) {
    expect(bytes.includes(Buffer.from(created.hmac_secret))).toBe(false);
    expect(bytes.includes(Buffer.from(ADMIN_TOKEN))).toBe(false);
  }
  // The webhook itself is there: the check above looked at the right data.
  expect(files.some((bytes) => bytes.includes(Buffer.from(created.id)))).toBe(true);
});
