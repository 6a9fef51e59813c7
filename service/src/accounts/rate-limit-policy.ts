// The administrative API rate limit of spec section 8 as pure functions: a per-minute window and a 5-minute cooldown.
import type { Clock } from '../core/clock';

export const RATE_WINDOW_MS = 60_000;
/** Spec 8 rule 2: once the limit is exceeded, every request is refused for five minutes. */
export const RATE_COOLDOWN_MS = 5 * 60_000;

export interface RateState {
  windowStartMs: number;
  count: number;
  blockedUntilMs: number | null;
}

export type RateDecision =
  | { allowed: true; remaining: number; state: RateState }
  | { allowed: false; retryAfterSeconds: number; state: RateState };

export function admitRequest(previous: RateState | undefined, nowMs: number, limitPerMinute: number): RateDecision {
  if (previous?.blockedUntilMs != null && nowMs < previous.blockedUntilMs) {
    return { allowed: false, retryAfterSeconds: Math.ceil((previous.blockedUntilMs - nowMs) / 1000), state: previous };
  }
  const windowOpen = previous !== undefined && previous.blockedUntilMs === null && nowMs - previous.windowStartMs < RATE_WINDOW_MS;
  const state: RateState = windowOpen
    ? { ...previous, count: previous.count + 1 }
    : { windowStartMs: nowMs, count: 1, blockedUntilMs: null };
  if (state.count > limitPerMinute) {
    const blocked = { ...state, blockedUntilMs: nowMs + RATE_COOLDOWN_MS };
    return { allowed: false, retryAfterSeconds: RATE_COOLDOWN_MS / 1000, state: blocked };
  }
  return { allowed: true, remaining: limitPerMinute - state.count, state };
}

export interface RateLimiter {
  admit(accountId: number): RateDecision;
}

/**
 * Keeps each account's window in this process's memory. With several instances behind a load balancer
 * each enforces the limit on its own share of the traffic; the README says so. A shared store would
 * move this map into the database without changing admitRequest.
 */
export function createRateLimiter(clock: Clock, limitPerMinute: number): RateLimiter {
  const states = new Map<number, RateState>();
  return {
    admit(accountId) {
      const decision = admitRequest(states.get(accountId), Number(clock.nowNanos() / 1_000_000n), limitPerMinute);
      states.set(accountId, decision.state);
      return decision;
    },
  };
}
