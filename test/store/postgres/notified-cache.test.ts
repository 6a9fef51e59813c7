// The time bound of the caches kept beside PostgreSQL: no row answers longer than CACHE_TTL_MS without a new
// read, even when no notification ever comes (a LISTEN connection that looks alive but hears nothing).
import { CACHE_TTL_MS, NotifiedCache, type Notifications } from '../../../service/src/store/postgres/notifications';

const silentButConnected: Notifications = {
  onInvalidate: () => undefined,
  onDue: () => undefined,
  onSignInBlocked: () => undefined,
  connected: () => true,
  listenerPid: () => null,
  epoch: () => 0,
  close: async () => undefined,
};

test('a kept row is read again once it is CACHE_TTL_MS old, though nothing was heard', async () => {
  let now = 0;
  const cache = new NotifiedCache<string, string>(silentButConnected, 10, () => now);
  let reads = 0;
  const read = async () => `value ${(reads += 1)}`;
  expect(await cache.get('k', read)).toBe('value 1');
  now = CACHE_TTL_MS - 1;
  expect(await cache.get('k', read)).toBe('value 1');
  now = CACHE_TTL_MS;
  expect(await cache.get('k', read)).toBe('value 2');
  expect(reads).toBe(2);
});
