// The per-account rate limits of several instances on one database: every admission is counted in the
// account's shared window (RateWindowsStore), so the limit and its cooldown hold for the account whichever
// instance a request reaches. The rule itself is admitRequest, unchanged.
//
// Each admission is exact rather than reserved in chunks per instance: a chunk left unspent on one instance
// would refuse an account on another before it reached its limit. To keep that affordable, the admissions
// of one event-loop turn for one (account, budget) share one transaction.
import { type Clock, nowMillis } from '../core/clock';
import { createTurnBatch } from '../core/turn-batch';
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

interface Waiting {
  accountId: number;
  budget: RateBudgetName;
  resolve: (admitted: Admitted) => void;
  reject: (error: unknown) => void;
}

/** A window nobody has: it started at the epoch, so the next admission opens a new one. */
const NO_WINDOW: RateState = { windowStartMs: 0, count: 0, blockedUntilMs: null };

/** Admits the requests in arrival order against the window as it is in the database, one after the other. */
export function admitInOrder(
  current: RateState | undefined,
  count: number,
  nowMs: number,
  budget: RateBudget,
): { window: RateState; answer: ReturnType<typeof admitRequest>[] } {
  const decisions: ReturnType<typeof admitRequest>[] = [];
  let state = current;
  for (let i = 0; i < count; i += 1) {
    const decision = admitRequest(state, nowMs, budget);
    decisions.push(decision);
    state = decision.state;
  }
  return { window: state ?? NO_WINDOW, answer: decisions };
}

export function createSharedRateLimiter(
  windows: RateWindowsStore,
  clock: Clock,
  budgets: Readonly<Record<RateBudgetName, RateBudget>>,
  onRefundFailed: (error: unknown) => void,
): RateLimiter {
  async function admitGroup(group: Waiting[]): Promise<void> {
    const { accountId, budget } = group[0]!;
    try {
      const decisions = await windows.update(accountId, budget, (current) =>
        admitInOrder(current, group.length, nowMillis(clock), budgets[budget]),
      );
      group.forEach((waiting, i) => waiting.resolve(admittedAs(accountId, budget, decisions[i]!)));
    } catch (error) {
      for (const waiting of group) waiting.reject(error);
    }
  }

  const queued = createTurnBatch<Waiting>(async (items) => {
    const groups = new Map<string, Waiting[]>();
    for (const item of items) {
      const key = `${item.accountId}/${item.budget}`;
      const group = groups.get(key);
      if (group) group.push(item);
      else groups.set(key, [item]);
    }
    await Promise.all([...groups.values()].map(admitGroup));
  });

  return {
    admit: (accountId, budget) =>
      new Promise<Admitted>((resolve, reject) => queued.add({ accountId, budget, resolve, reject })),
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
