// Store contract: the rate windows of accounts and the windows of failed sign-ins, kept by the store on either
// backend (PostgreSQL for every instance, SQLite's one process in its memory), so the rate limiter and the sign-in
// throttle above them are one code path.
import type { SharedRateWindow } from '../../../service/src/store/store';
import { accountWithWebhooks, useStore } from './fixtures';

const store = useStore();

beforeEach(async () => {
  await accountWithWebhooks(store(), 1, []);
});

const counted = (current: SharedRateWindow | undefined) => {
  const window = { windowStartMs: 1_000, count: (current?.count ?? 0) + 1, blockedUntilMs: null };
  return { window, answer: window.count };
};

test('updates of one window asked for at one moment are applied one after the other: none is lost', async () => {
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => store().rateWindows.update(1, 'management', counted)),
  );
  // Each saw the window the one before it wrote, in the order they were asked for.
  expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  expect(
    await store().rateWindows.update(1, 'management', (current) => ({ window: current!, answer: current })),
  ).toEqual({ windowStartMs: 1_000, count: 20, blockedUntilMs: null });
  // Another budget of the account is a window of its own.
  expect(await store().rateWindows.update(1, 'ingestion', counted)).toBe(1);
});

test('a sign-in window that begins a block is told to the listeners, as is every block on record to a new one', async () => {
  const heard: Array<[string, number]> = [];
  store().signInWindows.onBlocked((key, until) => heard.push([key, until]));
  const block = (until: number) => () => ({
    window: { windowStartMs: 1_000, count: 9, blockedUntilMs: until },
    answer: null,
  });
  await store().signInWindows.update('203.0.113.7', block(61_000));
  // The same block written again is no news.
  await store().signInWindows.update('203.0.113.7', block(61_000));
  await store().signInWindows.update('198.51.100.1', () => ({
    window: { windowStartMs: 1_000, count: 1, blockedUntilMs: null },
    answer: null,
  }));
  await waitForHearing(() => heard.length >= 1);
  expect(heard).toEqual([['203.0.113.7', 61_000]]);

  const later: Array<[string, number]> = [];
  store().signInWindows.onBlocked((key, until) => later.push([key, until]));
  await waitForHearing(() => later.length >= 1);
  expect(later).toEqual([['203.0.113.7', 61_000]]);
});

test('forgetEnded deletes the windows that ended, and keeps a block still in force', async () => {
  const windowOf = (key: string) =>
    store().signInWindows.update(key, (current) => ({
      window: current ?? { windowStartMs: 0, count: 0, blockedUntilMs: null },
      answer: current,
    }));
  await store().signInWindows.update('ended', () => ({
    window: { windowStartMs: 1_000, count: 3, blockedUntilMs: null },
    answer: null,
  }));
  await store().signInWindows.update('blocked', () => ({
    window: { windowStartMs: 1_000, count: 9, blockedUntilMs: 500_000 },
    answer: null,
  }));
  await store().signInWindows.forgetEnded(200_000, 60_000);
  expect(await windowOf('ended')).toBeUndefined();
  expect(await windowOf('blocked')).toEqual({ windowStartMs: 1_000, count: 9, blockedUntilMs: 500_000 });
});

/** PostgreSQL tells listeners after the commit, through its LISTEN connection: give that a moment. */
async function waitForHearing(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
}
