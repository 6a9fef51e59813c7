// The per-account administrative rate limit: 429 with Retry-After, then a five-minute cooldown (spec section 8).
import { createManualClock } from '../../service/src/core/clock';
import { ACCOUNT_ID, type Harness, startHarness, subscriptionsPath } from '../support/harness';

const clock = createManualClock();
let h: Harness;
beforeEach(async () => {
  h = await startHarness({ clock, env: { JOBHOOKS_RATE_LIMIT_PER_MINUTE: '5' } });
});
afterEach(async () => {
  await h.close();
});

const list = (token?: string) => h.call('GET', subscriptionsPath(), token === undefined ? {} : { token });

test('the request over the limit gets 429 with Retry-After: 300 in the envelope', async () => {
  for (let i = 0; i < 5; i += 1) expect((await list()).statusCode).toBe(200);
  const refused = await list();
  expect(refused.statusCode).toBe(429);
  expect(refused.headers['retry-after']).toBe('300');
  expect(refused.json()).toMatchObject({ data: null, status: { code: 429, is_success: false } });
});

test('every request of the account is refused until five minutes have passed, even in a new minute', async () => {
  for (let i = 0; i < 6; i += 1) await list();
  clock.advanceMillis(61_000);
  const stillRefused = await list();
  expect(stillRefused.statusCode).toBe(429);
  expect(stillRefused.headers['retry-after']).toBe('239');
  clock.advanceMillis(239_000);
  expect((await list()).statusCode).toBe(200);
});

test('the window resets each minute while under the limit', async () => {
  for (let i = 0; i < 5; i += 1) await list();
  clock.advanceMillis(60_000);
  for (let i = 0; i < 5; i += 1) expect((await list()).statusCode).toBe(200);
});

test('the limit is per account: another account is unaffected', async () => {
  const other = await h.token('Account Admin', ACCOUNT_ID + 1);
  for (let i = 0; i < 6; i += 1) await list();
  expect((await h.call('GET', subscriptionsPath(ACCOUNT_ID + 1), { token: other })).statusCode).toBe(200);
});

test('all tokens of one account share its limit', async () => {
  const second = await h.token('Read-Only');
  for (let i = 0; i < 5; i += 1) await list();
  expect((await list(second)).statusCode).toBe(429);
});

test('health checks and the OpenAPI document are not rate limited', async () => {
  for (let i = 0; i < 6; i += 1) await list();
  expect((await h.call('GET', '/healthz', { token: null })).statusCode).toBe(200);
  expect((await h.call('GET', '/api/openapi.json', { token: null })).statusCode).toBe(200);
});
