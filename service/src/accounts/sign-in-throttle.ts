// The sign-in throttle: every failed sign-in (a missing or wrong token) is counted in the client's window where the
// store keeps it (SignInWindowsStore: the database for several instances, so an address gets its failures a minute
// over the whole cluster, not per instance; the memory of the one process on a SQLite file). Past the limit the
// address may not try again until the minute ends, so a token cannot be guessed at thousands a second.
//
// Refusing a blocked address stays a lookup in this process's memory, so good sign-ins cost the database nothing:
// the instance that begins a block announces it and every instance keeps it, and one that missed the announcement
// learns the block from the database at that address's next failure there.
//
// Failed sign-ins come from clients nobody has authenticated, so what they may cost the database is bounded: at
// most MAX_COUNTING transactions at once, the failures of an address that come meanwhile counted together in
// its next one, and past MAX_WAITING addresses (a spray from many) or while the database fails, failures are
// counted in this process's memory instead (sign-in-memory.ts).
import type { Millis } from '../core/time';
import { type Clock, nowMillis } from '../core/clock';
import type { SignInWindowsStore } from '../store/store';
import { admitInOrder, RATE_WINDOW_MS } from './rate-limit-policy';
import {
  clientKeyOf,
  createInMemorySignInThrottle,
  RecentClients,
  secondsBlocked,
  signInBudget,
  type SignInThrottle,
} from './sign-in-memory';

export type { SignInThrottle };

/** Counting transactions one instance runs at once: a few connections of its pool, never all of them. */
export const MAX_COUNTING = 2;
/** Addresses whose failures may wait for a counting transaction; past it they are counted in memory. */
export const MAX_WAITING = 1_000;
/** A database that keeps failing is reported once a minute, not once a failed sign-in. */
const ERROR_REPORT_INTERVAL_MS = 60_000;

interface Waiting {
  failures: number;
  counted: Array<() => void>;
}

export function createSignInThrottle(
  windows: SignInWindowsStore,
  clock: Clock,
  failuresPerMinute: number,
  /** Failures that could not be counted in the database (counted in memory instead), at most once a minute. */
  onError: (error: unknown) => void,
): SignInThrottle {
  const budget = signInBudget(failuresPerMinute);
  /** When each client key known to be blocked may sign in again. */
  const blocks = new RecentClients<number>();
  /** What could not go to the database: a spray's overflow, or failures while it failed. */
  const inMemory = createInMemorySignInThrottle(clock, failuresPerMinute);
  const waiting = new Map<string, Waiting>();
  /** Client keys with a counting transaction under way: their new failures wait for the next one. */
  const counting = new Set<string>();
  let forgottenAtMs = Number.NEGATIVE_INFINITY;
  let reportedAtMs = Number.NEGATIVE_INFINITY;

  function heard(clientKey: string, blockedUntilMs: Millis): void {
    if (secondsBlocked(blockedUntilMs, nowMillis(clock)) !== null) blocks.seen(clientKey, blockedUntilMs);
  }
  windows.onBlocked(heard);

  function report(error: unknown): void {
    const nowMs = nowMillis(clock);
    if (nowMs - reportedAtMs < ERROR_REPORT_INTERVAL_MS) return;
    reportedAtMs = nowMs;
    onError(error);
  }

  /** Counts `failures` of one client key in one transaction, as if they had come one after the other. */
  async function count(clientKey: string, failures: number): Promise<void> {
    try {
      const window = await windows.update(clientKey, (current) => {
        const { window: next } = admitInOrder(current, failures, nowMillis(clock), budget);
        return { window: next, answer: next };
      });
      if (window.blockedUntilMs !== null) heard(clientKey, window.blockedUntilMs);
    } catch (error) {
      report(error);
      for (let i = 0; i < failures; i += 1) await inMemory.failed(clientKey);
    }
  }

  /** Each instance deletes the ended windows at most once a window, when it counts a failure; nobody waits for it. */
  function forgetEnded(): void {
    const nowMs = nowMillis(clock);
    if (nowMs - forgottenAtMs < RATE_WINDOW_MS) return;
    forgottenAtMs = nowMs;
    windows.forgetEnded(nowMs, RATE_WINDOW_MS).catch(report);
  }

  /** Starts counting the longest-waiting addresses while there is room, one transaction per address at a time. */
  function pump(): void {
    for (const [clientKey, entry] of waiting) {
      if (counting.size >= MAX_COUNTING) return;
      if (counting.has(clientKey)) continue;
      waiting.delete(clientKey);
      counting.add(clientKey);
      void count(clientKey, entry.failures).then(() => {
        counting.delete(clientKey);
        for (const done of entry.counted) done();
        forgetEnded();
        pump();
      });
    }
  }

  return {
    waitFor(address) {
      const clientKey = clientKeyOf(address);
      return blocks.waitFor(clientKey, nowMillis(clock), (until) => until) ?? inMemory.waitFor(clientKey);
    },
    failed(address) {
      const clientKey = clientKeyOf(address);
      let entry = waiting.get(clientKey);
      if (entry === undefined) {
        if (waiting.size >= MAX_WAITING) return inMemory.failed(clientKey);
        entry = { failures: 0, counted: [] };
        waiting.set(clientKey, entry);
      }
      entry.failures += 1;
      const counted = new Promise<void>((resolve) => entry.counted.push(resolve));
      pump();
      return counted;
    },
  };
}
