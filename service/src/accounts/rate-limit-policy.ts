// The per-account rate limits as pure functions: a per-minute window per budget, with the management API's
// five-minute cooldown. Management requests and ingested events have separate budgets, so a flood of one
// never locks out the other.
import type { Millis, Seconds } from '../core/time';

export const RATE_WINDOW_MS: Millis = 60_000;
/** Once the management limit is exceeded, every management request of the account is refused for five minutes. */
export const RATE_COOLDOWN_MS: Millis = 5 * 60_000;

/** Which budget a request spends: the job scheduler's events, or everything else of the API. */
export type RateBudgetName = 'management' | 'ingestion';

export interface RateBudget {
  limitPerMinute: number;
  /** How long the account is refused after going over; 0 means until its window ends. */
  cooldownMs: Millis;
}

export interface RateState {
  windowStartMs: Millis;
  count: number;
  blockedUntilMs: Millis | null;
}

export type RateDecision =
  | { allowed: true; remaining: number; state: RateState }
  | { allowed: false; retryAfterSeconds: Seconds; state: RateState };

export function admitRequest(previous: RateState | undefined, nowMs: Millis, budget: RateBudget): RateDecision {
  if (previous?.blockedUntilMs != null && nowMs < previous.blockedUntilMs) {
    return { allowed: false, retryAfterSeconds: Math.ceil((previous.blockedUntilMs - nowMs) / 1000), state: previous };
  }
  const windowOpen =
    previous !== undefined && previous.blockedUntilMs === null && nowMs - previous.windowStartMs < RATE_WINDOW_MS;
  const state: RateState = windowOpen
    ? { windowStartMs: previous.windowStartMs, count: previous.count + 1, blockedUntilMs: null }
    : { windowStartMs: nowMs, count: 1, blockedUntilMs: null };
  if (state.count > budget.limitPerMinute) {
    const blockedUntilMs = budget.cooldownMs > 0 ? nowMs + budget.cooldownMs : state.windowStartMs + RATE_WINDOW_MS;
    return {
      allowed: false,
      retryAfterSeconds: Math.ceil((blockedUntilMs - nowMs) / 1000),
      state: { ...state, blockedUntilMs },
    };
  }
  return { allowed: true, remaining: budget.limitPerMinute - state.count, state };
}

/** Takes back one admitted request (the server failed it), if its window is still the current one. */
export function refundRequest(state: RateState | undefined, admittedInWindowStartMs: Millis): RateState | undefined {
  if (state === undefined || state.windowStartMs !== admittedInWindowStartMs || state.blockedUntilMs !== null)
    return state;
  return { ...state, count: Math.max(0, state.count - 1) };
}

/** What an admitted request needs to be refunded later. */
export interface Admission {
  accountId: number;
  budget: RateBudgetName;
  windowStartMs: Millis;
}

export type Admitted = RateDecision & { admission: Admission };

export interface RateLimiter {
  admit(accountId: number, budget: RateBudgetName): Promise<Admitted>;
  /** A request the server answered with a 5xx does not count against the account. */
  refund(admission: Admission): void;
}

/**
 * Every API request is admitted, so the answer is built field by field rather than spread from `decision`, whose
 * union has two shapes (docs/performance.md#measurements-behind-choices-in-the-code).
 */
export function admittedAs(accountId: number, budget: RateBudgetName, decision: RateDecision): Admitted {
  const admission: Admission = { accountId, budget, windowStartMs: decision.state.windowStartMs };
  return decision.allowed
    ? { allowed: true, remaining: decision.remaining, state: decision.state, admission }
    : { allowed: false, retryAfterSeconds: decision.retryAfterSeconds, state: decision.state, admission };
}

/** Admits `count` requests in arrival order against the window `current`, one after the other. */
export function admitInOrder(
  current: RateState | undefined,
  count: number,
  nowMs: Millis,
  budget: RateBudget,
): { window: RateState; answer: RateDecision[] } {
  const decisions: RateDecision[] = [];
  let state = current;
  for (let i = 0; i < count; i += 1) {
    const decision = admitRequest(state, nowMs, budget);
    decisions.push(decision);
    state = decision.state;
  }
  return { window: state ?? { windowStartMs: 0, count: 0, blockedUntilMs: null }, answer: decisions };
}
