// GET /api/openapi.json: an OpenAPI 3.1 document generated from the same zod schemas that validate the requests, with
// named components, declared headers, and the receiver's side (the `jobRunEvent` webhook); it lints clean.
import { LIMITS } from '@jobhooks/client/contract';
import { describeProblems, lintOpenApi } from '../../scripts/openapi-lint';
import { type Harness, startHarness } from '../support/harness';

type Json = Record<string, any>;

let h: Harness;
let doc: Json;
beforeAll(async () => {
  h = await startHarness();
  doc = (await h.call('GET', '/api/openapi.json', { token: null })).json();
});
afterAll(async () => {
  await h.close();
});

const COLLECTION = '/api/v3/accounts/{account_id}/webhooks/subscriptions';
const SINGLE = '/api/v3/accounts/{account_id}/webhooks/subscription/{webhook_id}';
const EVENTS = '/api/v3/accounts/{account_id}/webhooks/events';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** A schema with its `$ref` to a component replaced by the component (one level). */
function deref(schema: Json): Json {
  const ref: unknown = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace(/^#\/components\/schemas\//, '');
  const component = doc.components.schemas[name];
  if (component === undefined) throw new Error(`${ref} names no component`);
  return component;
}

function operations(): { path: string; method: string; operation: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation: operation as Json })),
  );
}

function refsIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => refsIn(item, into));
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') into.add(child);
      else refsIn(child, into);
    }
  }
  return into;
}

test('documents the six webhook endpoints and the accounts endpoint', () => {
  expect(doc.openapi).toMatch(/^3\./);
  expect(Object.keys(doc.paths[COLLECTION]).sort()).toEqual(['get', 'post']);
  expect(Object.keys(doc.paths[SINGLE]).sort()).toEqual(['delete', 'get', 'put']);
  expect(Object.keys(doc.paths[`${SINGLE}/test`])).toEqual(['get']);
  expect(doc.paths['/api/v2/accounts']).toBeDefined();
});

test('documents event ingestion, the delivery log and redelivery', () => {
  expect(Object.keys(doc.paths[EVENTS])).toEqual(['post']);
  expect(Object.keys(doc.paths[`${SINGLE}/deliveries`])).toEqual(['get']);
  expect(Object.keys(doc.paths[`${SINGLE}/deliveries/{delivery_id}/retry`])).toEqual(['post']);
  const ingest = doc.paths[EVENTS].post;
  expect(deref(ingest.requestBody.content['application/json'].schema).required.sort()).toEqual(['event_type', 'run']);
  expect(Object.keys(ingest.responses)).toContain('202');
});

test('the create request schema is the validation schema: required fields, enums and limits', () => {
  const body = deref(doc.paths[COLLECTION].post.requestBody.content['application/json'].schema);
  expect(body.required.sort()).toEqual(['client_url', 'event_types', 'name']);
  expect(body.properties.event_types.items.enum).toEqual(['job.run.started', 'job.run.completed', 'job.run.errored']);
  expect(body.properties.name.maxLength).toBe(255);
  expect(body.properties.client_url.maxLength).toBe(2048);
  const created = doc.paths[COLLECTION].post.responses['201'].content['application/json'].schema;
  expect(deref(created.properties.data).required).toContain('hmac_secret');
});

test('every operation has an operationId, unique, stable and camelCase', () => {
  const ids = operations().map(({ operation }) => operation.operationId);
  expect(ids.every((id) => typeof id === 'string' && /^[a-z][a-zA-Z]+$/.test(id))).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.sort()).toEqual(
    [
      'listWebhooks',
      'createWebhook',
      'getWebhook',
      'updateWebhook',
      'deleteWebhook',
      'testWebhook',
      'rotateWebhookSecret',
      'endWebhookSecretOverlap',
      'listDeliveries',
      'getDelivery',
      'retryDelivery',
      'recoverDeliveries',
      'getAccountStatistics',
      'getWebhookStatistics',
      'ingestEvent',
      'listAccounts',
      'listOperationalEndpoints',
      'createOperationalEndpoint',
      'getOperationalEndpoint',
      'updateOperationalEndpoint',
      'deleteOperationalEndpoint',
      'rotateOperationalEndpointSecret',
      'listOperationalDeliveries',
      'getOperationalDelivery',
      'retryOperationalDelivery',
    ].sort(),
  );
  const byId = Object.fromEntries(operations().map((o) => [o.operation.operationId, `${o.method} ${o.path}`]));
  expect(byId.createWebhook).toBe(`post ${COLLECTION}`);
  expect(byId.deleteWebhook).toBe(`delete ${SINGLE}`);
  expect(byId.ingestEvent).toBe(`post ${EVENTS}`);
  expect(byId.getWebhookStatistics).toBe(`get ${SINGLE}/statistics`);
  expect(byId.getAccountStatistics).toBe('get /api/v3/accounts/{account_id}/webhooks/statistics');
  expect(byId.createOperationalEndpoint).toBe('post /api/v3/accounts/{account_id}/operational-endpoints');
});

test('the main shapes are named components, each referenced, and every reference resolves', () => {
  const schemas = doc.components.schemas as Json;
  for (const name of [
    'WebhookDetail',
    'WebhookSummary',
    'CreatedWebhook',
    'CreateWebhookBody',
    'UpdateWebhookBody',
    'ErrorEnvelope',
    'DeliveryAttemptView',
    'DeliveryDetail',
    'DeliveryPayload',
    'AccountStatistics',
    'WebhookStatistics',
    'IngestEventBody',
    'AccountView',
  ]) {
    expect(schemas[name]).toEqual(expect.objectContaining({ type: 'object' }));
  }
  expect(Object.keys(schemas).filter((name) => name.endsWith('Input'))).toEqual([]);
  const refs = refsIn(doc);
  for (const name of Object.keys(schemas)) expect(refs).toContain(`#/components/schemas/${name}`);
  for (const ref of refs) {
    const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(ref) ?? [];
    expect(doc.components[kind!]?.[name!]).toBeDefined();
  }
  expect(doc.paths[SINGLE].get.responses['200'].content['application/json'].schema.properties.data).toEqual({
    $ref: '#/components/schemas/WebhookDetail',
  });
  expect(doc.paths[SINGLE].put.requestBody.content['application/json'].schema).toEqual({
    $ref: '#/components/schemas/UpdateWebhookBody',
  });
  expect(doc.paths[SINGLE].get.responses['404'].content['application/json'].schema).toEqual({
    $ref: '#/components/schemas/ErrorEnvelope',
  });
});

test('declares servers, the license, tag descriptions and the headers the API reads and sets', () => {
  expect(doc.openapi).toMatch(/^3\.1\./);
  expect(doc.servers).toEqual([expect.objectContaining({ url: '/', description: expect.any(String) })]);
  expect(doc.info.license).toEqual(expect.objectContaining({ name: 'MIT' }));
  expect(doc.info.description).toEqual(expect.any(String));
  for (const tag of doc.tags) expect(tag.description).toEqual(expect.any(String));

  const create = doc.paths[COLLECTION].post;
  const key = create.parameters.find((p: Json) => p.name === 'Idempotency-Key');
  expect(key).toEqual(expect.objectContaining({ in: 'header', required: false }));
  expect(key.schema.maxLength).toBe(LIMITS.idempotencyKeyMaxChars);
  expect(create.responses['201'].headers['Idempotent-Replayed']).toBeDefined();
  expect(doc.paths[EVENTS].post.responses['202'].headers['Idempotent-Replayed']).toBeDefined();
  expect(doc.components.headers.IdempotentReplayed.schema.enum).toEqual(['true']);

  for (const { operation } of operations()) {
    expect(operation.responses['429'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
  }
  expect(doc.components.headers.RetryAfter.schema.type).toBe('integer');
});

test("the jobRunEvent webhook describes the receiver's side: payload, both signature schemes, headers, answers", () => {
  const receive = doc.webhooks.jobRunEvent.post;
  expect(receive.operationId).toBe('receiveJobRunEvent');
  expect(receive.requestBody.content['application/json'].schema).toEqual({
    $ref: '#/components/schemas/DeliveryPayload',
  });
  const payload = doc.components.schemas.DeliveryPayload;
  expect(Object.keys(payload.properties)).toEqual([
    'accountId',
    'webhookId',
    'eventId',
    'timestamp',
    'eventType',
    'webhookName',
    'data',
  ]);

  // Both schemes: dbt Cloud's Authorization and Standard Webhooks' webhook-signature, either one verifies.
  expect(receive.security).toEqual([{ dbtSignature: [] }, { standardWebhooksSignature: [] }]);
  const { dbtSignature, standardWebhooksSignature } = doc.components.securitySchemes;
  expect(dbtSignature).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }));
  expect(dbtSignature.description).toMatch(/hex\(HMAC-SHA256\(key, body\)\)/);
  expect(dbtSignature.description).toMatch(/UTF-8/);
  expect(standardWebhooksSignature).toEqual(expect.objectContaining({ in: 'header', name: 'webhook-signature' }));
  expect(standardWebhooksSignature.description).toMatch(/`v1,`.*base64\(HMAC-SHA256/);
  expect(standardWebhooksSignature.description).toMatch(/v1,<new> v1,<old>/);

  const headers = Object.fromEntries(receive.parameters.map((p: Json) => [p.name, p]));
  for (const name of [
    'webhook-id',
    'webhook-timestamp',
    'webhook-signature',
    'X-Jobhooks-Event-Id',
    'X-Jobhooks-Attempt',
  ])
    expect(headers[name]).toEqual(expect.objectContaining({ in: 'header', required: true }));
  const signature = new RegExp(headers['webhook-signature'].schema.pattern);
  const one = `v1,${Buffer.alloc(32, 7).toString('base64')}`;
  const other = `v1,${Buffer.alloc(32, 9).toString('base64')}`;
  expect(signature.test(one)).toBe(true);
  expect(signature.test(`${one} ${other}`)).toBe(true);
  expect(signature.test('v1,not-base64')).toBe(false);

  expect(Object.keys(receive.responses).sort()).toEqual(['2XX', '410', '429', '503', 'default']);
  expect(receive.responses['2XX'].description).toMatch(/10 s/);
  expect(receive.responses['410'].description).toMatch(/archives the webhook/);
  expect(receive.responses.default.description).toMatch(/retried/);
});

test('the served document lints clean with redocly.yaml (Redocly CLI, the recommended rules)', () => {
  const result = lintOpenApi(doc);
  expect(describeProblems(result)).toBe('');
  expect(result).toEqual(expect.objectContaining({ errors: 0, warnings: 0 }));
});
