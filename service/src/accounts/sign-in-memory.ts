// Failed sign-ins (a missing or wrong token) counted per client address, in this process's memory: what the
// sign-in throttle (sign-in-throttle.ts) falls back on when its store cannot take the count (a spray from many
// addresses, a database that fails), and the parts both count with: whom a failure is counted against, the budget,
// and a bounded table of recent clients.
import type { Millis, Seconds } from '../core/time';
import ipaddr from 'ipaddr.js';
import { BoundedMap } from '../core/bounded-map';
import { type Clock, nowMillis } from '../core/clock';
import { admitRequest, type RateBudget, type RateState } from './rate-limit-policy';

/**
 * Addresses remembered at once. Past it the least recently seen is forgotten, one at a time (not the whole
 * table, which a spray from many addresses could use to lift every block, its own included).
 */
const MAX_ADDRESSES = 10_000;

/**
 * Addresses whose client key was worked out lately: every authenticated request asks for its address's key (is it
 * blocked?), so an address is parsed once, not once per request. Past the limit the map starts over.
 */
const keysOfAddresses = new BoundedMap<string, string>(MAX_ADDRESSES);

/** Whom a failure is counted against: an IPv4 address, or an IPv6 /64 (one host usually holds a whole /64). */
export function clientKeyOf(address: string): string {
  let key = keysOfAddresses.get(address);
  if (key === undefined) {
    key = parsedClientKey(address);
    keysOfAddresses.set(address, key);
  }
  return key;
}

function parsedClientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

/** The sign-in budget: `failuresPerMinute`, then blocked until the minute ends. */
export const signInBudget = (failuresPerMinute: number): RateBudget => ({
  limitPerMinute: failuresPerMinute,
  cooldownMs: 0,
});

export interface SignInThrottle {
  /** Seconds this address must wait before it may sign in again, or null when it may now. */
  waitFor(address: string): number | null;
  /** Counts a failed sign-in from this address; resolves once counted (never rejects). */
  failed(address: string): Promise<void>;
}

/** Something kept per client key, for at most MAX_ADDRESSES keys: the least recently seen is forgotten first. */
export class RecentClients<V> {
  // A Map iterates in insertion order: deleting and setting again moves a key to the end, so the first key is
  // the one seen longest ago.
  private readonly entries = new Map<string, V>();

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** Keeps `value` for `key` and marks it seen now. */
  seen(key: string, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ADDRESSES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, value);
  }

  /** Seconds `key` must still wait by the block its value holds, or null when it may sign in now. */
  waitFor(key: string, nowMs: Millis, blockedUntilOf: (value: V) => number | null): number | null {
    const value = this.entries.get(key);
    const wait = value === undefined ? null : secondsBlocked(blockedUntilOf(value), nowMs);
    // A blocked client that keeps trying stays at the young end: a spray evicts idle entries first.
    if (wait !== null) this.seen(key, value!);
    return wait;
  }
}

/** Seconds until `blockedUntilMs`, or null when that is not after `nowMs`. */
export function secondsBlocked(blockedUntilMs: Millis | null, nowMs: Millis): number | null {
  return blockedUntilMs === null || nowMs >= blockedUntilMs ? null : Math.ceil((blockedUntilMs - nowMs) / 1000);
}

export function createInMemorySignInThrottle(clock: Clock, failuresPerMinute: number): SignInThrottle {
  const budget = signInBudget(failuresPerMinute);
  const states = new RecentClients<RateState>();
  return {
    waitFor: (address) => states.waitFor(clientKeyOf(address), nowMillis(clock), (state) => state.blockedUntilMs),
    async failed(address) {
      const key = clientKeyOf(address);
      states.seen(key, admitRequest(states.get(key), nowMillis(clock), budget).state);
    },
  };
}
