// The rate-limit policy as a pure function of the previous state and the time.
import { admitRequest, RATE_COOLDOWN_MS, type RateState } from '../../service/src/accounts/rate-limit-policy';

function run(times: number[], limit: number) {
  let state: RateState | undefined;
  return times.map((now) => {
    const decision = admitRequest(state, now, limit);
    state = decision.state;
    return decision.allowed ? 'ok' : `429 retry ${decision.retryAfterSeconds}s`;
  });
}

test.each([
  ['under the limit', [0, 1, 2], 3, ['ok', 'ok', 'ok']],
  ['one over the limit starts the cooldown', [0, 1, 2, 3], 3, ['ok', 'ok', 'ok', '429 retry 300s']],
  ['the cooldown outlasts the minute', [0, 1, 2, 60_001], 2, ['ok', 'ok', '429 retry 300s', '429 retry 241s']],
  ['after the cooldown a fresh window starts', [0, 1, 2, 2 + RATE_COOLDOWN_MS, 3 + RATE_COOLDOWN_MS], 2, ['ok', 'ok', '429 retry 300s', 'ok', 'ok']],
  ['a new minute resets the count', [0, 1, 60_000, 60_001], 2, ['ok', 'ok', 'ok', 'ok']],
])('%s', (_case, times, limit, expected) => {
  expect(run(times, limit)).toEqual(expected);
});
