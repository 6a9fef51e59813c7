// Property: whatever arrives (bodies, paths, headers), the service never answers 5xx, never crashes,
// and a 4xx changes nothing in the database.
import fc from 'fast-check';
import { EVENT_TYPES } from '@jobhooks/client/contract';
import { ADMIN_TOKEN, createWebhook, type Harness, startHarness, validCreateBody } from '../support/harness';

let h: Harness;
let knownId: string;
let readOnlyToken: string;
let otherAccountToken: string;
beforeAll(async () => {
  // A high limit keeps most generated requests away from 429, so the other paths are explored.
  h = await startHarness({ env: { JOBHOOKS_RATE_LIMIT_PER_MINUTE: '1000000', JOBHOOKS_ALLOW_PRIVATE_URLS: '0' } });
  knownId = (await createWebhook(h)).id;
  readOnlyToken = await h.token('Read-Only');
  otherAccountToken = await h.token('Account Admin', 2);
});
afterAll(async () => {
  await h.close();
});

const accountSegment = fc.oneof(
  fc.constant('1'),
  fc.constant('2'),
  fc.constant('999'),
  fc.constant('-1'),
  fc.constant('1e3'),
  fc.string({ maxLength: 12 }),
);
const webhookSegment = fc.oneof(
  fc.constant('KNOWN'),
  fc.constant('wsu_01HZZZZZZZZZZZZZZZZZZZZZZZ'),
  fc.string({ maxLength: 40 }),
  fc.stringMatching(/^wsu_[0-9A-Z]{0,30}$/),
);
const path = fc.oneof(
  fc
    .tuple(accountSegment, fc.constantFrom('subscriptions', 'subscriptions/'))
    .map(([a, s]) => `/api/v3/accounts/${a}/webhooks/${s}`),
  fc
    .tuple(accountSegment, webhookSegment, fc.constantFrom('', '/test', '/', '/x'))
    .map(([a, w, s]) => `/api/v3/accounts/${a}/webhooks/subscription/${w}${s}`),
  fc.constantFrom(
    '/api/v2/accounts/',
    '/api/v2/accounts',
    '/healthz',
    '/api/openapi.json',
    '/api/v3/accounts/1/webhooks',
  ),
  // A request target always starts with a slash on the wire.
  fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`)),
);
const query = fc.oneof(
  fc.constant(''),
  fc
    .record({ offset: fc.string({ maxLength: 6 }), limit: fc.string({ maxLength: 6 }) })
    .map((q) => `?offset=${encodeURIComponent(q.offset)}&limit=${encodeURIComponent(q.limit)}`),
);

const field = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 300 }),
  fc.integer(),
  fc.double(),
  fc.constant(null),
);
const plausibleBody = fc
  .record(
    {
      id: fc.oneof(fc.constant(''), field),
      name: fc.oneof(fc.string({ maxLength: 300 }), field),
      description: fc.oneof(fc.string({ maxLength: 1100 }), field),
      client_url: fc.oneof(
        fc.webUrl(),
        fc.constantFrom('http://127.0.0.1/', 'http://[::1]/', 'http://10.0.0.1/', 'ftp://x.example/'),
        field,
      ),
      event_types: fc.oneof(fc.array(fc.constantFrom(...EVENT_TYPES, 'job.run.other'), { maxLength: 5 }), field),
      job_ids: fc.oneof(fc.array(fc.oneof(fc.integer(), fc.double(), fc.string()), { maxLength: 5 }), field),
      active: fc.oneof(fc.boolean(), field),
    },
    { requiredKeys: [] },
  )
  .map((body) => JSON.stringify(body));
const body = fc.oneof(
  plausibleBody,
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 200 }),
  fc.constant(''),
  fc.constant(JSON.stringify(validCreateBody())),
);
const authorization = fc.oneof(
  fc.constant(`Token ${ADMIN_TOKEN}`),
  fc.constant(`Bearer ${ADMIN_TOKEN}`),
  fc.constant('READ_ONLY'),
  fc.constant('OTHER_ACCOUNT'),
  fc.constant(undefined),
  fc.string({ maxLength: 60 }),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  undefined,
);
const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
  path,
  query,
  body: fc.option(body, { nil: undefined }),
  authorization,
  contentType,
  idempotencyKey: fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
});

function resolveAuthorization(value: string | undefined): string | undefined {
  if (value === 'READ_ONLY') return `Token ${readOnlyToken}`;
  if (value === 'OTHER_ACCOUNT') return `Token ${otherAccountToken}`;
  return value;
}

test('no generated request gets a 5xx, and every 4xx leaves the database unchanged', async () => {
  let clientErrors = 0;
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      const headers: Record<string, string> = {};
      const auth = resolveAuthorization(r.authorization);
      if (auth !== undefined) headers.authorization = auth;
      if (r.contentType !== undefined) headers['content-type'] = r.contentType;
      if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey.replace(/[^\x20-\x7e]/g, '');
      const before = await h.db.snapshot();
      const response = await h.service.app.inject({
        method: r.method as 'GET',
        url: r.path.replace('KNOWN', knownId) + r.query,
        headers,
        ...(r.body !== undefined ? { payload: r.body } : {}),
      });
      expect(response.statusCode).toBeLessThan(500);
      if (response.statusCode >= 400) {
        clientErrors += 1;
        expect(await h.db.snapshot()).toBe(before);
        if (r.method !== 'HEAD') expect(response.json().status.code).toBe(response.statusCode);
      }
    }),
    { numRuns: 3000 },
  );
  // The property was exercised on refusals, not only on successes.
  expect(clientErrors).toBeGreaterThan(1000);
}, 120_000);
