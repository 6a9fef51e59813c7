// The six webhook endpoints (docs/api-contract.md#3-endpoints): fields, types, status codes and envelopes, and the
// exact requests real clients send.
import {
  ACCOUNT_ID,
  ADMIN_TOKEN,
  createWebhook,
  type Harness,
  servicesPerHarness,
  startHarness,
  webhookPath,
  webhooksPath,
  validCreateBody,
} from '../support/harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const SUMMARY_FIELDS = [
  'account_id',
  'account_identifier',
  'active',
  'archived',
  'client_url',
  'created_at',
  'description',
  'event_types',
  'http_status_code',
  'id',
  'job_ids',
  'name',
  'updated_at',
];

describe('create (POST .../webhooks/subscriptions)', () => {
  test('returns 201 with every field of the create response, typed as the contract says, including hmac_secret', async () => {
    const response = await h.call('POST', webhooksPath(), { body: validCreateBody() });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body.status).toEqual({ code: 201 });
    expect(Object.keys(body.data).sort()).toEqual([...SUMMARY_FIELDS, 'hmac_secret'].sort());
    expect(body.data).toMatchObject({
      account_id: String(ACCOUNT_ID),
      name: 'Notify the data team',
      description: 'Posts run results',
      client_url: 'https://hooks.example.com/dbt',
      event_types: ['job.run.completed', 'job.run.started'],
      job_ids: ['42', '7'],
      active: true,
      http_status_code: '0',
      archived: false,
    });
    expect(body.data.id).toMatch(/^wsu_[0-9A-Z]{26}$/);
    expect(body.data.account_identifier).toMatch(/^act_[0-9A-Z]{26}$/);
    expect(body.data.hmac_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(body.data.created_at).toMatch(/^\d{16}$/);
    expect(body.data.updated_at).toBe(body.data.created_at);
  });

  test('applies the documented defaults to omitted optional fields', async () => {
    const response = await h.call('POST', webhooksPath(), {
      body: { name: 'x', client_url: 'https://a.example.com', event_types: ['job.run.errored'] },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ description: '', job_ids: [], active: true });
  });

  test('accepts null for optional fields as if omitted', async () => {
    const response = await h.call('POST', webhooksPath(), {
      body: {
        name: 'x',
        client_url: 'https://a.example.com',
        event_types: ['job.run.errored'],
        job_ids: null,
        description: null,
        active: null,
      },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ description: '', job_ids: [], active: true });
  });

  test('accepts the Terraform provider create body: "id":"", integer job_ids, no description', async () => {
    const terraformBody =
      '{"id":"","name":"tf","client_url":"https://example.com","event_types":["job.run.started","job.run.completed"],"job_ids":[],"active":true}';
    const response = await h.call('POST', webhooksPath(), {
      rawBody: terraformBody,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': 'terraform-provider-dbtcloud/1.12.0',
      },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({ name: 'tf', description: '', job_ids: [], active: true });
    expect(typeof response.json().data.hmac_secret).toBe('string');
  });

  test('keeps the order of job_ids and event_types exactly as sent', async () => {
    const created = await createWebhook(h, {
      job_ids: [9, 1, 5],
      event_types: ['job.run.errored', 'job.run.started', 'job.run.completed'],
    });
    const read = (await h.call('GET', webhookPath(created.id))).json().data;
    expect(read.job_ids).toEqual(['9', '1', '5']);
    expect(read.event_types).toEqual(['job.run.errored', 'job.run.started', 'job.run.completed']);
  });

  test('echoes name and description byte for byte, spaces and unicode included', async () => {
    const created = await createWebhook(h, { name: '  Équipe données ✓ ', description: 'line 1\nline 2  ' });
    const read = (await h.call('GET', webhookPath(created.id))).json().data;
    expect(read.name).toBe('  Équipe données ✓ ');
    expect(read.description).toBe('line 1\nline 2  ');
  });

  test('stores active: false as sent', async () => {
    const created = await createWebhook(h, { active: false });
    expect(created.active).toBe(false);
    expect((await h.call('GET', webhookPath(created.id))).json().data.active).toBe(false);
  });
});

describe('get (GET .../webhooks/subscription/{id})', () => {
  test('returns the fields of a webhook without hmac_secret', async () => {
    const created = await createWebhook(h);
    const response = await h.call('GET', webhookPath(created.id));
    expect(response.statusCode).toBe(200);
    expect(response.json().status).toEqual({ code: 200 });
    // dispatched_at is absent until a dispatch happens; delivery_circuit says how its endpoint has been answering.
    expect(Object.keys(response.json().data).sort()).toEqual([...SUMMARY_FIELDS, 'delivery_circuit'].sort());
    const { hmac_secret: _secret, ...withoutSecret } = created;
    expect(response.json().data).toEqual({ ...withoutSecret, delivery_circuit: 'closed' });
  });

  test('answers the Terraform provider GET, which sends Content-Type: application/json with no body', async () => {
    const created = await createWebhook(h);
    const response = await h.call('GET', webhookPath(created.id), {
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    });
    expect(response.statusCode).toBe(200);
  });

  test.each([
    ['an unknown id', 'wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ'],
    ['a malformed id', 'not-an-id'],
    ['an id of another kind', 'wev_01HZZZZZZZZZZZZZZZZZZZZZZZ'],
    ['a very long id', `wsu_${'A'.repeat(150)}`],
    ['an id with broken percent-encoding', '%E0%A4%A'],
  ])('answers 404 (never 400) for %s, with status.code 404 in the body', async (_label, id) => {
    const response = await h.call('GET', webhookPath(id));
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ data: null, status: { code: 404, is_success: false } });
  });
});

describe('list (GET .../webhooks/subscriptions)', () => {
  test('returns data[], status 200 and the default paging', async () => {
    await createWebhook(h);
    const response = await h.call('GET', webhooksPath());
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.status).toEqual({ code: 200 });
    expect(body.extra).toEqual({ pagination: { total_count: 1, count: 1 }, filters: { offset: 0, limit: 10 } });
    expect(body.data).toHaveLength(1);
    expect(body.data[0].hmac_secret).toBeUndefined();
  });

  test('an empty account lists nothing', async () => {
    const body = (await h.call('GET', webhooksPath())).json();
    expect(body.data).toEqual([]);
    expect(body.extra.pagination).toEqual({ total_count: 0, count: 0 });
  });

  test('the paging loop of a real client (?offset=N alone until count reaches total_count) sees every webhook once', async () => {
    const created: string[] = [];
    for (let i = 0; i < 23; i += 1) created.push((await createWebhook(h, { name: `hook ${i}` })).id);
    const seen: string[] = [];
    let offset = 0;
    for (;;) {
      const body = (await h.call('GET', `${webhooksPath()}?offset=${offset}`)).json();
      seen.push(...body.data.map((w: { id: string }) => w.id));
      offset += body.extra.pagination.count;
      if (body.extra.pagination.count === 0 || offset >= body.extra.pagination.total_count) break;
    }
    expect(seen).toEqual(created);
  });

  test('honours limit up to 100', async () => {
    for (let i = 0; i < 3; i += 1) await createWebhook(h);
    const body = (await h.call('GET', `${webhooksPath()}?limit=2&offset=1`)).json();
    expect(body.data).toHaveLength(2);
    expect(body.extra).toEqual({ pagination: { total_count: 3, count: 2 }, filters: { offset: 1, limit: 2 } });
  });

  test.each(['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'offset=1.5'])(
    'refuses %s with 400 naming the parameter',
    async (query) => {
      const response = await h.call('GET', `${webhooksPath()}?${query}`);
      expect(response.statusCode).toBe(400);
      expect(Object.keys(response.json().extra.field_errors)).toEqual([query.split('=')[0]]);
    },
  );

  test.each([
    ['limit=1234567890', { limit: ['must be between 1 and 100'] }],
    ['offset=99999999999999999999', { offset: ['must be at most 9007199254740991'] }],
    ['limit=1&limit=2', { limit: ['limit is given more than once'] }],
    ['offset=0&offset=1', { offset: ['offset is given more than once'] }],
  ])('refuses %s with what is wrong with it', async (query, fieldErrors) => {
    const response = await h.call('GET', `${webhooksPath()}?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().extra.field_errors).toEqual(fieldErrors);
  });

  test('an offset past every webhook, however large, is an empty page', async () => {
    for (const offset of [1_000_000_000, Number.MAX_SAFE_INTEGER]) {
      const response = await h.call('GET', `${webhooksPath()}?offset=${offset}`);
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toEqual([]);
      expect(response.json().extra.filters).toEqual({ offset, limit: 10 });
    }
  });
});

describe('update (PUT .../webhooks/subscription/{id})', () => {
  test('replaces the fields and returns the update fields without hmac_secret', async () => {
    const created = await createWebhook(h);
    const response = await h.call('PUT', webhookPath(created.id), {
      body: {
        name: 'renamed',
        client_url: 'https://hooks.example.com/dbt',
        event_types: ['job.run.errored'],
        job_ids: [3],
        active: false,
        description: 'd',
      },
    });
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    expect(Object.keys(data).sort()).toEqual(SUMMARY_FIELDS.sort());
    expect(data).toMatchObject({
      name: 'renamed',
      event_types: ['job.run.errored'],
      job_ids: ['3'],
      active: false,
      description: 'd',
    });
    expect(data.created_at).toBe(created.created_at);
    expect(Number(data.updated_at)).toBeGreaterThan(Number(created.updated_at));
  });

  test('is a full replacement: omitted optional fields take their create defaults', async () => {
    const created = await createWebhook(h, { description: 'to be cleared', job_ids: [1, 2], active: false });
    const response = await h.call('PUT', webhookPath(created.id), {
      body: { name: 'n', client_url: created.client_url, event_types: ['job.run.started'] },
    });
    expect(response.json().data).toMatchObject({ description: '', job_ids: [], active: true });
  });

  test('accepts the Terraform provider update body, which repeats the webhook id', async () => {
    const created = await createWebhook(h);
    const body = {
      id: created.id,
      name: 'tf2',
      client_url: 'https://example.com/test',
      event_types: ['job.run.completed'],
      job_ids: [1234],
      active: true,
    };
    const response = await h.call('PUT', webhookPath(created.id), { body });
    expect(response.statusCode).toBe(200);
    const read = (await h.call('GET', webhookPath(created.id))).json().data;
    expect(read).toMatchObject({
      name: 'tf2',
      client_url: 'https://example.com/test',
      event_types: ['job.run.completed'],
      job_ids: ['1234'],
      description: '',
    });
  });

  test('refuses a body id that names another webhook, and changes nothing', async () => {
    const a = await createWebhook(h);
    const b = await createWebhook(h);
    const response = await h.call('PUT', webhookPath(a.id), {
      body: { ...validCreateBody({ name: 'changed' }), id: b.id },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().extra.field_errors.id).toBeDefined();
    expect((await h.call('GET', webhookPath(a.id))).json().data.name).toBe(a.name);
  });

  test('answers 404 for an unknown webhook', async () => {
    const response = await h.call('PUT', webhookPath('wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ'), { body: validCreateBody() });
    expect(response.statusCode).toBe(404);
    expect(response.json().status.code).toBe(404);
  });

  test('a new client_url makes the webhook active whatever active says', async () => {
    const created = await createWebhook(h, { active: false });
    const response = await h.call('PUT', webhookPath(created.id), {
      body: validCreateBody({ client_url: 'https://other.example.com/', active: false }),
    });
    expect(response.json().data.active).toBe(true);
  });
});

describe("max_requests_per_second (jobhooks' own delivery rate)", () => {
  /** The body's text with updated_at, which every PUT changes, put aside. */
  const withoutUpdatedAt = (text: string) => text.replace(/"updated_at":"\d+"/, '"updated_at":"-"');

  test('is stored and returned by create, get, list and update, and a full replacement without it removes it', async () => {
    const created = await createWebhook(h, { max_requests_per_second: 5 });
    expect(created.max_requests_per_second).toBe(5);
    expect((await h.call('GET', webhookPath(created.id))).json().data.max_requests_per_second).toBe(5);
    expect((await h.call('GET', webhooksPath())).json().data[0].max_requests_per_second).toBe(5);
    const raised = await h.call('PUT', webhookPath(created.id), {
      body: validCreateBody({ max_requests_per_second: 100 }),
    });
    expect(raised.json().data.max_requests_per_second).toBe(100);
    for (const body of [validCreateBody(), validCreateBody({ max_requests_per_second: null })]) {
      await h.call('PUT', webhookPath(created.id), { body: validCreateBody({ max_requests_per_second: 7 }) });
      const removed = await h.call('PUT', webhookPath(created.id), { body });
      expect(removed.json().data).not.toHaveProperty('max_requests_per_second');
      expect((await h.call('GET', webhookPath(created.id))).json().data).not.toHaveProperty('max_requests_per_second');
    }
  });

  test('a webhook without a rate answers as dbt Cloud does: no such field anywhere, and the same bytes after one was removed', async () => {
    const createdResponse = await h.call('POST', webhooksPath(), { body: validCreateBody() });
    const id = createdResponse.json().data.id as string;
    const before = {
      get: (await h.call('GET', webhookPath(id))).body,
      list: (await h.call('GET', webhooksPath())).body,
      put: (await h.call('PUT', webhookPath(id), { body: validCreateBody() })).body,
    };
    for (const text of [createdResponse.body, ...Object.values(before)])
      expect(text).not.toContain('max_requests_per_second');

    await h.call('PUT', webhookPath(id), { body: validCreateBody({ max_requests_per_second: 3 }) });
    const rated = (await h.call('GET', webhookPath(id))).json().data as Record<string, unknown>;
    // Set, it is one more field; the others keep their order.
    expect(Object.keys(rated).filter((key) => key !== 'max_requests_per_second')).toEqual(
      Object.keys(JSON.parse(before.get).data),
    );

    const put = (await h.call('PUT', webhookPath(id), { body: validCreateBody() })).body;
    expect(withoutUpdatedAt(put)).toBe(withoutUpdatedAt(before.put));
    expect(withoutUpdatedAt((await h.call('GET', webhookPath(id))).body)).toBe(withoutUpdatedAt(before.get));
    expect(withoutUpdatedAt((await h.call('GET', webhooksPath())).body)).toBe(withoutUpdatedAt(before.list));
  });
});

describe('delete (DELETE .../webhooks/subscription/{id})', () => {
  test('returns data.id, status.code 200 and status.is_success true, then the webhook is gone', async () => {
    const created = await createWebhook(h);
    const response = await h.call('DELETE', webhookPath(created.id));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: { id: created.id }, status: { code: 200, is_success: true } });
    expect((await h.call('GET', webhookPath(created.id))).statusCode).toBe(404);
    expect((await h.call('DELETE', webhookPath(created.id))).statusCode).toBe(404);
  });

  test('answers the Terraform provider DELETE, which sends Content-Type: application/json with no body', async () => {
    const created = await createWebhook(h);
    const response = await h.call('DELETE', webhookPath(created.id), {
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(200);
  });
});

describe('accounts (GET /api/v2/accounts/)', () => {
  test("lists the token's account with a numeric id, at the trailing-slash path the Terraform provider calls", async () => {
    const response = await h.call('GET', '/api/v2/accounts/', { headers: { 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: [
        {
          id: ACCOUNT_ID,
          name: 'Account 1',
          plan: 'enterprise',
          identifier: expect.stringMatching(/^act_/),
          permission_set: 'Account Admin',
        },
      ],
      status: { code: 200 },
    });
  });
});

describe('authentication schemes', () => {
  test('Bearer and Token are equivalent, case-insensitively', async () => {
    for (const scheme of ['Token', 'Bearer', 'bearer', 'TOKEN']) {
      const response = await h.call('GET', webhooksPath(), {
        token: null,
        headers: { authorization: `${scheme} ${ADMIN_TOKEN}` },
      });
      expect(response.statusCode).toBe(200);
    }
  });

  test.each([
    ['no header', undefined],
    ['an unknown scheme', `Basic ${ADMIN_TOKEN}`],
    ['a bare token', ADMIN_TOKEN],
    ['an unknown token', 'Token nope-nope-nope-nope-nope'],
  ])('answers 401 in the envelope for %s', async (_label, header) => {
    const response = await h.call('GET', webhooksPath(), {
      token: null,
      headers: header === undefined ? {} : { authorization: header },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ data: null, status: { code: 401, is_success: false } });
  });
});

describe('operations', () => {
  test('GET /healthz (liveness) answers 200 while the process runs, and /readyz 503 once the database is gone', async () => {
    expect((await h.call('GET', '/readyz', { token: null })).statusCode).toBe(200);
    await h.service.store.close();
    expect((await h.call('GET', '/healthz', { token: null })).statusCode).toBe(200);
    const ready = await h.call('GET', '/readyz', { token: null });
    expect(ready.statusCode).toBe(503);
    // The harness allows private addresses, which /readyz says as long as the service runs.
    expect(ready.json()).toEqual({
      status: 'unavailable',
      reason: 'the database cannot be read or written',
      warnings: [expect.stringMatching(/^JOBHOOKS_ALLOW_PRIVATE_URLS is on: /)],
    });
  });

  test('an unknown route answers 404 in the envelope', async () => {
    const response = await h.call('GET', '/api/v3/nothing');
    expect(response.statusCode).toBe(404);
    expect(response.json().status.code).toBe(404);
  });
});

test('the requests of a test reach every service the harness runs, in turn', async () => {
  for (let i = 0; i < 4; i += 1) expect((await h.call('GET', webhooksPath())).statusCode).toBe(200);
  expect(h.answeredBy).toHaveLength(servicesPerHarness());
  expect(h.answeredBy.every((n) => n >= 2)).toBe(true);
});
