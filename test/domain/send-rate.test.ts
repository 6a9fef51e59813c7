// The delivery rate rule, pure, on a fake clock (microseconds): evenly spaced starts, one per claim, no limit without a rate.
import {
  nextStartAfter,
  rateSpacing,
  rateWakeAt,
  sendRateOf,
  slotsTaken,
  startsAllowed,
} from '../../service/src/domain/send-rate';

const T = 1_000_000_000;

test('a webhook without a rate has no limit and no slot to store', () => {
  expect(sendRateOf(null, null)).toBeNull();
  expect(startsAllowed(null, T)).toBe(Number.POSITIVE_INFINITY);
  expect(rateWakeAt(null, true, T)).toBeNull();
  expect(slotsTaken([{ webhookId: 'w', sendRate: null }], T)).toEqual([]);
});

test.each([
  [1, 1_000_000],
  [5, 200_000],
  [3, 333_334],
  [100, 10_000],
])('at %i per second, starts are %i microseconds apart, so N + 1 never fit in one second', (perSecond, spacing) => {
  expect(rateSpacing(perSecond)).toBe(spacing);
  expect(perSecond * rateSpacing(perSecond)).toBeGreaterThanOrEqual(1_000_000);
});

test('one start per claim once the slot has come, none before it', () => {
  const rate = { perSecond: 5, nextAt: T + 200_000 };
  expect(startsAllowed({ perSecond: 5, nextAt: null }, T)).toBe(1);
  expect(startsAllowed(rate, T + 199_999)).toBe(0);
  expect(startsAllowed(rate, T + 200_000)).toBe(1);
  expect(nextStartAfter(rate, T + 250_000)).toBe(T + 450_000);
});

test('a claim that sends wakes at the next slot; a held webhook at its own; one whose slot has come needs no wake', () => {
  expect(rateWakeAt({ perSecond: 5, nextAt: null }, true, T)).toBe(T + 200_000);
  expect(rateWakeAt({ perSecond: 5, nextAt: T + 50 }, false, T)).toBe(T + 50);
  expect(rateWakeAt({ perSecond: 5, nextAt: T }, false, T)).toBeNull();
});

test('the slots a claim stores are one per rate-limited webhook, sorted by id', () => {
  const rate = { perSecond: 2, nextAt: null };
  expect(
    slotsTaken(
      [
        { webhookId: 'wb', sendRate: rate },
        { webhookId: 'wa', sendRate: rate },
        { webhookId: 'wc', sendRate: null },
      ],
      T,
    ),
  ).toEqual([
    { webhookId: 'wa', nextAt: T + 500_000 },
    { webhookId: 'wb', nextAt: T + 500_000 },
  ]);
});
