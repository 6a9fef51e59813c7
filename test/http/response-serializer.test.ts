// The response serializer: what leaves the service is exactly what the route's zod schema allows.
import { isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dataEnvelope, WebhookDetail } from '@jobhooks/client/contract';
import { frozenBody } from '../../service/src/http/frozen-body';
import { responseSerializerCompiler } from '../../service/src/http/response-serializer';
import { ACCOUNT_ID, createWebhook, type Harness, startHarness } from '../support/harness';
import { testBackend } from '../support/postgres';

const serializerFor = (schema: unknown) =>
  responseSerializerCompiler({ schema, method: 'GET', url: '/x', httpStatus: '200' });

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

/** A schema that counts how many times it checked a body. */
function countingSchema() {
  const counter = { checks: 0 };
  const schema = z.object({ id: z.string() }).superRefine(() => {
    counter.checks += 1;
  });
  return { schema, counter };
}

test('a frozen body is checked and stringified once, and the same JSON answers again', () => {
  const { schema, counter } = countingSchema();
  const serialize = serializerFor(schema);
  const body = frozenBody({ id: 'a', extra: 'dropped' });
  expect(serialize(body)).toBe('{"id":"a"}');
  expect(serialize(body)).toBe('{"id":"a"}');
  expect(counter.checks).toBe(1);
});

test('a body that is not a frozen body is checked every time, even when it is equal to one', () => {
  const { schema, counter } = countingSchema();
  const serialize = serializerFor(schema);
  serialize({ id: 'a' });
  serialize(Object.freeze({ id: 'a' }));
  serialize({ id: 'a' });
  expect(counter.checks).toBe(3);
});

test('a frozen body that breaks its schema is refused every time, never kept', () => {
  const serialize = serializerFor(z.object({ id: z.string() }));
  const body = frozenBody({ id: 7 });
  expect(() => serialize(body)).toThrow();
  expect(() => serialize(body)).toThrow();
});

test('each route keeps its own JSON: the same frozen body is checked again by another schema', () => {
  const body = frozenBody({ id: 'a', name: 'n' });
  expect(serializerFor(z.object({ id: z.string() }))(body)).toBe('{"id":"a"}');
  expect(serializerFor(z.object({ id: z.string(), name: z.string() }))(body)).toBe('{"id":"a","name":"n"}');
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
    expect(response.body).toBe(JSON.stringify(dataEnvelope(WebhookDetail).parse(response.json())));
    expect(response.body).not.toContain('secret');
  });

  // SQLite keeps webhooks in memory, so an unchanged one is the same frozen body each time; PostgreSQL reads it
  // from the database on every request (docs/decisions.md#21-several-instances-on-postgresql), a new body each time.
  const writesForTwoReads = testBackend() === 'sqlite' ? 1 : 2;

  test('GET of a webhook kept in memory stringifies its body once; after a change, the new state is written', async () => {
    const hook = await createWebhook(h, { client_url: 'http://127.0.0.1:9/hook' });
    const path = `/api/v3/accounts/${ACCOUNT_ID}/webhooks/subscription/${hook.id}`;
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      const envelopesWritten = () =>
        stringify.mock.calls.filter(([value]) => (value as { data?: { id?: unknown } } | null)?.data?.id === hook.id)
          .length;
      const first = await h.call('GET', path);
      const second = await h.call('GET', path);
      expect(second.body).toBe(first.body);
      expect(envelopesWritten()).toBe(writesForTwoReads);

      const update = { name: 'renamed', client_url: hook.client_url, event_types: hook.event_types };
      expect((await h.call('PUT', path, { body: update })).statusCode).toBe(200);
      const afterUpdate = envelopesWritten();
      const third = await h.call('GET', path);
      expect(third.json().data.name).toBe('renamed');
      expect(envelopesWritten()).toBe(afterUpdate + 1);
    } finally {
      stringify.mockRestore();
    }
  });
});
