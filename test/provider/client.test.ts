// The typed API client against a real service on 127.0.0.1: the whole lifecycle, errors with the server's
// message, and retries that honour Retry-After and never duplicate a create.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import {
  ApiError,
  createWebhooksClient,
  describeApiFailure,
  HalfMadeUpdate,
  hostUrlProblem,
  InvalidRequest,
  rotationIdempotencyKey,
  UnexpectedAnswer,
  updateWebhook,
} from '@jobhooks/client';
import { ADMIN_TOKEN, type Harness, startHarness } from '../support/harness';
import { runOf } from '../support/events';
import { answer, closedPortUrl, startReceiver } from '../support/receiver';
import { isGenuineStandard } from '../support/signature';

let h: Harness;
let hostUrl: string;
let proxy: Server | null = null;
beforeEach(async () => {
  h = await startHarness();
  hostUrl = await h.listen();
});
afterEach(async () => {
  if (proxy) await new Promise((resolve) => proxy!.close(resolve));
  proxy = null;
  await h.close();
});

const input = {
  name: 'Data team',
  client_url: 'https://hooks.example.com/a',
  event_types: ['job.run.completed' as const],
  job_ids: [3, 1],
};

test('create, get, update, list, test, delete and get again, with the shapes of the API', async () => {
  const client = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const created = await client.create(input);
  expect(created).toMatchObject({ name: 'Data team', job_ids: ['3', '1'], active: true, http_status_code: '0' });
  expect(created.hmac_secret).toMatch(/^[0-9a-f]{64}$/);
  expect(await client.get(created.id)).toMatchObject({ id: created.id, description: '' });
  const updated = await client.update(created.id, { ...input, description: 'now described', active: false });
  expect(updated).toMatchObject({ description: 'now described', active: false });
  expect((await client.list()).extra.pagination.total_count).toBe(1);
  expect((await client.test(created.id)).verification_status_code).toBe('599');
  expect(await client.delete(created.id)).toBe(true);
  expect(await client.get(created.id)).toBeNull();
  expect(await client.delete(created.id)).toBe(false);
  expect(await client.accounts()).toEqual([expect.objectContaining({ id: 1 })]);
});

test("an account's operational endpoints: create, get, list, update, rotate, delete, apart from its webhooks", async () => {
  const client = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const endpoints = client.operationalEndpoints;
  const created = await endpoints.create({
    name: 'On-call',
    client_url: 'https://ops.example.com/jobhooks',
    event_types: ['webhook.archived', 'delivery.exhausted'],
  });
  expect(created).toMatchObject({ name: 'On-call', active: true, archived: false, delivery_circuit: 'closed' });
  expect(created.hmac_secret).toMatch(/^[0-9a-f]{64}$/);
  expect(await endpoints.get(created.id)).not.toHaveProperty('hmac_secret');
  const updated = await endpoints.update(created.id, {
    name: 'On-call',
    client_url: 'https://ops.example.com/jobhooks',
    event_types: ['webhook.failing'],
    active: false,
  });
  expect(updated).toMatchObject({ event_types: ['webhook.failing'], active: false });
  const rotated = await endpoints.rotateSecret(created.id, 60);
  expect(rotated.hmac_secret).toMatch(/^[0-9a-f]{64}$/);
  expect(rotated.hmac_secret).not.toBe(created.hmac_secret);
  expect((await endpoints.get(created.id))?.previous_secret_expires_at).toMatch(/^\d+$/);
  expect((await endpoints.list()).data.map((e) => e.id)).toEqual([created.id]);
  expect((await client.list()).extra.pagination.total_count).toBe(0);
  expect(await client.get(created.id)).toBeNull();
  await expect(endpoints.create({ name: 'x', client_url: 'https://ops.example.com', event_types: [] })).rejects.toThrow(
    'event_types needs at least one event type',
  );
  expect(await endpoints.delete(created.id)).toBe(true);
  expect(await endpoints.get(created.id)).toBeNull();
  expect(await endpoints.delete(created.id)).toBe(false);
});

test("max_requests_per_second (jobhooks' own) is typed and carried both ways; an update without it removes it", async () => {
  const client = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const created = await client.create({ ...input, max_requests_per_second: 5 });
  const rate: number | undefined = created.max_requests_per_second;
  expect(rate).toBe(5);
  expect((await client.get(created.id))?.max_requests_per_second).toBe(5);
  expect((await client.list()).data.map((webhook) => webhook.max_requests_per_second)).toEqual([5]);
  expect((await client.update(created.id, { ...input, max_requests_per_second: 100 })).max_requests_per_second).toBe(
    100,
  );
  // A full replacement: leaving the field out (or null) means no limit, and the answer then has no such field.
  expect(await client.update(created.id, input)).not.toHaveProperty('max_requests_per_second');
  expect(await client.get(created.id)).not.toHaveProperty('max_requests_per_second');

  // A value the contract refuses never leaves the client.
  const seen = h.answeredBy.reduce((a, b) => a + b, 0);
  for (const bad of [0, 101, 2.5]) {
    await expect(client.update(created.id, { ...input, max_requests_per_second: bad })).rejects.toThrow(
      'max_requests_per_second must be a whole number from 1 to 100, or null for no limit',
    );
  }
  expect(h.answeredBy.reduce((a, b) => a + b, 0)).toBe(seen);
});

test('a host URL with a trailing slash works the same', async () => {
  const client = createWebhooksClient({ hostUrl: `${hostUrl}/`, accountId: 1, token: ADMIN_TOKEN });
  expect((await client.list()).data).toEqual([]);
});

test("a refusal carries the status and the server's message", async () => {
  const readOnly = createWebhooksClient({ hostUrl, accountId: 1, token: await h.token('Read-Only') });
  const error = await readOnly.create(input).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ status: 403, developerMessage: 'forbidden' });
  expect((error as ApiError).message).toMatch(
    /^Create webhook failed with HTTP 403: The permission set "Read-Only" cannot change webhooks/,
  );

  const admin = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const missing = await admin.update('wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ', input).catch((e: unknown) => e);
  expect(missing).toMatchObject({ status: 404 });
});

/** A proxy in front of the service that answers the first `failures` requests matching `match` itself. */
async function startProxy(
  target: string,
  failures: number,
  match: (req: IncomingMessage) => boolean,
  failure: { status: number; headers?: Record<string, string>; forwardFirst: boolean },
) {
  let failed = 0;
  const seen: IncomingMessage[] = [];
  /** Each request's body as it came, by the request. */
  const bodies = new Map<IncomingMessage, string>();
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    const respond = async () => {
      seen.push(req);
      bodies.set(req, Buffer.concat(chunks).toString());
      const fail = match(req) && failed < failures;
      if (fail) failed += 1;
      if (!fail || failure.forwardFirst) {
        const upstream = await request(`${target}${req.url}`, {
          method: req.method as 'GET',
          headers: req.headers as Record<string, string>,
          ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
        });
        const text = await upstream.body.text();
        if (!fail) return void res.writeHead(upstream.statusCode, { 'content-type': 'application/json' }).end(text);
      }
      res.writeHead(failure.status, failure.headers ?? {}).end('<html>bad gateway</html>');
    };
    // A failure to reach the service ends this answer, so the client sees it rather than wait.
    req.on('end', () => void respond().catch((error: Error) => res.destroy(error)));
  });
  await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api`, seen, bodies };
}

test("a webhook without a rate goes on the wire as dbt Cloud's body: max_requests_per_second only when set", async () => {
  const writes = (req: IncomingMessage) => req.method === 'POST' || req.method === 'PUT';
  const { url, seen, bodies } = await startProxy(new URL(hostUrl).origin, 0, writes, {
    status: 502,
    forwardFirst: false,
  });
  const client = createWebhooksClient({ hostUrl: url, accountId: 1, token: ADMIN_TOKEN });
  const created = await client.create(input);
  await client.update(created.id, { ...input, max_requests_per_second: 5 });
  await client.update(created.id, { ...input, max_requests_per_second: null });
  const sent = seen.filter(writes).map((req) => JSON.parse(bodies.get(req)!) as Record<string, unknown>);
  expect(sent.map((body) => 'max_requests_per_second' in body)).toEqual([false, true, false]);
  expect(sent[1]).toMatchObject({ max_requests_per_second: 5 });
  expect(await client.get(created.id)).not.toHaveProperty('max_requests_per_second');
});

test('a create whose response was lost is retried with the same Idempotency-Key and makes one webhook', async () => {
  const origin = new URL(hostUrl).origin;
  const isCreate = (req: IncomingMessage) => req.method === 'POST';
  const { url, seen } = await startProxy(origin, 1, isCreate, { status: 502, forwardFirst: true });
  const waits: number[] = [];
  const client = createWebhooksClient({
    hostUrl: url,
    accountId: 1,
    token: ADMIN_TOKEN,
    sleep: async (ms) => void waits.push(ms),
  });
  const created = await client.create(input);
  const creates = seen.filter(isCreate);
  expect(creates).toHaveLength(2);
  expect(creates[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  expect(creates[1]!.headers['idempotency-key']).toBe(creates[0]!.headers['idempotency-key']);
  expect(waits).toHaveLength(1);
  const direct = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  expect((await direct.list()).data.map((w) => w.id)).toEqual([created.id]);
});

test("an operational endpoint's create whose answer was lost is retried under its Idempotency-Key and makes one", async () => {
  const isCreate = (req: IncomingMessage) => req.method === 'POST';
  const { url, seen } = await startProxy(new URL(hostUrl).origin, 1, isCreate, { status: 502, forwardFirst: true });
  const client = createWebhooksClient({ hostUrl: url, accountId: 1, token: ADMIN_TOKEN, sleep: async () => undefined });
  const created = await client.operationalEndpoints.create({
    name: 'On-call',
    client_url: 'https://ops.example.com/jobhooks',
    event_types: ['webhook.archived'],
  });
  const creates = seen.filter(isCreate);
  expect(creates).toHaveLength(2);
  expect(creates[1]!.headers['idempotency-key']).toBe(creates[0]!.headers['idempotency-key']);
  expect(created.hmac_secret).toMatch(/^[0-9a-f]{64}$/);
  const direct = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  expect((await direct.operationalEndpoints.list()).data.map((e) => e.id)).toEqual([created.id]);
});

test('a 429 is retried after the Retry-After the server asked for', async () => {
  const origin = new URL(hostUrl).origin;
  const { url } = await startProxy(origin, 2, () => true, {
    status: 429,
    headers: { 'retry-after': '7' },
    forwardFirst: false,
  });
  const waits: number[] = [];
  const client = createWebhooksClient({
    hostUrl: url,
    accountId: 1,
    token: ADMIN_TOKEN,
    sleep: async (ms) => void waits.push(ms),
  });
  expect((await client.list()).data).toEqual([]);
  expect(waits).toEqual([7000, 7000]);
});

test('a 5xx that persists fails after the last attempt with the server text', async () => {
  const origin = new URL(hostUrl).origin;
  const { url, seen } = await startProxy(origin, 10, () => true, { status: 503, forwardFirst: false });
  const waits: number[] = [];
  const client = createWebhooksClient({
    hostUrl: url,
    accountId: 1,
    token: ADMIN_TOKEN,
    maxAttempts: 3,
    sleep: async (ms) => void waits.push(ms),
  });
  await expect(client.list()).rejects.toMatchObject({
    status: 503,
    message: 'List webhooks failed with HTTP 503: <html>bad gateway</html>',
  });
  expect(seen).toHaveLength(3);
  expect(waits).toHaveLength(2);
  expect(waits[1]!).toBeGreaterThan(waits[0]!);
});

test('the retry settings the Terraform provider passes: which statuses, the first delay, and a request timeout', async () => {
  const origin = new URL(hostUrl).origin;
  const { url, seen } = await startProxy(origin, 2, () => true, { status: 418, forwardFirst: false });
  const waits: number[] = [];
  const client = createWebhooksClient({
    hostUrl: url,
    accountId: 1,
    token: ADMIN_TOKEN,
    retryableStatuses: [418],
    firstRetryDelayMs: 2000,
    sleep: async (ms) => void waits.push(ms),
  });
  expect((await client.list()).data).toEqual([]);
  expect(seen).toHaveLength(3);
  expect(waits[0]!).toBeGreaterThanOrEqual(2000);
  expect(waits[0]!).toBeLessThan(2500);
  expect(waits[1]!).toBeGreaterThanOrEqual(4000);

  const silent = await startReceiver(() => undefined); // accepts, never answers
  try {
    const slow = createWebhooksClient({
      hostUrl: `${silent.url}/api`,
      accountId: 1,
      token: ADMIN_TOKEN,
      maxAttempts: 1,
      timeoutMs: 200,
    });
    const started = Date.now();
    await expect(slow.list()).rejects.toThrow(/List webhooks failed: could not reach/);
    expect(Date.now() - started).toBeLessThan(5000);
  } finally {
    await silent.close();
  }
});

test('a 400 is not retried', async () => {
  const direct = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const created = await direct.create(input);
  const { url, seen } = await startProxy(new URL(hostUrl).origin, 0, () => false, { status: 500, forwardFirst: false });
  const waits: number[] = [];
  const client = createWebhooksClient({
    hostUrl: url,
    accountId: 1,
    token: ADMIN_TOKEN,
    sleep: async (ms) => void waits.push(ms),
  });
  const error = await client
    .update(created.id, { ...input, id: 'wsu_01HAAAAAAAAAAAAAAAAAAAAAAA' })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ status: 400, fieldErrors: { id: [expect.stringMatching(/does not match/)] } });
  expect(seen).toHaveLength(1);
  expect(waits).toEqual([]);
});

test('an unreachable server fails with a message naming it, after the retries', async () => {
  const dead = `${(await closedPortUrl()).replace(/\/$/, '')}/api`;
  const waits: number[] = [];
  const client = createWebhooksClient({
    hostUrl: dead,
    accountId: 1,
    token: ADMIN_TOKEN,
    maxAttempts: 2,
    sleep: async (ms) => void waits.push(ms),
  });
  const error = (await client.get('wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ').catch((e: unknown) => e)) as Error;
  // The reason is the connection's, not fetch's own "fetch failed".
  expect(error.message).toBe(
    `Read webhook wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ failed: could not reach ${dead} ` +
      `(connect ECONNREFUSED ${new URL(dead).host})`,
  );
  expect(waits).toHaveLength(1);
});

/** An empty page of webhooks, as the API answers it. */
const LIST = {
  data: [],
  status: { code: 200, is_success: true, user_message: 'Success!', developer_message: '' },
  extra: { pagination: { total_count: 0, count: 0 }, filters: { offset: 0, limit: 10 } },
};

test('a redirect is not followed: the caller is told its status, and nothing is sent where it points', async () => {
  const redirecting = await startReceiver(
    answer(302, '', { location: `${hostUrl}/v3/accounts/1/webhooks/subscriptions` }),
  );
  try {
    const before = await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).list();
    const client = createWebhooksClient({
      hostUrl: `${redirecting.url}/api`,
      accountId: 1,
      token: ADMIN_TOKEN,
    });
    const error = await client.create(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 302 });
    expect(await createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN }).list()).toEqual(before);
  } finally {
    await redirecting.close();
  }
});

test('a timeout of a fraction of a millisecond, or beyond what a timer takes, is still a limit, not an error', async () => {
  for (const timeoutMs of [1004.9999999999999, 2 ** 40]) {
    const client = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN, maxAttempts: 1, timeoutMs });
    expect(await client.list()).toMatchObject({ status: { code: 200 } });
  }
});

test('a timeout of 0 is no limit, as it is for the public Terraform provider', async () => {
  const late = await startReceiver((_request, response) => {
    setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(LIST)), 200);
  });
  try {
    const client = createWebhooksClient({
      hostUrl: `${late.url}/api`,
      accountId: 1,
      token: ADMIN_TOKEN,
      maxAttempts: 1,
      timeoutMs: 0,
    });
    expect(await client.list()).toMatchObject({ data: [] });
  } finally {
    await late.close();
  }
});

test('the request timeout also ends an answer whose body never finishes', async () => {
  const stalling = await startReceiver((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"status":'); // and never the rest
  });
  try {
    const client = createWebhooksClient({
      hostUrl: `${stalling.url}/api`,
      accountId: 1,
      token: ADMIN_TOKEN,
      maxAttempts: 1,
      timeoutMs: 200,
    });
    await expect(client.list()).rejects.toThrow(/^List webhooks failed: could not reach .* \(.*timeout.*\)$/);
  } finally {
    await stalling.close();
  }
});

test('ingest posts a job-run event once: a repeat of the same run and type answers duplicate with the first id', async () => {
  const client = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const event = { event_type: 'job.run.started' as const, run: runOf('job.run.started', { runId: 'ci-77' }) };
  const first = await client.ingest(event);
  expect(first).toMatchObject({ event_id: expect.stringMatching(/^wev_/), deliveries: 0, duplicate: false });
  expect(await client.ingest(event)).toEqual({ ...first, duplicate: true });
  // The contract's rules are checked before anything is sent: errored needs runErroredAt and status 20.
  const seen = h.answeredBy.reduce((a, b) => a + b, 0);
  await expect(
    client.ingest({ event_type: 'job.run.errored', run: runOf('job.run.started', { runErroredAt: undefined }) }),
  ).rejects.toThrow(/runErroredAt is required for job.run.errored/);
  expect(h.answeredBy.reduce((a, b) => a + b, 0)).toBe(seen);
});

test("accountStatistics and webhookStatistics (jobhooks' own) read the hourly counts, parsed by the contract", async () => {
  const receiver = await startReceiver(answer(200, 'ok'));
  try {
    const client = createWebhooksClient({ hostUrl, accountId: 1, token: await h.token('Read-Only') });
    const admin = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
    const created = await admin.create({ ...input, client_url: `${receiver.url}/hook`, job_ids: [] });
    await admin.ingest({ event_type: 'job.run.completed', run: runOf('job.run.completed', { runId: 'stats-1' }) });
    const week = await (async () => {
      for (;;) {
        const read = await client.webhookStatistics(created.id, '7d');
        if (read.totals.deliveries_succeeded === 1) return read;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    expect(week).toMatchObject({ webhook_id: created.id, window: '7d', bucket_seconds: 3600, markers: [] });
    expect(week.buckets).toHaveLength(168);
    const account = await client.accountStatistics();
    expect(account.totals).toMatchObject({ attempts_succeeded: 1, success_rate: 1 });
    expect(account.webhooks.map((w) => w.webhook_id)).toEqual([created.id]);
    await expect(client.webhookStatistics('wsu_00000000000000000000000000')).rejects.toThrow(ApiError);
  } finally {
    await receiver.close();
  }
});

describe('a refused request is told apart from a server that does not answer as the API does', () => {
  const connection = {
    accountId: 1,
    token: 't',
    tokenVariable: 'JOBHOOKS_TOKEN',
    accountIdSource: 'JOBHOOKS_ACCOUNT_ID',
  };

  test('input that breaks the contract is an InvalidRequest naming the field, and nothing is sent', async () => {
    const client = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
    const seen = h.answeredBy.reduce((a, b) => a + b, 0);
    const run = runOf('job.run.started', { runId: 'ci-78', environmentId: 'e'.repeat(70) });
    const error: unknown = await client.ingest({ event_type: 'job.run.started', run }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequest);
    const sentence =
      'Post job.run.started of run ci-78 was not sent: run.environmentId: Too big: expected string to have <=64 characters.';
    expect((error as Error).message).toBe(sentence);
    expect(describeApiFailure(error, { ...connection, hostUrl })).toBe(sentence);
    expect(h.answeredBy.reduce((a, b) => a + b, 0)).toBe(seen);
  });

  test('a success answered with a web page is an UnexpectedAnswer: the host URL is what to check, asked once', async () => {
    const page = await startReceiver(answer(202, '<html><body>Welcome</body></html>', { 'content-type': 'text/html' }));
    try {
      const client = createWebhooksClient({ hostUrl: `${page.url}/api`, accountId: 1, token: 't' });
      const error: unknown = await client
        .ingest({ event_type: 'job.run.started', run: runOf('job.run.started', { runId: 'ci-79' }) })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnexpectedAnswer);
      expect(describeApiFailure(error, { ...connection, hostUrl: `${page.url}/api` })).toBe(
        `The server at ${page.url}/api did not answer as the webhooks API does: is the host URL right?`,
      );
    } finally {
      await page.close();
    }
  });
});

describe('a host URL without /api', () => {
  test.each([
    [
      'http://127.0.0.1:8080',
      'host_url must end in /api (e.g. http://127.0.0.1:8080/api), not "http://127.0.0.1:8080".',
    ],
    [
      'https://cloud.getdbt.com/v3',
      'host_url must end in /api (e.g. https://cloud.getdbt.com/api), not "https://cloud.getdbt.com/v3".',
    ],
    [
      'cloud.getdbt.com/api',
      'host_url must be the API base URL ending in /api (e.g. http://127.0.0.1:8080/api); "cloud.getdbt.com/api" is not a URL.',
    ],
    ['ftp://example.com/api', 'host_url must be an http or https URL, not "ftp://example.com/api".'],
  ])('%s is refused by the client with one sentence', (hostUrl, message) => {
    expect(hostUrlProblem(hostUrl)).toBe(message);
    expect(() => createWebhooksClient({ hostUrl, accountId: 1, token: 't' })).toThrow(message);
  });

  test('a user name or password in it is refused, and not repeated', () => {
    const message =
      'host_url must not carry a user name or password (the API takes its token in a header of its own); remove the "user:password@" part.';
    for (const hostUrl of ['http://bob:hunter2pw@127.0.0.1:8080/api', 'https://hunter2pw@cloud.getdbt.com/v3']) {
      expect(hostUrlProblem(hostUrl)).toBe(message);
      expect(() => createWebhooksClient({ hostUrl, accountId: 1, token: 't' })).toThrow(message);
    }
    // A "/" in the password makes the URL unreadable: it is still not repeated.
    expect(hostUrlProblem('https://bob:hunter2/x@jobhooks.example.com/api')).toBe(
      'host_url must be the API base URL ending in /api (e.g. http://127.0.0.1:8080/api); the value given is not a URL.',
    );
  });

  test('the ones that end in /api are fine, with or without a trailing slash', () => {
    for (const hostUrl of ['http://127.0.0.1:8080/api', 'https://cloud.getdbt.com/api/', 'https://emea.dbt.com/api'])
      expect(hostUrlProblem(hostUrl)).toBeNull();
  });

  test('the service answers an API path outside /api with where the API is', async () => {
    const response = await h.call('GET', '/v3/accounts/1/webhooks/subscriptions');
    expect(response.statusCode).toBe(404);
    expect(response.json().status.user_message).toBe(
      'No route GET /v3/accounts/1/webhooks/subscriptions. The API is under /api: use /api/v3/accounts/1/webhooks/subscriptions, and a host_url that ends in /api (e.g. http://127.0.0.1:8080/api).',
    );
    expect((await h.call('GET', '/nothing-here')).json().status.user_message).toBe('No route GET /nothing-here.');
  });
});

test('a token broken inside (a line break, a space) or empty is refused before any request, and not shown', async () => {
  // Around it, spaces and a line break (a token read from a file) go, as they would from a header.
  const fromFile = createWebhooksClient({ hostUrl, accountId: 1, token: ` ${ADMIN_TOKEN}\n` });
  expect((await fromFile.list()).data).toEqual([]);
  const seen = h.answeredBy.reduce((a, b) => a + b, 0);
  for (const token of [`${ADMIN_TOKEN}\nSECRET`, `${ADMIN_TOKEN.slice(0, 5)} ${ADMIN_TOKEN.slice(5)}`, 'jhk_é', ' ']) {
    const made = (() => {
      try {
        createWebhooksClient({ hostUrl, accountId: 1, token });
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(made).toMatch(/^The API token is wrong: the token (is empty|holds a space, line break).*[^E]$/);
    expect(made).not.toContain('SECRET');
  }
  expect(h.answeredBy.reduce((a, b) => a + b, 0)).toBe(seen);
});

describe("a 404 counts as gone only in the API's own envelope", () => {
  test("the service's 404 is a webhook or endpoint that does not exist", async () => {
    const client = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
    const unknown = 'wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ';
    expect([await client.get(unknown), await client.delete(unknown)]).toEqual([null, false]);
    const endpoints = client.operationalEndpoints;
    expect([await endpoints.get(unknown), await endpoints.delete(unknown)]).toEqual([null, false]);
  });

  test("jobhooks' own 404 for a path it does not serve (a prefix passed through) is no webhook's: an error", async () => {
    const base = hostUrl.replace(/\/api$/, '/jobhooks/api');
    const client = createWebhooksClient({ hostUrl: base, accountId: 1, token: ADMIN_TOKEN });
    const id = 'wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ';
    await expect(client.get(id)).rejects.toThrow(
      `Read webhook ${id} failed with HTTP 404: ${base} answered 404 that it has no such route, so whether it exists is unknown; check that the host URL is the API's base URL, ending in /api`,
    );
    await expect(client.delete(id)).rejects.toThrow(/answered 404 that it has no such route/);
  });

  test("another server's 404 (a proxy's page for a path it does not know) says so, and nothing is taken as gone", async () => {
    const page = await startReceiver((_request, response) => {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end('<html><body>Not Found</body></html>');
    });
    try {
      const base = `${page.url}/wrong-prefix/api`;
      const client = createWebhooksClient({ hostUrl: base, accountId: 1, token: ADMIN_TOKEN });
      const said = (operation: string) =>
        `${operation} failed with HTTP 404: ${base} answered 404 without the API's error envelope, so whether it exists is unknown; check that the host URL is the API's base URL, ending in /api`;
      const id = 'wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ';
      await expect(client.get(id)).rejects.toThrow(said(`Read webhook ${id}`));
      await expect(client.delete(id)).rejects.toThrow(said(`Delete webhook ${id}`));
      await expect(client.operationalEndpoints.get(id)).rejects.toThrow(said(`Read operational endpoint ${id}`));
      await expect(client.operationalEndpoints.delete(id)).rejects.toThrow(said(`Delete operational endpoint ${id}`));
    } finally {
      await page.close();
    }
  });
});

test("rotateSecret and endSecretOverlap (jobhooks' own); a rotation is retried after a 429 only, never after a 5xx", async () => {
  const client = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const created = await client.create(input);
  const rotated = await client.rotateSecret(created.id, 3600);
  expect(rotated).toMatchObject({ id: created.id, previous_secret_expires_at: expect.stringMatching(/^\d+$/) });
  expect(rotated.hmac_secret).toMatch(/^[0-9a-f]{64}$/);
  expect(rotated.hmac_secret).not.toBe(created.hmac_secret);
  expect((await client.get(created.id))?.previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);
  expect(await client.endSecretOverlap(created.id)).toEqual({ id: created.id, previous_secret_expires_at: null });
  await expect(client.rotateSecret(created.id, -5)).rejects.toThrow('overlap_seconds must not be negative');

  const origin = new URL(hostUrl).origin;
  const failing = await startProxy(origin, 10, () => true, { status: 502, forwardFirst: false });
  const viaFailing = createWebhooksClient({
    hostUrl: failing.url,
    accountId: 1,
    token: ADMIN_TOKEN,
    sleep: async () => undefined,
  });
  await expect(viaFailing.rotateSecret(created.id)).rejects.toMatchObject({ status: 502 });
  expect(failing.seen).toHaveLength(1);
});

test('moving an inactive webhook whose second request (back to inactive) fails says it stays active; again, it ends', async () => {
  const direct = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const created = await direct.create({ ...input, active: false });
  let puts = 0;
  const secondPut = (req: IncomingMessage) => req.method === 'PUT' && (puts += 1) === 2;
  const { url } = await startProxy(new URL(hostUrl).origin, 1, secondPut, { status: 400, forwardFirst: false });
  const client = createWebhooksClient({ hostUrl: url, accountId: 1, token: ADMIN_TOKEN, maxAttempts: 1 });
  const moved = { ...input, client_url: 'https://hooks.example.com/moved', active: false };
  const failed = await updateWebhook(client, created.id, input.client_url, moved).catch((error: unknown) => error);
  expect(failed).toBeInstanceOf(HalfMadeUpdate);
  expect((failed as Error).message).toMatch(
    /^it was moved to its new client_url, which made it active, and then making it inactive failed \(Update webhook wsu_\w+ failed with HTTP 400: .*\): it stays active, and sends, until the change is made again$/,
  );
  expect(await direct.get(created.id)).toMatchObject({ client_url: moved.client_url, active: true });
  await updateWebhook(direct, created.id, moved.client_url, moved);
  expect(await direct.get(created.id)).toMatchObject({ client_url: moved.client_url, active: false });
});

test('a rotation under an Idempotency-Key whose answer was lost is retried, and rotates once', async () => {
  const direct = createWebhooksClient({ hostUrl, accountId: 1, token: ADMIN_TOKEN });
  const created = await direct.create(input);
  const isRotation = (req: IncomingMessage) => req.method === 'POST' && (req.url ?? '').endsWith('/secret/rotate');
  // The first rotation reaches the service, and its answer is replaced by a 502.
  const { url, seen } = await startProxy(new URL(hostUrl).origin, 1, isRotation, { status: 502, forwardFirst: true });
  const client = createWebhooksClient({ hostUrl: url, accountId: 1, token: ADMIN_TOKEN, sleep: async () => undefined });
  const key = rotationIdempotencyKey(created.id, '2026-11', created.hmac_secret);
  expect(key).toMatch(/^rotate-wsu_\w+-[0-9a-f]{32}$/);
  expect(key).not.toContain(created.hmac_secret);
  expect(rotationIdempotencyKey(created.id, '2026-11', created.hmac_secret)).toBe(key);
  // Another trigger value, or the same one later, once the state holds the next secret: another rotation.
  expect(rotationIdempotencyKey(created.id, '2026-12', created.hmac_secret)).not.toBe(key);
  expect(rotationIdempotencyKey(created.id, '2026-11', 'the next secret')).not.toBe(key);
  const rotated = await client.rotateSecret(created.id, 3600, { idempotencyKey: key });
  const rotations = seen.filter(isRotation);
  expect(rotations.map((req) => req.headers['idempotency-key'])).toEqual([key, key]);
  // Once: the secret the create made still signs beside the new one (a second rotation would have dropped it).
  const delivered = await (async () => {
    const receiver = await startReceiver(answer(200, 'ok'));
    try {
      await direct.update(created.id, { ...input, client_url: `${receiver.url}/hook`, job_ids: [] });
      await direct.test(created.id);
      return receiver.requests[0]!;
    } finally {
      await receiver.close();
    }
  })();
  expect([
    isGenuineStandard(rotated.hmac_secret, delivered),
    isGenuineStandard(created.hmac_secret, delivered),
  ]).toEqual([true, true]);
});
