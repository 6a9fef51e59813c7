// Failed sign-ins are throttled per client address: past the limit in a minute, that address gets 429 with
// Retry-After (even with a good token) until the minute ends; other addresses are not affected; behind a
// trusted proxy, the address is the one X-Forwarded-For gives. In the "postgres, two instances" project the
// requests alternate between two instances and the limit is still one limit: the address's failures on both
// add up, and both refuse it once it is over.
import { clientKeyOf, createInMemorySignInThrottle } from '../../service/src/accounts/sign-in-memory';
import { createManualClock } from '../../service/src/core/clock';
import type { Service } from '../../service/src/wiring';
import { ADMIN_TOKEN, type Harness, startHarness, webhooksPath } from '../support/harness';
import { waitFor } from '../support/wait';

const clock = createManualClock();
let h: Harness;
let sent = 0;
afterEach(async () => {
  await h?.close();
});

/** A request to the next service in turn, or to `via`. */
const list = (token: string, remoteAddress = '198.51.100.20', headers: Record<string, string> = {}, via?: Service) =>
  (via ?? h.services[sent++ % h.services.length]!).app.inject({
    method: 'GET',
    url: webhooksPath(),
    remoteAddress,
    headers: { authorization: `Token ${token}`, ...headers },
  });

/**
 * Each service's answer to a good token from `address`, once they agree on `status`: the instance that did not
 * count the failure that began a block keeps it when the announcement arrives, a few milliseconds later.
 */
async function everyServiceAnswers(status: number, address: string, headers: Record<string, string> = {}) {
  const answers = [];
  for (const service of h.services) {
    await waitFor(
      async () => (await list(ADMIN_TOKEN, address, headers, service)).statusCode === status,
      `every instance to answer ${status}`,
    );
    answers.push(await list(ADMIN_TOKEN, address, headers, service));
  }
  return answers;
}

test('past the limit of failed sign-ins an address waits for the minute, and other addresses do not', async () => {
  h = await startHarness({ clock, env: { JOBHOOKS_FAILED_SIGN_INS_PER_MINUTE: '3' } });
  for (let i = 0; i < 3; i += 1) expect((await list('wrong-token-guess')).statusCode).toBe(401);
  // Three failures, spread over the instances when there are two: still under the limit everywhere.
  for (const service of h.services) expect((await list(ADMIN_TOKEN, undefined, {}, service)).statusCode).toBe(200);
  expect((await list('wrong-token-guess')).statusCode).toBe(401);
  for (const throttled of await everyServiceAnswers(429, '198.51.100.20')) {
    expect(throttled.json().status.user_message).toMatch(
      /^Too many failed sign-ins from this address: wait \d+ seconds before retrying\.$/,
    );
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(throttled.headers['retry-after'])).toBeLessThanOrEqual(60);
  }
  await everyServiceAnswers(200, '198.51.100.21');
  clock.advanceMillis(60_000);
  await everyServiceAnswers(200, '198.51.100.20');
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
  await everyServiceAnswers(429, '10.0.0.5', { 'x-forwarded-for': '203.0.113.1' });
  await everyServiceAnswers(200, '10.0.0.5', { 'x-forwarded-for': '203.0.113.2' });
  // The same header from an address that is not the proxy does not choose whose count is used.
  for (let i = 0; i < 3; i += 1) await list('wrong', '198.51.100.30', { 'x-forwarded-for': '203.0.113.3' });
  await everyServiceAnswers(429, '198.51.100.30');
  await everyServiceAnswers(200, '10.0.0.5', { 'x-forwarded-for': '203.0.113.3' });
});

describe('the throttle itself', () => {
  test('counts an IPv6 client by its /64, an IPv4 client (or an IPv4-mapped one) by its address', () => {
    expect(clientKeyOf('2001:db8:1:2:aaaa::1')).toBe(clientKeyOf('2001:db8:1:2:bbbb::2'));
    expect(clientKeyOf('2001:db8:1:3::1')).not.toBe(clientKeyOf('2001:db8:1:2::1'));
    expect(clientKeyOf('::ffff:198.51.100.7')).toBe('198.51.100.7');
  });

  test('a spray of new addresses cannot lift the block of a client that keeps trying', async () => {
    const throttle = createInMemorySignInThrottle(clock, 1);
    for (let i = 0; i < 2; i += 1) await throttle.failed('198.51.100.99');
    expect(throttle.waitFor('198.51.100.99')).not.toBeNull();
    // More new addresses than the table holds, while the blocked client keeps knocking.
    for (let i = 0; i < 12_000; i += 1) {
      await throttle.failed(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      if (i % 100 === 0) expect(throttle.waitFor('198.51.100.99')).not.toBeNull();
    }
    expect(throttle.waitFor('198.51.100.99')).not.toBeNull();
  });
});
