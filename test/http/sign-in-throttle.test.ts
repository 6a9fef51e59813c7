// Failed sign-ins are throttled per client address: past the limit in a minute, that address gets 429 with
// Retry-After (even with a good token) until the minute ends; other addresses are not affected; behind a
// trusted proxy, the address is the one X-Forwarded-For gives.
import { clientKeyOf, createSignInThrottle } from '../../service/src/accounts/sign-in-throttle';
import { createManualClock } from '../../service/src/core/clock';
import { ADMIN_TOKEN, type Harness, startHarness, webhooksPath } from '../support/harness';

const clock = createManualClock();
let h: Harness;
afterEach(async () => {
  await h?.close();
});

const list = (token: string, remoteAddress = '198.51.100.20', headers: Record<string, string> = {}) =>
  h.service.app.inject({
    method: 'GET',
    url: webhooksPath(),
    remoteAddress,
    headers: { authorization: `Token ${token}`, ...headers },
  });

test('past the limit of failed sign-ins an address waits for the minute, and other addresses do not', async () => {
  h = await startHarness({ clock, env: { JOBHOOKS_FAILED_SIGN_INS_PER_MINUTE: '3' } });
  for (let i = 0; i < 4; i += 1) expect((await list('wrong-token-guess')).statusCode).toBe(401);
  const throttled = await list(ADMIN_TOKEN);
  expect(throttled.statusCode).toBe(429);
  expect(throttled.json().status.user_message).toMatch(
    /^Too many failed sign-ins from this address: wait \d+ seconds before retrying\.$/,
  );
  expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
  expect(Number(throttled.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect((await list(ADMIN_TOKEN, '198.51.100.21')).statusCode).toBe(200);
  clock.advanceMillis(60_000);
  expect((await list(ADMIN_TOKEN)).statusCode).toBe(200);
});

test('good sign-ins do not count', async () => {
  h = await startHarness({ clock, env: { JOBHOOKS_FAILED_SIGN_INS_PER_MINUTE: '3' } });
  for (let i = 0; i < 10; i += 1) expect((await list(ADMIN_TOKEN)).statusCode).toBe(200);
});

test('behind a trusted proxy the client address comes from X-Forwarded-For; untrusted, the header is ignored', async () => {
  h = await startHarness({
    clock,
    env: { JOBHOOKS_FAILED_SIGN_INS_PER_MINUTE: '2', JOBHOOKS_TRUST_PROXY: '10.0.0.5' },
  });
  const viaProxy = (token: string, client: string) => list(token, '10.0.0.5', { 'x-forwarded-for': client });
  for (let i = 0; i < 3; i += 1) await viaProxy('wrong', '203.0.113.1');
  expect((await viaProxy(ADMIN_TOKEN, '203.0.113.1')).statusCode).toBe(429);
  expect((await viaProxy(ADMIN_TOKEN, '203.0.113.2')).statusCode).toBe(200);
  // The same header from an address that is not the proxy does not choose whose count is used.
  for (let i = 0; i < 3; i += 1) await list('wrong', '198.51.100.30', { 'x-forwarded-for': '203.0.113.3' });
  expect((await list(ADMIN_TOKEN, '198.51.100.30')).statusCode).toBe(429);
  expect((await viaProxy(ADMIN_TOKEN, '203.0.113.3')).statusCode).toBe(200);
});

describe('the throttle itself', () => {
  test('counts an IPv6 client by its /64, an IPv4 client (or an IPv4-mapped one) by its address', () => {
    expect(clientKeyOf('2001:db8:1:2:aaaa::1')).toBe(clientKeyOf('2001:db8:1:2:bbbb::2'));
    expect(clientKeyOf('2001:db8:1:3::1')).not.toBe(clientKeyOf('2001:db8:1:2::1'));
    expect(clientKeyOf('::ffff:198.51.100.7')).toBe('198.51.100.7');
  });

  test('a spray of new addresses cannot lift the block of a client that keeps trying', () => {
    const throttle = createSignInThrottle(clock, 1);
    for (let i = 0; i < 2; i += 1) throttle.failed('198.51.100.99');
    expect(throttle.waitFor('198.51.100.99')).not.toBeNull();
    // More new addresses than the table holds, while the blocked client keeps knocking.
    for (let i = 0; i < 12_000; i += 1) {
      throttle.failed(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      if (i % 100 === 0) expect(throttle.waitFor('198.51.100.99')).not.toBeNull();
    }
    expect(throttle.waitFor('198.51.100.99')).not.toBeNull();
  });
});
