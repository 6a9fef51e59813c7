// The response serializer: what leaves the service is exactly what the route's zod schema allows.
import { isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dataEnvelope, SubscriptionDetail } from '../../service/src/contract';
import { responseSerializerCompiler } from '../../service/src/http/response-serializer';
import { ACCOUNT_ID, createWebhook, type Harness, startHarness } from '../support/harness';

const serializerFor = (schema: unknown) => responseSerializerCompiler({ schema, method: 'GET', url: '/x', httpStatus: '200' });

test('fields the schema does not name are dropped, and the rest is JSON', () => {
  const serialize = serializerFor(z.object({ id: z.string(), count: z.number() }));
  expect(serialize({ id: 'a', count: 2, sealed_secret: 'never shown' })).toBe('{"id":"a","count":2}');
});

test('a body that breaks its schema is not written: the serializer throws a response serialization error', () => {
  const serialize = serializerFor(z.object({ id: z.string() }));
  let thrown: unknown;
  try {
    serialize({ id: 7 });
  } catch (error) {
    thrown = error;
  }
  expect(isResponseSerializationError(thrown)).toBe(true);
});

test('a route whose response schema is not a zod schema is refused when the route is compiled', () => {
  expect(() => serializerFor({ type: 'object' })).toThrow('not a zod schema');
});

describe('through the app', () => {
  let h: Harness;
  beforeEach(async () => (h = await startHarness()));
  afterEach(() => h.close());

  test('GET one webhook writes the bytes of its schema-checked body', async () => {
    const hook = await createWebhook(h, { client_url: 'http://127.0.0.1:9/hook' });
    const response = await h.call('GET', `/api/v3/accounts/${ACCOUNT_ID}/webhooks/subscription/${hook.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(JSON.stringify(dataEnvelope(SubscriptionDetail).parse(response.json())));
    expect(response.body).not.toContain('secret');
  });
});
