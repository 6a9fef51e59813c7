// The rate-limit policy as a pure function of the previous state and the time.
import {
  admitRequest,
  RATE_COOLDOWN_MS,
  type RateBudget,
  type RateState,
  refundRequest,
} from '../../service/src/accounts/rate-limit-policy';

const management = (limitPerMinute: number): RateBudget => ({ limitPerMinute, cooldownMs: RATE_COOLDOWN_MS });
const ingestion = (limitPerMinute: number): RateBudget => ({ limitPerMinute, cooldownMs: 0 });

function run(times: number[], budget: RateBudget) {
  let state: RateState | undefined;
  return times.map((now) => {
    const decision = admitRequest(state, now, budget);
    state = decision.state;
    return decision.allowed ? 'ok' : `429 retry ${decision.retryAfterSeconds}s`;
  });
}

test.each([
  ['under the limit', [0, 1, 2], management(3), ['ok', 'ok', 'ok']],
  ['one over the limit starts the cooldown', [0, 1, 2, 3], management(3), ['ok', 'ok', 'ok', '429 retry 300s']],
  [
    'the cooldown outlasts the minute',
    [0, 1, 2, 60_001],
    management(2),
    ['ok', 'ok', '429 retry 300s', '429 retry 241s'],
  ],
  [
    'after the cooldown a fresh window starts',
    [0, 1, 2, 2 + RATE_COOLDOWN_MS, 3 + RATE_COOLDOWN_MS],
    management(2),
    ['ok', 'ok', '429 retry 300s', 'ok', 'ok'],
  ],
  ['a new minute resets the count', [0, 1, 60_000, 60_001], management(2), ['ok', 'ok', 'ok', 'ok']],
  [
    'without a cooldown, over the limit waits for the end of the window only',
    [0, 1, 30_000, 59_999, 60_000],
    ingestion(2),
    ['ok', 'ok', '429 retry 30s', '429 retry 1s', 'ok'],
  ],
])('%s', (_case, times, budget, expected) => {
  expect(run(times, budget)).toEqual(expected);
});

describe('refunds', () => {
  const admitted = (count: number): RateState => ({ windowStartMs: 1_000, count, blockedUntilMs: null });

  test('take one request back from the window it was counted in', () => {
    expect(refundRequest(admitted(3), 1_000)).toEqual(admitted(2));
  });

  test('leave a later window, a blocked account and a never-counted account alone', () => {
    expect(refundRequest(admitted(3), 0)).toEqual(admitted(3));
    const blocked = { ...admitted(4), blockedUntilMs: 301_000 };
    expect(refundRequest(blocked, 1_000)).toEqual(blocked);
    expect(refundRequest(undefined, 1_000)).toBeUndefined();
  });
});
