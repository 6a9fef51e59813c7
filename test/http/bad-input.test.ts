// Bad input gets a 4xx in the error envelope, names what is wrong, and changes nothing in the database.
import { gzipSync } from 'node:zlib';
import {
  createWebhook,
  type Harness,
  startHarness,
  webhookPath,
  webhooksPath,
  validCreateBody,
} from '../support/harness';
import { eventsPath, runOf } from '../support/events';

let h: Harness;
let existingId: string;
beforeAll(async () => {
  h = await startHarness({ env: { JOBHOOKS_ALLOW_PRIVATE_URLS: '0' } });
  existingId = (await createWebhook(h)).id;
});
afterAll(async () => {
  await h.close();
});

const without = (field: string) => {
  const body: Record<string, unknown> = validCreateBody();
  delete body[field];
  return body;
};

/** [what, body, field the error must name] */
const INVALID_BODIES: Array<[string, unknown, string]> = [
  ['missing name', without('name'), 'name'],
  ['missing client_url', without('client_url'), 'client_url'],
  ['missing event_types', without('event_types'), 'event_types'],
  ['empty name', validCreateBody({ name: '' }), 'name'],
  ['blank name', validCreateBody({ name: '   ' }), 'name'],
  ['name of 256 characters', validCreateBody({ name: 'n'.repeat(256) }), 'name'],
  ['name as a number', validCreateBody({ name: 5 }), 'name'],
  ['description of 1,025 characters', validCreateBody({ description: 'd'.repeat(1025) }), 'description'],
  ['description as an object', validCreateBody({ description: {} }), 'description'],
  ['empty event_types', validCreateBody({ event_types: [] }), 'event_types'],
  ['unknown event type', validCreateBody({ event_types: ['job.run.finished'] }), 'event_types'],
  ['repeated event type', validCreateBody({ event_types: ['job.run.started', 'job.run.started'] }), 'event_types'],
  ['event_types as a string', validCreateBody({ event_types: 'job.run.started' }), 'event_types'],
  ['negative job id', validCreateBody({ job_ids: [-1] }), 'job_ids'],
  ['zero job id', validCreateBody({ job_ids: [0] }), 'job_ids'],
  ['fractional job id', validCreateBody({ job_ids: [1.5] }), 'job_ids'],
  ['job id as a string', validCreateBody({ job_ids: ['12'] }), 'job_ids'],
  ['repeated job id', validCreateBody({ job_ids: [3, 3] }), 'job_ids'],
  ['1,001 job ids', validCreateBody({ job_ids: Array.from({ length: 1001 }, (_, i) => i + 1) }), 'job_ids'],
  ['job id beyond 2^53', validCreateBody({ job_ids: [2 ** 60] }), 'job_ids'],
  ['active as a string', validCreateBody({ active: 'true' }), 'active'],
  ['max_requests_per_second of 0', validCreateBody({ max_requests_per_second: 0 }), 'max_requests_per_second'],
  ['max_requests_per_second of 101', validCreateBody({ max_requests_per_second: 101 }), 'max_requests_per_second'],
  ['fractional max_requests_per_second', validCreateBody({ max_requests_per_second: 2.5 }), 'max_requests_per_second'],
  ['max_requests_per_second as a string', validCreateBody({ max_requests_per_second: '5' }), 'max_requests_per_second'],
  ['empty client_url', validCreateBody({ client_url: '' }), 'client_url'],
  ['relative client_url', validCreateBody({ client_url: '/hooks' }), 'client_url'],
  ['ftp client_url', validCreateBody({ client_url: 'ftp://example.com/x' }), 'client_url'],
  ['javascript client_url', validCreateBody({ client_url: 'javascript:alert(1)' }), 'client_url'],
  ['client_url with credentials', validCreateBody({ client_url: 'https://user:pw@example.com/' }), 'client_url'],
  // A URL parser would drop or trim these, and call an address other than the one stored.
  [
    'client_url with a tab in its host',
    validCreateBody({ client_url: 'https://good.example\t.evil.example/' }),
    'client_url',
  ],
  [
    'client_url with a line break',
    validCreateBody({ client_url: 'https://example.com/a\r\nX-Injected: 1' }),
    'client_url',
  ],
  ['client_url with a leading space', validCreateBody({ client_url: ' https://example.com/' }), 'client_url'],
  ['client_url with a space in its path', validCreateBody({ client_url: 'https://example.com/a b' }), 'client_url'],
  ['client_url with DEL', validCreateBody({ client_url: 'https://example.com/a\u007f' }), 'client_url'],
  // Hosts a URL parser maps to another than the one written.
  [
    'client_url with a zero-width space in its host',
    validCreateBody({ client_url: 'https://good.example\u200b.evil.example/' }),
    'client_url',
  ],
  [
    'client_url with an ideographic full stop in its host',
    validCreateBody({ client_url: 'https://good.example\u3002evil.example/' }),
    'client_url',
  ],
  [
    'client_url with an escaped dot in its host',
    validCreateBody({ client_url: 'https://good.example%2eevil.example/' }),
    'client_url',
  ],
  [
    'client_url with a backslash before an @',
    validCreateBody({ client_url: 'https://evil.example\\@good.example/' }),
    'client_url',
  ],
  ['client_url without //', validCreateBody({ client_url: 'https:example.com/hook' }), 'client_url'],
  [
    'client_url of 2,049 characters',
    validCreateBody({ client_url: `https://example.com/${'a'.repeat(2030)}` }),
    'client_url',
  ],
  ['loopback client_url', validCreateBody({ client_url: 'http://127.0.0.1:9000/' }), 'client_url'],
  ['loopback client_url in hex', validCreateBody({ client_url: 'http://0x7f.1/' }), 'client_url'],
  ['localhost client_url', validCreateBody({ client_url: 'http://localhost:9000/' }), 'client_url'],
  ['private client_url', validCreateBody({ client_url: 'http://10.1.2.3/' }), 'client_url'],
  [
    'link-local client_url (cloud metadata)',
    validCreateBody({ client_url: 'http://169.254.169.254/latest' }),
    'client_url',
  ],
  ['CGNAT client_url', validCreateBody({ client_url: 'http://100.64.0.1/' }), 'client_url'],
  ['IPv6 loopback client_url', validCreateBody({ client_url: 'http://[::1]/' }), 'client_url'],
  ['IPv4-mapped IPv6 client_url', validCreateBody({ client_url: 'http://[::ffff:192.168.0.1]/' }), 'client_url'],
  ['non-empty id on create', validCreateBody({ id: 'wsu_mine' }), 'id'],
  ['a JSON array body', [validCreateBody()], 'body'],
  ['a JSON string body', 'hello', 'body'],
  ['a JSON null body', null, 'body'],
];

describe.each([
  ['create', 'POST', () => webhooksPath()],
  ['update', 'PUT', () => webhookPath(existingId)],
])('%s refuses invalid bodies', (_op, method, path) => {
  test.each(INVALID_BODIES.filter(([what]) => !(method === 'PUT' && what === 'non-empty id on create')))(
    '%s: 400 naming the field, database unchanged',
    async (_what, body, field) => {
      const before = await h.db.snapshot();
      const response = await h.call(method, path(), {
        rawBody: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(response.statusCode).toBe(400);
      const envelope = response.json();
      expect(envelope).toMatchObject({
        data: null,
        status: { code: 400, is_success: false, developer_message: 'validation_failed' },
      });
      expect(Object.keys(envelope.extra.field_errors)).toContain(field);
      expect(envelope.status.user_message).toContain(field === 'body' ? 'JSON object' : field);
      expect(await h.db.snapshot()).toBe(before);
    },
  );
});

test.each([0, 101, 2.5, '5', -1, true])(
  "max_requests_per_second %p is refused with the contract's one sentence, on create and update alike",
  async (rate) => {
    const sentence = 'max_requests_per_second must be a whole number from 1 to 100, or null for no limit';
    for (const [method, path] of [
      ['POST', webhooksPath()],
      ['PUT', webhookPath(existingId)],
    ] as const) {
      const response = await h.call(method, path, { body: validCreateBody({ max_requests_per_second: rate }) });
      expect(response.statusCode).toBe(400);
      expect(response.json().extra.field_errors).toEqual({ max_requests_per_second: [sentence] });
      expect(response.json().status.user_message).toContain(sentence);
    }
  },
);

test.each([
  ['a loopback address', 'http://127.0.0.1:9000/hooks'],
  ['localhost', 'http://localhost:9000/hooks'],
  ['a private address', 'http://10.1.2.3/hooks'],
])('a client_url at %s is refused with the setting that allows it and when to use it', async (_what, clientUrl) => {
  const response = await h.call('POST', webhooksPath(), { body: validCreateBody({ client_url: clientUrl }) });
  expect(response.statusCode).toBe(400);
  const [message] = response.json().extra.field_errors.client_url;
  expect(message).toMatch(
    /^client_url must not point at .+; to allow it for local development and tests, start jobhooks with JOBHOOKS_ALLOW_PRIVATE_URLS=1\.$/,
  );
});

describe('malformed requests', () => {
  test.each([
    ['not JSON', '{"name": ', 'application/json', 400],
    ['JSON with __proto__ poisoning', '{"__proto__": {"admin": true}, "name": "x"}', 'application/json', 400],
    ['a text/plain body', 'name=x', 'text/plain', 415],
    ['a form body', 'name=x', 'application/x-www-form-urlencoded', 415],
    [
      'an over-64 KiB body',
      JSON.stringify(validCreateBody({ description: 'x'.repeat(70 * 1024) })),
      'application/json',
      413,
    ],
  ])('%s gets %#: status in the envelope, database unchanged', async (_what, raw, contentType, status) => {
    const before = await h.db.snapshot();
    const response = await h.call('POST', webhooksPath(), { rawBody: raw, headers: { 'content-type': contentType } });
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ data: null, status: { code: status, is_success: false } });
    expect(await h.db.snapshot()).toBe(before);
  });

  test.each([
    ['bytes that are not UTF-8', Buffer.from('{"name":"bad\xff\xfe"}', 'latin1')],
    ['Latin-1 text', Buffer.from('{"name":"caf\xe9"}', 'latin1')],
    ['UTF-16 text', Buffer.from('\ufeff{"name":"x"}', 'utf16le')],
  ])('a body of %s is refused as not UTF-8, never stored with U+FFFD', async (_what, raw) => {
    const before = await h.db.snapshot();
    const response = await h.call('POST', webhooksPath(), {
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().status).toMatchObject({
      developer_message: 'malformed_request',
      user_message: 'The request body is not valid UTF-8 text.',
    });
    expect(await h.db.snapshot()).toBe(before);
  });

  test('a compressed body is refused as such, not as text that is not UTF-8', async () => {
    const before = await h.db.snapshot();
    const response = await h.call('POST', webhooksPath(), {
      rawBody: gzipSync(JSON.stringify(validCreateBody())),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().status).toMatchObject({
      developer_message: 'unsupported_media_type',
      user_message: 'Send the request body uncompressed: Content-Encoding gzip is not supported.',
    });
    expect(await h.db.snapshot()).toBe(before);
  });

  test('a __proto__ key is refused naming where it is, not as JSON that cannot be read', async () => {
    const response = await h.call('POST', webhooksPath(), {
      rawBody: '{"name":"x","nested":{"__proto__":{"admin":true}}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().extra.field_errors).toEqual({
      'nested.__proto__': ['is a key no request needs (__proto__, or constructor.prototype), refused for safety'],
    });
  });

  test('a body nested 20,000 levels deep is read like any other: its unknown field is ignored', async () => {
    const depth = 20_000;
    const raw = JSON.stringify(validCreateBody()).replace(/}$/, `,"extra":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expect(raw.length).toBeLessThan(64 * 1024);
    const response = await h.call('POST', webhooksPath(), {
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(201);
    const nul = JSON.stringify(validCreateBody()).replace(
      /}$/,
      `,"extra":${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}}`,
    );
    const refused = await h.call('POST', webhooksPath(), {
      rawBody: nul,
      headers: { 'content-type': 'application/json' },
    });
    expect(refused.statusCode).toBe(400);
    expect(Object.keys(refused.json().extra.field_errors)).toEqual([`extra${'.0'.repeat(depth)}`]);
  });

  test('a create with no body at all is a 400 naming the body', async () => {
    const response = await h.call('POST', webhooksPath());
    expect(response.statusCode).toBe(400);
    expect(response.json().extra.field_errors.body).toBeDefined();
  });

  test('an unknown field is ignored, as real clients send read-only fields back', async () => {
    const response = await h.call('POST', webhooksPath(), {
      body: validCreateBody({ http_status_code: '200', hmac_secret: 'mine' }),
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().data.http_status_code).toBe('0');
    expect(response.json().data.hmac_secret).not.toBe('mine');
  });
});

test("an event missing run fields is refused with one sentence per field, in the API's words, not zod's", async () => {
  const before = await h.db.snapshot();
  const response = await h.call('POST', eventsPath(), {
    body: {
      event_type: 'job.run.started',
      run: { jobId: 7, runId: '1', runStatus: 'Running', runStatusCode: 3, runStartedAt: '2026-11-21T09:00:00Z' },
    },
  });
  expect(response.statusCode).toBe(400);
  const { status, extra } = response.json();
  expect(extra.field_errors).toMatchObject({
    'run.jobId': ['run.jobId must be a string'],
    'run.jobName': ['run.jobName is required'],
  });
  expect(status.user_message).toContain('run.jobId must be a string. run.jobName is required.');
  expect(status.user_message).not.toContain('Invalid input');
  expect(await h.db.snapshot()).toBe(before);
});

test("an event's own rules and a fraction where a whole number belongs are worded the same way", async () => {
  const response = await h.call('POST', eventsPath(), {
    body: {
      event_type: 'job.run.completed',
      run: { ...runOf('job.run.completed'), runFinishedAt: undefined, runStatusCode: 10 },
    },
  });
  expect(response.statusCode).toBe(400);
  expect(response.json().status.user_message).toBe(
    'Invalid request: run.runFinishedAt is required for job.run.completed',
  );
  const fraction = await h.call('POST', eventsPath(), {
    body: { event_type: 'job.run.completed', run: { ...runOf('job.run.completed'), runStatusCode: 2.5 } },
  });
  expect(fraction.json().status.user_message).toBe('Invalid request: run.runStatusCode must be a whole number');
});

test('a host a parser would map to another is refused with the host it would call', async () => {
  const response = await h.call('POST', webhooksPath(), {
    body: validCreateBody({ client_url: 'https://good.example%2eevil.example/hook' }),
  });
  expect(response.json().extra.field_errors).toEqual({
    client_url: ['client_url must name its host in plain ASCII, as it is called (here good.example.evil.example)'],
  });
  const punycode = await h.call('POST', webhooksPath(), {
    body: validCreateBody({ client_url: 'https://xn--bcher-kva.example/hook' }),
  });
  expect(punycode.statusCode).toBe(201);
});

test('a field named in its own sentence is not named again in front of it', async () => {
  const response = await h.call('POST', webhooksPath(), { body: validCreateBody({ client_url: 42 }) });
  expect(response.statusCode).toBe(400);
  expect(response.json().status.user_message).toBe('Invalid request: client_url must be a string');
});
