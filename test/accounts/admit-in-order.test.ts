// The admissions of one turn share one transaction of the shared window; they must be decided exactly as if
// they had come one by one.
import { admitInOrder, admitRequest, type RateState } from '../../service/src/accounts/rate-limit-policy';

const budget = { limitPerMinute: 5, cooldownMs: 300_000 };

test('a batch is decided as the same requests one after the other', () => {
  const current: RateState = { windowStartMs: 1_000, count: 3, blockedUntilMs: null };
  const { window, answer } = admitInOrder(current, 4, 2_000, budget);
  let oneByOne: RateState | undefined = current;
  const expected = [];
  for (let i = 0; i < 4; i += 1) {
    const decision = admitRequest(oneByOne, 2_000, budget);
    expected.push(decision);
    oneByOne = decision.state;
  }
  expect(answer).toEqual(expected);
  expect(answer.map((d) => d.allowed)).toEqual([true, true, false, false]);
  expect(window).toEqual({ windowStartMs: 1_000, count: 6, blockedUntilMs: 302_000 });
});

test('a first batch opens the window at its time', () => {
  const { window, answer } = admitInOrder(undefined, 2, 5_000, budget);
  expect(answer.every((d) => d.allowed)).toBe(true);
  expect(window).toEqual({ windowStartMs: 5_000, count: 2, blockedUntilMs: null });
});
