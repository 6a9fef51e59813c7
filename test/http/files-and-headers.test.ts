// What a copy of the disk or a shared cache could leak: the database files are the owner's only (on PostgreSQL
// there are none), idempotency keys are stored as hashes, API answers are never cached, and text that is not
// text is refused.
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { type Harness, startHarness, webhooksPath, validCreateBody } from '../support/harness';
import { eventsPath } from '../support/events';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

test('the database and its WAL and SHM files are readable by their owner only; PostgreSQL leaves no file', async () => {
  await h.call('POST', webhooksPath(), { body: validCreateBody() });
  if (h.databaseUrl !== null) {
    // The secrets and the database are the server's: nothing of them is written into the service's folder.
    expect(readdirSync(h.dir)).toEqual([]);
    return;
  }
  for (const file of [h.dbPath, `${h.dbPath}-wal`, `${h.dbPath}-shm`]) expect(statSync(file).mode & 0o777).toBe(0o600);
});

test('an Idempotency-Key is stored as its SHA-256, and a repeat still replays', async () => {
  const key = 'create-errored-runs-hook-2026-11-23';
  const first = await h.call('POST', webhooksPath(), { body: validCreateBody(), headers: { 'idempotency-key': key } });
  const again = await h.call('POST', webhooksPath(), { body: validCreateBody(), headers: { 'idempotency-key': key } });
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.json().data.id).toBe(first.json().data.id);
  const stored = await h.db.rows<{ key: string }>('SELECT key FROM idempotency_keys');
  expect(stored).toEqual([{ key: createHash('sha256').update(key).digest('hex') }]);
  expect(JSON.stringify(stored)).not.toContain(key);
});

test('every API answer carries Cache-Control: no-store, the create with its secret first', async () => {
  const created = await h.call('POST', webhooksPath(), { body: validCreateBody() });
  expect(created.statusCode).toBe(201);
  expect(created.headers['cache-control']).toBe('no-store');
  expect((await h.call('GET', webhooksPath())).headers['cache-control']).toBe('no-store');
  expect((await h.call('GET', '/api/v3/nothing')).headers['cache-control']).toBe('no-store');
  expect((await h.call('GET', webhooksPath(), { token: null })).headers['cache-control']).toBe('no-store');
});

test.each([
  [
    'a name with a lone high surrogate',
    '{"name":"bad \\ud800 name","client_url":"https://hooks.example.com/x","event_types":["job.run.completed"]}',
    'name',
  ],
  [
    'a description with a lone low surrogate',
    '{"name":"ok","description":"x\\udc00","client_url":"https://hooks.example.com/x","event_types":["job.run.completed"]}',
    'description',
  ],
  [
    'an event type inside a list',
    '{"name":"ok","client_url":"https://hooks.example.com/x","event_types":["job.run.completed\\udfff"]}',
    'event_types.0',
  ],
])('%s is refused with 400 naming the field, and nothing is created', async (_case, rawBody, field) => {
  const refused = await h.call('POST', webhooksPath(), { rawBody, headers: { 'content-type': 'application/json' } });
  expect(refused.statusCode).toBe(400);
  expect(refused.json().extra.field_errors).toEqual({
    [field]: ['must not contain a lone surrogate (\\ud800 to \\udfff without its pair): it is not text'],
  });
  expect((await h.call('GET', webhooksPath())).json().data).toEqual([]);
});

test.each([
  [
    'a webhook name',
    webhooksPath,
    '{"name":"bad \\u0000 name","client_url":"https://hooks.example.com/x","event_types":["job.run.completed"]}',
    'name',
  ],
  [
    "an event's run id",
    eventsPath,
    `{"event_type":"job.run.started","run":{"jobId":"42","jobName":"J","runId":"1\\u00002","environmentId":"5",
      "environmentName":"P","dbtVersion":"1.9.0","projectName":"A","projectId":"3","runStatus":"Running",
      "runStatusCode":3,"runStatusMessage":"None","runReason":"R","runStartedAt":"2026-11-21T09:00:00Z"}}`,
    'run.runId',
  ],
])(
  'a NUL (U+0000) in %s is refused with 400 naming the field on every backend, and nothing is stored',
  async (_c, path, rawBody, field) => {
    const before = await h.db.snapshot();
    const refused = await h.call('POST', path(), {
      rawBody: rawBody.replace(/\n\s*/g, ''),
      headers: { 'content-type': 'application/json' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().extra.field_errors).toEqual({
      [field]: ['must not contain U+0000 (NUL): no stored text can hold it'],
    });
    expect(await h.db.snapshot()).toBe(before);
  },
);

test('a surrogate pair (an emoji written as escapes) is text, and comes back as sent', async () => {
  const created = await h.call('POST', webhooksPath(), {
    rawBody:
      '{"name":"rocket \\ud83d\\ude80","client_url":"https://hooks.example.com/x","event_types":["job.run.completed"]}',
    headers: { 'content-type': 'application/json' },
  });
  expect(created.statusCode).toBe(201);
  expect(created.json().data.name).toBe('rocket 🚀');
});
