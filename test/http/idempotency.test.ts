// A create carrying an Idempotency-Key returns the same webhook when repeated within 24 hours
// (docs/decisions.md#14-retried-creates).
import { createManualClock } from '../../service/src/core/clock';
import { type Harness, startHarness, webhooksPath, validCreateBody } from '../support/harness';

const clock = createManualClock();
let h: Harness;
beforeEach(async () => {
  h = await startHarness({ clock });
});
afterEach(async () => {
  await h.close();
});

const createWithKey = (key: string, body = validCreateBody()) =>
  h.call('POST', webhooksPath(), { body, headers: { 'idempotency-key': key } });
const countWebhooks = async () => (await h.call('GET', webhooksPath())).json().extra.pagination.total_count;

test('a repeated create with the same key returns the same webhook, secret included, and creates one', async () => {
  const first = await createWithKey('retry-1');
  clock.advanceMillis(60_000);
  const second = await createWithKey('retry-1');
  expect(first.statusCode).toBe(201);
  expect(second.statusCode).toBe(201);
  expect(second.headers['idempotent-replayed']).toBe('true');
  expect(second.json()).toEqual(first.json());
  expect(await countWebhooks()).toBe(1);
});

test('the same key with a different body is a 409 that creates nothing', async () => {
  await createWithKey('retry-2');
  const response = await createWithKey('retry-2', validCreateBody({ name: 'something else' }));
  expect(response.statusCode).toBe(409);
  expect(response.json().status.user_message).toMatch(/different request body/);
  expect(await countWebhooks()).toBe(1);
});

test('after 24 hours the key creates a new webhook', async () => {
  const first = await createWithKey('retry-3');
  clock.advanceMillis(24 * 3600_000 + 1);
  const second = await createWithKey('retry-3');
  expect(second.json().data.id).not.toBe(first.json().data.id);
  expect(await countWebhooks()).toBe(2);
});

test('different keys and no key each create their own webhook', async () => {
  await createWithKey('a');
  await createWithKey('b');
  await h.call('POST', webhooksPath(), { body: validCreateBody() });
  await h.call('POST', webhooksPath(), { body: validCreateBody() });
  expect(await countWebhooks()).toBe(4);
});

test('a replay after the webhook was deleted is a 409, not a silent re-create', async () => {
  const first = (await createWithKey('retry-4')).json().data;
  await h.call('DELETE', `/api/v3/accounts/1/webhooks/subscription/${first.id}`);
  const response = await createWithKey('retry-4');
  expect(response.statusCode).toBe(409);
  expect(await countWebhooks()).toBe(0);
});

test('keys are scoped to the account', async () => {
  const other = await h.token('Account Admin', 2);
  await createWithKey('shared');
  const response = await h.call('POST', webhooksPath(2), {
    token: other,
    body: validCreateBody(),
    headers: { 'idempotency-key': 'shared' },
  });
  expect(response.statusCode).toBe(201);
  expect(response.headers['idempotent-replayed']).toBeUndefined();
});

test('an over-long key is a 400 naming Idempotency-Key', async () => {
  const response = await createWithKey('k'.repeat(256));
  expect(response.statusCode).toBe(400);
  expect(response.json().extra.field_errors['Idempotency-Key']).toBeDefined();
  expect(await countWebhooks()).toBe(0);
});
