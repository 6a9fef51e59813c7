// GET /api/openapi.json: an OpenAPI 3 document generated from the same zod schemas that validate the requests.
import { type Harness, startHarness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

test('documents the six webhook endpoints and the accounts endpoint', async () => {
  const doc = (await h.call('GET', '/api/openapi.json', { token: null })).json();
  expect(doc.openapi).toMatch(/^3\./);
  const single = '/api/v3/accounts/{account_id}/webhooks/subscription/{webhook_id}';
  const collection = '/api/v3/accounts/{account_id}/webhooks/subscriptions';
  expect(Object.keys(doc.paths[collection]).sort()).toEqual(['get', 'post']);
  expect(Object.keys(doc.paths[single]).sort()).toEqual(['delete', 'get', 'put']);
  expect(Object.keys(doc.paths[`${single}/test`])).toEqual(['get']);
  expect(doc.paths['/api/v2/accounts']).toBeDefined();
});

test('documents event ingestion, the delivery log and redelivery', async () => {
  const doc = (await h.call('GET', '/api/openapi.json', { token: null })).json();
  const single = '/api/v3/accounts/{account_id}/webhooks/subscription/{webhook_id}';
  expect(Object.keys(doc.paths['/api/v3/accounts/{account_id}/webhooks/events'])).toEqual(['post']);
  expect(Object.keys(doc.paths[`${single}/deliveries`])).toEqual(['get']);
  expect(Object.keys(doc.paths[`${single}/deliveries/{delivery_id}/retry`])).toEqual(['post']);
  const ingest = doc.paths['/api/v3/accounts/{account_id}/webhooks/events'].post;
  expect(ingest.requestBody.content['application/json'].schema.required.sort()).toEqual(['event_type', 'run']);
  expect(Object.keys(ingest.responses)).toContain('202');
});

test('the create request schema is the validation schema: required fields, enums and limits', async () => {
  const doc = (await h.call('GET', '/api/openapi.json', { token: null })).json();
  const body =
    doc.paths['/api/v3/accounts/{account_id}/webhooks/subscriptions'].post.requestBody.content['application/json']
      .schema;
  expect(body.required.sort()).toEqual(['client_url', 'event_types', 'name']);
  expect(body.properties.event_types.items.enum).toEqual(['job.run.started', 'job.run.completed', 'job.run.errored']);
  expect(body.properties.name.maxLength).toBe(255);
  expect(body.properties.client_url.maxLength).toBe(2048);
  const created =
    doc.paths['/api/v3/accounts/{account_id}/webhooks/subscriptions'].post.responses['201'].content['application/json']
      .schema;
  expect(created.properties.data.required).toContain('hmac_secret');
});
