// The rate windows and the windows of failed sign-ins of one process on a SQLite file: one process owns the file
// (service-lock.ts), so the windows several PostgreSQL instances share in the database are this process's own, in
// its memory. The limiter and the throttle above them are the same on either backend.
import type { Millis } from '../../core/time';
import type { RateWindowsStore, SharedRateWindow, SignInWindowsStore } from '../store';

/**
 * Client addresses whose windows are kept at once; past it the one updated longest ago is forgotten (not the whole
 * table, which a spray from many addresses could use to lift every block).
 */
const CLIENT_WINDOWS_KEPT = 10_000;

export function createInProcessRateWindows(): RateWindowsStore {
  // Per budget, by account id: every API request updates one, and a number key costs no string to build and hash.
  const budgets = new Map<string, Map<number, SharedRateWindow>>();
  return {
    update: async (accountId, budget, decide) => {
      let windows = budgets.get(budget);
      if (windows === undefined) budgets.set(budget, (windows = new Map()));
      const { window, answer } = decide(windows.get(accountId));
      windows.set(accountId, window);
      return answer;
    },
  };
}

export function createInProcessSignInWindows(): SignInWindowsStore {
  // A Map iterates in insertion order: set after delete moves a key to the end, so the first is the oldest.
  const windows = new Map<string, SharedRateWindow>();
  const listeners: Array<(clientKey: string, blockedUntilMs: Millis) => void> = [];
  return {
    update: async (clientKey, decide) => {
      const before = windows.get(clientKey);
      const { window, answer } = decide(before);
      windows.delete(clientKey);
      if (windows.size >= CLIENT_WINDOWS_KEPT) windows.delete(windows.keys().next().value!);
      windows.set(clientKey, window);
      if (window.blockedUntilMs !== null && window.blockedUntilMs !== before?.blockedUntilMs)
        for (const listener of listeners) listener(clientKey, window.blockedUntilMs);
      return answer;
    },
    onBlocked(listener) {
      listeners.push(listener);
      for (const [clientKey, { blockedUntilMs }] of windows)
        if (blockedUntilMs !== null) listener(clientKey, blockedUntilMs);
    },
    forgetEnded: async (nowMs, windowMs) => {
      for (const [clientKey, { windowStartMs, blockedUntilMs }] of windows)
        if (windowStartMs <= nowMs - windowMs && (blockedUntilMs === null || blockedUntilMs <= nowMs))
          windows.delete(clientKey);
    },
  };
}
