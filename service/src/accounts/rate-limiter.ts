// The per-account rate limits, counted in each account's window where the store keeps it: in the database for
// several instances on PostgreSQL, so the limit and its cooldown hold whichever instance a request reaches, or in
// the memory of the one process on a SQLite file. The rule itself is admitRequest (rate-limit-policy.ts).
import { type Clock, nowMillis } from '../core/clock';
import type { RateWindowsStore } from '../store/store';
import {
  type Admission,
  type Admitted,
  admittedAs,
  admitRequest,
  type RateBudget,
  type RateBudgetName,
  type RateLimiter,
  type RateState,
  refundRequest,
} from './rate-limit-policy';

/** A window nobody has: it started at the epoch, so the next admission opens a new one. */
const NO_WINDOW: RateState = { windowStartMs: 0, count: 0, blockedUntilMs: null };

export function createRateLimiter(
  windows: RateWindowsStore,
  clock: Clock,
  budgets: Readonly<Record<RateBudgetName, RateBudget>>,
  onRefundFailed: (error: unknown) => void,
): RateLimiter {
  return {
    // Exact, not reserved in chunks per instance: a chunk left unspent on one instance would refuse an account on
    // another before it reached its limit. The store makes that affordable: PostgreSQL counts the requests of one
    // moment together.
    admit: (accountId, budget) =>
      windows.update(accountId, budget, (current) => {
        const decision = admitRequest(current, nowMillis(clock), budgets[budget]);
        return { window: decision.state, answer: admittedAs(accountId, budget, decision) };
      }),
    refund({ accountId, budget, windowStartMs }: Admission) {
      windows
        .update(accountId, budget, (current) => ({
          window: refundRequest(current, windowStartMs) ?? NO_WINDOW,
          answer: undefined,
        }))
        .catch(onRefundFailed);
    },
  };
}
