// The sign-in throttle of several instances on one database: every failed sign-in is counted in the client's
// shared window (SignInWindowsStore), so an address gets its failures a minute over the whole cluster, not per
// instance. Refusing a blocked address stays a lookup in this process's memory, so good sign-ins cost the
// database nothing: the instance that begins a block announces it and every instance keeps it, and one that
// missed the announcement learns the block from the database at that address's next failure there.
import { type Clock, nowMillis } from '../core/clock';
import { createTurnBatch } from '../core/turn-batch';
import type { SignInWindowsStore } from '../store/store';
import { RATE_WINDOW_MS } from './rate-limit-policy';
import { admitInOrder } from './shared-rate-limiter';
import { clientKeyOf, RecentClients, secondsBlocked, signInBudget, type SignInThrottle } from './sign-in-throttle';

export function createSharedSignInThrottle(
  windows: SignInWindowsStore,
  clock: Clock,
  failuresPerMinute: number,
  /** A failure that could not be counted (the database is down): reported; the request is still refused. */
  onError: (error: unknown) => void,
): SignInThrottle {
  const budget = signInBudget(failuresPerMinute);
  /** When each client key known to be blocked may sign in again. */
  const blocks = new RecentClients<number>();
  let forgottenAtMs = Number.NEGATIVE_INFINITY;

  function heard(clientKey: string, blockedUntilMs: number): void {
    if (secondsBlocked(blockedUntilMs, nowMillis(clock)) !== null) blocks.seen(clientKey, blockedUntilMs);
  }
  windows.onBlocked(heard);

  /** Counts `failures` of one client key in one transaction, as if they had come one after the other. */
  async function count(clientKey: string, failures: number): Promise<void> {
    try {
      const window = await windows.update(clientKey, (current) => {
        const { window: next } = admitInOrder(current, failures, nowMillis(clock), budget);
        return { window: next, answer: next };
      });
      if (window.blockedUntilMs !== null) heard(clientKey, window.blockedUntilMs);
    } catch (error) {
      onError(error);
    }
  }

  /** Ended windows are deleted at most once a window, by the instance that counts a failure then. */
  async function forgetEnded(): Promise<void> {
    const nowMs = nowMillis(clock);
    if (nowMs - forgottenAtMs < RATE_WINDOW_MS) return;
    forgottenAtMs = nowMs;
    await windows.forgetEnded(nowMs, RATE_WINDOW_MS).catch(onError);
  }

  // The failures of one turn from one address share a transaction: a burst of guesses costs one row lock.
  const queued = createTurnBatch<string>(async (clientKeys) => {
    const failures = new Map<string, number>();
    for (const clientKey of clientKeys) failures.set(clientKey, (failures.get(clientKey) ?? 0) + 1);
    await Promise.all([...failures].map(([clientKey, n]) => count(clientKey, n)));
    await forgetEnded();
  });

  return {
    waitFor(address) {
      const clientKey = clientKeyOf(address);
      const blockedUntilMs = blocks.get(clientKey);
      const wait = secondsBlocked(blockedUntilMs, nowMillis(clock));
      // A blocked client that keeps trying stays at the young end: a spray evicts idle entries first.
      if (wait !== null) blocks.seen(clientKey, blockedUntilMs!);
      return wait;
    },
    async failed(address) {
      queued.add(clientKeyOf(address));
      await queued.flushed();
    },
  };
}
