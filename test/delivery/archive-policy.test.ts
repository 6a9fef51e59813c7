// The archiving rules (docs/decisions.md#9-failed-deliveries-and-archiving), on a timeline of attempts (microseconds).
import type { AttemptFacts } from '../../service/src/domain/attempt';
import { type DispatchState, NEW_DISPATCH_STATE } from '../../service/src/domain/webhook';
import {
  ARCHIVE_AFTER_EXHAUSTED_DELIVERIES,
  ARCHIVE_REASONS,
  nextDispatchState,
} from '../../service/src/delivery/archive-policy';

const HOUR = 3600 * 1_000_000;
const DAY = 24 * HOUR;
const T0 = 1_800_000_000_000_000;

const fresh: DispatchState = NEW_DISPATCH_STATE;

const failed = (requestedAt: number, exhausted = true): AttemptFacts => ({
  requestedAt,
  statusCode: '500',
  verdict: 'failed',
  exhausted,
  manual: false,
});
const succeeded = (requestedAt: number): AttemptFacts => ({
  requestedAt,
  statusCode: '200',
  verdict: 'succeeded',
  exhausted: false,
  manual: false,
});

test('every attempt sets the status code and the dispatch time', () => {
  const state = nextDispatchState(fresh, { ...failed(T0, false), statusCode: '599' });
  expect(state).toMatchObject({
    httpStatusCode: '599',
    dispatchedAt: T0,
    failingSince: T0,
    lastFailureAt: T0,
    consecutiveFailures: 0,
  });
});

test('only an exhausted delivery counts as a failed delivery', () => {
  let state = nextDispatchState(fresh, failed(T0, false));
  expect(state.consecutiveFailures).toBe(0);
  state = nextDispatchState(state, failed(T0 + 1, true));
  expect(state.consecutiveFailures).toBe(1);
});

test(`the ${ARCHIVE_AFTER_EXHAUSTED_DELIVERIES}th consecutive failed delivery archives, not the one before`, () => {
  let state = fresh;
  for (let i = 1; i < ARCHIVE_AFTER_EXHAUSTED_DELIVERIES; i += 1) state = nextDispatchState(state, failed(T0 + i));
  expect(state.consecutiveFailures).toBe(999);
  expect(state.archivedAt).toBeNull();
  state = nextDispatchState(state, failed(T0 + 1000));
  expect(state).toMatchObject({ archivedAt: T0 + 1000, archivedReason: ARCHIVE_REASONS.exhausted });
});

test('a success resets the count and the failing period', () => {
  let state: DispatchState = { ...fresh, consecutiveFailures: 999, failingSince: T0, lastFailureAt: T0 + DAY };
  state = nextDispatchState(state, succeeded(T0 + 2 * DAY));
  expect(state).toMatchObject({
    consecutiveFailures: 0,
    failingSince: null,
    lastFailureAt: null,
    httpStatusCode: '200',
  });
  state = nextDispatchState(state, failed(T0 + 7 * DAY + 1));
  expect(state.archivedAt).toBeNull();
  expect(state.failingSince).toBe(T0 + 7 * DAY + 1);
});

test.each([
  ['6 days 23 h of failure does not archive', 7 * DAY - HOUR, null],
  ['exactly 7 days of failure archives', 7 * DAY, ARCHIVE_REASONS.failingForDays],
  ['8 days of failure archives', 8 * DAY, ARCHIVE_REASONS.failingForDays],
])('%s', (_name, elapsed, reason) => {
  const failing = { ...fresh, consecutiveFailures: 3, failingSince: T0, lastFailureAt: T0 + elapsed - HOUR };
  expect(nextDispatchState(failing, failed(T0 + elapsed, false)).archivedReason).toBe(reason);
});

test('a day without a failed attempt ends the failing period: old failures and a quiet week do not archive', () => {
  // A weekly job whose endpoint was down on day 0; its next event, 8 days on, meets a passing error.
  const day0 = { ...fresh, consecutiveFailures: 1, failingSince: T0, lastFailureAt: T0 + HOUR };
  let state = nextDispatchState(day0, failed(T0 + 8 * DAY, false));
  expect(state).toMatchObject({ archivedAt: null, failingSince: T0 + 8 * DAY, consecutiveFailures: 1 });
  // Its retry a minute later fails too: the new period is a minute old.
  state = nextDispatchState(state, failed(T0 + 8 * DAY + 60_000_000, false));
  expect(state).toMatchObject({ archivedAt: null, failingSince: T0 + 8 * DAY });
});

test('failed attempts a day apart at most keep one failing period, which archives at 7 days', () => {
  let state = fresh;
  let at = T0;
  for (; at < T0 + 7 * DAY; at += DAY) {
    state = nextDispatchState(state, failed(at, false));
    expect(state).toMatchObject({ failingSince: T0, archivedAt: null });
  }
  state = nextDispatchState(state, failed(at, false));
  expect(state).toMatchObject({ failingSince: T0, archivedAt: at, archivedReason: ARCHIVE_REASONS.failingForDays });
});

test('a gap just over a day between failed attempts begins a new failing period', () => {
  const failing = { ...fresh, failingSince: T0, lastFailureAt: T0 + 6 * DAY };
  const state = nextDispatchState(failing, failed(T0 + 7 * DAY + 1, false));
  expect(state).toMatchObject({ failingSince: T0 + 7 * DAY + 1, archivedAt: null });
});

test('a 410 Gone archives at once, even on a healthy webhook', () => {
  const state = nextDispatchState(fresh, {
    requestedAt: T0,
    statusCode: '410',
    verdict: 'gone',
    exhausted: true,
    manual: false,
  });
  expect(state).toMatchObject({ archivedAt: T0, archivedReason: ARCHIVE_REASONS.gone, httpStatusCode: '410' });
});

test('a manual redelivery that fails changes the status but not the failure record', () => {
  const failing = { ...fresh, consecutiveFailures: 999, failingSince: T0, lastFailureAt: T0 };
  const state = nextDispatchState(failing, { ...failed(T0 + 8 * DAY), manual: true });
  expect(state).toMatchObject({
    consecutiveFailures: 999,
    failingSince: T0,
    lastFailureAt: T0,
    archivedAt: null,
    httpStatusCode: '500',
  });
});

test('a manual redelivery that succeeds clears the failure record', () => {
  const failing = { ...fresh, consecutiveFailures: 10, failingSince: T0, lastFailureAt: T0 };
  expect(nextDispatchState(failing, { ...succeeded(T0 + DAY), manual: true })).toMatchObject({
    consecutiveFailures: 0,
    failingSince: null,
  });
});

test('an archived webhook is not archived again by a late result', () => {
  const archived = { ...fresh, archivedAt: T0, archivedReason: ARCHIVE_REASONS.gone };
  expect(nextDispatchState(archived, failed(T0 + 1)).archivedReason).toBe(ARCHIVE_REASONS.gone);
});
