// Failed sign-ins (a missing or wrong token) counted per client address: past the limit in a minute, that
// address may not try again until the minute ends, so a token cannot be guessed at thousands a second. The
// counting is the rate-limit policy's, with no cooldown beyond the window.
import ipaddr from 'ipaddr.js';
import { type Clock, nowMillis } from '../core/clock';
import { admitRequest, type RateState } from './rate-limit-policy';

/**
 * Addresses remembered at once. Past it the least recently seen is forgotten, one at a time (not the whole
 * table, which a spray from many addresses could use to lift every block, its own included).
 */
const MAX_ADDRESSES = 10_000;

/** Whom a failure is counted against: an IPv4 address, or an IPv6 /64 (one host usually holds a whole /64). */
export function clientKeyOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

export interface SignInThrottle {
  /** Seconds this address must wait before it may sign in again, or null when it may now. */
  waitFor(address: string): number | null;
  /** Counts a failed sign-in from this address. */
  failed(address: string): void;
}

export function createSignInThrottle(clock: Clock, failuresPerMinute: number): SignInThrottle {
  // A Map iterates in insertion order: deleting and setting again moves a key to the end, so the first key is
  // the one whose failure is oldest.
  const states = new Map<string, RateState>();
  return {
    waitFor(address) {
      const key = clientKeyOf(address);
      const state = states.get(key);
      const now = nowMillis(clock);
      if (state?.blockedUntilMs == null || now >= state.blockedUntilMs) return null;
      // A blocked client that keeps trying stays at the young end: a spray evicts idle entries first.
      states.delete(key);
      states.set(key, state);
      return Math.ceil((state.blockedUntilMs - now) / 1000);
    },
    failed(address) {
      const key = clientKeyOf(address);
      const next = admitRequest(states.get(key), nowMillis(clock), {
        limitPerMinute: failuresPerMinute,
        cooldownMs: 0,
      }).state;
      states.delete(key);
      if (states.size >= MAX_ADDRESSES) states.delete(states.keys().next().value as string);
      states.set(key, next);
    },
  };
}
