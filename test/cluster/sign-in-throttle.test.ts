// Failed sign-ins of one client address counted over the whole cluster: failures on either of two instances
// add up to one limit, a block one instance begins is kept by the other without a failure there, and an
// instance that missed the announcement (not listening, started later, its LISTEN connection lost) still keeps
// the block; what unauthenticated clients may cost the database is bounded, and a spray's overflow or a failing
// database is counted in memory instead. The instances' clocks are one manual clock.
import pg from 'pg';
import { createSignInThrottle, MAX_COUNTING, MAX_WAITING } from '../../service/src/accounts/sign-in-throttle';
import type { SignInThrottle } from '../../service/src/accounts/sign-in-throttle';
import { createManualClock } from '../../service/src/core/clock';
import type { Store } from '../../service/src/store/store';
import { openTestStore, type TestStore } from '../support/stores';
import { waitFor } from '../support/wait';

const LIMIT = 3;
const GUESSER = '203.0.113.9';
const OTHER = '203.0.113.10';

let opened: TestStore[] = [];
let a: Store;
let b: Store;
const clock = createManualClock();
const countingErrors: unknown[] = [];
beforeEach(async () => {
  const first = await openTestStore('postgres');
  const second = await openTestStore('postgres', first.location);
  opened = [first, second];
  [a, b] = [first.store, second.store];
  countingErrors.length = 0;
});
afterEach(async () => {
  await Promise.all(opened.map((o) => o.close()));
  expect(countingErrors).toEqual([]);
});

async function adminSql<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const admin = new pg.Client({ connectionString: opened[0]!.location });
  await admin.connect();
  try {
    return (await admin.query<R>(text, values)).rows;
  } finally {
    await admin.end();
  }
}

const throttleOn = (store: Store, windows = store.signInWindows) =>
  createSignInThrottle(windows, clock, LIMIT, (error) => countingErrors.push(error));

async function failTimes(throttles: SignInThrottle[], times: number, address = GUESSER): Promise<void> {
  for (let i = 0; i < times; i += 1) await throttles[i % throttles.length]!.failed(address);
}

test('failures on two instances add up to one limit, and both refuse the address once it is over', async () => {
  const onA = throttleOn(a);
  const onB = throttleOn(b);
  await failTimes([onA, onB], LIMIT);
  expect(onA.waitFor(GUESSER)).toBeNull();
  expect(onB.waitFor(GUESSER)).toBeNull();
  // The fourth failure, on A: A knows at once, B from the announcement, with no failure of its own.
  await onA.failed(GUESSER);
  expect(onA.waitFor(GUESSER)).toBe(60);
  await waitFor(() => onB.waitFor(GUESSER) !== null, 'B to keep the block A began');
  expect(onB.waitFor(GUESSER)).toBe(60);
  expect(onA.waitFor(OTHER)).toBeNull();
  expect(onB.waitFor(OTHER)).toBeNull();
  clock.advanceMillis(60_000);
  expect(onA.waitFor(GUESSER)).toBeNull();
  expect(onB.waitFor(GUESSER)).toBeNull();
});

test('an instance that heard nothing learns the block at the first failure it sees from that address', async () => {
  const onA = throttleOn(a);
  const deaf = throttleOn(b, { ...b.signInWindows, onBlocked: () => undefined });
  await failTimes([onA], LIMIT + 1);
  expect(onA.waitFor(GUESSER)).not.toBeNull();
  expect(deaf.waitFor(GUESSER)).toBeNull();
  await deaf.failed(GUESSER);
  expect(deaf.waitFor(GUESSER)).toBe(60);
});

test('an instance started during a block keeps it from the database', async () => {
  // On record without an announcement, so only the read at the start can tell the new instance.
  const until = Number(clock.nowNanos() / 1_000_000n) + 30_000;
  await adminSql(
    `INSERT INTO sign_in_windows (client_key, window_start_ms, count, blocked_until_ms) VALUES ($1, $2, $3, $4)`,
    [GUESSER, until - 60_000, LIMIT + 1, until],
  );
  const startedLater = throttleOn(b);
  await waitFor(() => startedLater.waitFor(GUESSER) !== null, 'the late instance to read the block');
});

test('the failures of one turn from one address are counted together, as many as they were', async () => {
  const onA = throttleOn(a);
  await Promise.all(Array.from({ length: LIMIT }, () => onA.failed(GUESSER)));
  expect(onA.waitFor(GUESSER)).toBeNull();
  await Promise.all([onA.failed(GUESSER), onA.failed(OTHER)]);
  expect(onA.waitFor(GUESSER)).toBe(60);
  expect(onA.waitFor(OTHER)).toBeNull();
});

test('an instance whose LISTEN connection was lost reads the blocks again once it is back', async () => {
  const onA = throttleOn(a);
  const onB = throttleOn(b);
  const admin = new pg.Client({ connectionString: opened[0]!.location });
  await admin.connect();
  try {
    // Both instances' LISTEN connections go; the block begins before they are back (the first retry waits
    // at least 50 ms), so its announcement is never heard.
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'jobhooks-listen' AND datname = current_database()`,
    );
  } finally {
    await admin.end();
  }
  await waitFor(() => opened.every((o) => o.backgroundErrors.length > 0), 'both losses to be reported');
  await failTimes([onA], LIMIT + 1);
  await waitFor(() => onB.waitFor(GUESSER) !== null, 'B to keep the block after reconnecting');
  for (const o of opened) {
    expect(o.backgroundErrors.every((e) => e.includes('LISTEN'))).toBe(true);
    o.backgroundErrors.length = 0;
  }
});

test('windows that ended are deleted as failures come in, at most once a minute per instance', async () => {
  // The throttle does not wait for its deletions: the test waits for each one it starts.
  let deleting: Promise<void> = Promise.resolve();
  const onA = throttleOn(a, {
    ...a.signInWindows,
    forgetEnded: (nowMs, windowMs) => (deleting = a.signInWindows.forgetEnded(nowMs, windowMs)),
  });
  const windowsOnRecord = async () =>
    (await adminSql<{ client_key: string }>('SELECT client_key FROM sign_in_windows ORDER BY 1')).map(
      (row) => row.client_key,
    );
  const failAt = async (second: number, address: string) => {
    clock.set(start + BigInt(second) * 1_000_000_000n);
    await onA.failed(address);
    await deleting;
  };
  const start = clock.nowNanos();
  await failAt(0, '198.51.100.1');
  await failAt(30, '198.51.100.2');
  await failAt(61, '198.51.100.3');
  // 61 s after the last deletion: .1's window (from 0 s) has ended and goes; .2's (from 30 s) has not.
  expect(await windowsOnRecord()).toEqual(['198.51.100.2', '198.51.100.3']);
  await failAt(95, '198.51.100.4');
  // .2's window ended at 90 s, but the last deletion was 34 s ago: it waits for the next one.
  expect(await windowsOnRecord()).toEqual(['198.51.100.2', '198.51.100.3', '198.51.100.4']);
  await failAt(121, '198.51.100.5');
  expect(await windowsOnRecord()).toEqual(['198.51.100.4', '198.51.100.5']);
});

test('past MAX_WAITING addresses waiting for the database, failures are counted in memory', async () => {
  const onA = throttleOn(a);
  const holder = new pg.Client({ connectionString: opened[0]!.location });
  await holder.connect();
  const pending: Array<Promise<void>> = [];
  try {
    // Every counting transaction now waits: MAX_COUNTING run, MAX_WAITING addresses wait for them.
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE sign_in_windows IN ACCESS EXCLUSIVE MODE');
    for (let i = 0; i < MAX_COUNTING + MAX_WAITING; i += 1) pending.push(onA.failed(`10.9.${i >> 8}.${i & 255}`));
    // One more address is not queued behind them: its failures are counted, and it is blocked, at once.
    await failTimes([onA], LIMIT + 1);
    expect(onA.waitFor(GUESSER)).toBe(60);
    expect(onA.waitFor('10.9.0.1')).toBeNull();
  } finally {
    await holder.query('ROLLBACK');
    await holder.end();
  }
  await Promise.all(pending);
  const [row] = await adminSql<{ n: number }>('SELECT count(*)::int AS n FROM sign_in_windows');
  expect(row!.n).toBe(MAX_COUNTING + MAX_WAITING);
});

test('while the database fails, failures are counted in memory and the failure reported once a minute', async () => {
  const onB = throttleOn(b);
  await opened[1]!.close();
  await failTimes([onB], LIMIT + 1);
  expect(onB.waitFor(GUESSER)).toBe(60);
  expect(countingErrors).toHaveLength(1);
  clock.advanceMillis(60_000);
  await onB.failed(OTHER);
  expect(countingErrors).toHaveLength(2);
  countingErrors.length = 0;
  opened[1]!.backgroundErrors.length = 0;
});
