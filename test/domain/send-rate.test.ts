// The delivery rate rule, pure, on a fake clock (microseconds): a start slot is granted once the webhook's next
// start has come, and moves it on by the spacing; the claim leases one delivery once that time has come.
import { decideStart, rateSpacing, rateWakeAt, sendRateOf, startsAllowed } from '../../service/src/domain/send-rate';

const T = 1_000_000_000;
const SPACING = 200_000;

test.each([
  [1, 1_000_000],
  [5, 200_000],
  [3, 333_334],
  [7, 142_858],
  [100, 10_000],
])('at %i per second, starts are %i microseconds apart, so N + 1 never fit in one second', (perSecond, spacing) => {
  expect(rateSpacing(perSecond)).toBe(spacing);
  expect(perSecond * rateSpacing(perSecond)).toBeGreaterThanOrEqual(1_000_000);
});

describe('the start slot', () => {
  test("a webhook's first start is granted, and its next start moves a spacing on", () => {
    expect(decideStart(null, T, SPACING)).toEqual({ granted: true, nextAt: T + SPACING });
  });

  test('granted from the stored time on, never before it; refused, it names the stored time to ask again', () => {
    expect(decideStart(T + SPACING, T + SPACING - 1, SPACING)).toEqual({ granted: false, retryAt: T + SPACING });
    expect(decideStart(T + SPACING, T + SPACING, SPACING)).toEqual({ granted: true, nextAt: T + 2 * SPACING });
    // Late: the next start counts from the start granted, not from the time stored.
    expect(decideStart(T + SPACING, T + 5 * SPACING, SPACING)).toEqual({ granted: true, nextAt: T + 6 * SPACING });
  });

  test('two asks at the same time: the first is granted, the second refused until a spacing later', () => {
    const first = decideStart(null, T, SPACING);
    if (!first.granted) throw new Error('the first start is granted');
    expect(decideStart(first.nextAt, T, SPACING)).toEqual({ granted: false, retryAt: T + SPACING });
  });

  test('starts granted one after the other on a clock that moves by small steps are a spacing apart or more', () => {
    const granted: number[] = [];
    let stored: number | null = null;
    for (let now = T; now < T + 3_000_000; now += 7_001) {
      const decision = decideStart(stored, now, rateSpacing(3));
      if (decision.granted) {
        granted.push(now);
        stored = decision.nextAt;
      }
    }
    const gaps = granted.slice(1).map((at, i) => at - granted[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(rateSpacing(3));
    expect(granted).toHaveLength(9);
  });
});

describe('the claim', () => {
  test('a webhook without a rate has no limit and nothing to wake for', () => {
    expect(sendRateOf(null, null)).toBeNull();
    expect(startsAllowed(null, T)).toBe(Number.POSITIVE_INFINITY);
    expect(rateWakeAt(null, T)).toBeNull();
  });

  test('leases one delivery once the next start has come, none before it', () => {
    expect(startsAllowed(sendRateOf(5, null), T)).toBe(1);
    expect(startsAllowed(sendRateOf(5, T + 1), T)).toBe(0);
    expect(startsAllowed(sendRateOf(5, T), T)).toBe(1);
  });

  test('looks again at the next start of a webhook it held back; not for one whose start has come', () => {
    expect(rateWakeAt(sendRateOf(5, T + 50), T)).toBe(T + 50);
    expect(rateWakeAt(sendRateOf(5, T), T)).toBeNull();
    expect(rateWakeAt(sendRateOf(5, null), T)).toBeNull();
  });
});
