// Failed sign-ins (a missing or wrong token) counted per client address: past the limit in a minute, that
// address may not try again until the minute ends, so a token cannot be guessed at thousands a second. The
// counting is the rate-limit policy's, with no cooldown beyond the window.
import { BoundedMap } from '../core/bounded-map';
import type { Clock } from '../core/clock';
import { admitRequest, type RateState } from './rate-limit-policy';

/** Addresses remembered at once; a spray from more addresses than this forgets the oldest first. */
const MAX_ADDRESSES = 10_000;

export interface SignInThrottle {
  /** Seconds this address must wait before it may sign in again, or null when it may now. */
  waitFor(address: string): number | null;
  /** Counts a failed sign-in from this address. */
  failed(address: string): void;
}

export function createSignInThrottle(clock: Clock, failuresPerMinute: number): SignInThrottle {
  const states = new BoundedMap<string, RateState>(MAX_ADDRESSES);
  const nowMs = () => Number(clock.nowNanos() / 1_000_000n);
  return {
    waitFor(address) {
      const blockedUntil = states.get(address)?.blockedUntilMs ?? null;
      const now = nowMs();
      return blockedUntil !== null && now < blockedUntil ? Math.ceil((blockedUntil - now) / 1000) : null;
    },
    failed(address) {
      states.set(address, admitRequest(states.get(address), nowMs(), { limitPerMinute: failuresPerMinute, cooldownMs: 0 }).state);
    },
  };
}
