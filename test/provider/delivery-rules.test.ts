// The wording helpers every sentence that states a delivery rule or a limit is written with.
import { countText, DELIVERY_RULES, durationText, LIMITS, retryDelaysText } from '@jobhooks/client/contract';

test('a duration reads in its largest whole unit', () => {
  expect(durationText(LIMITS.secretOverlapMaxSeconds)).toBe('7 days');
  expect(durationText(86_400)).toBe('1 day');
  expect(durationText(LIMITS.idempotencyWindowMicros / 1_000_000)).toBe('1 day');
  expect(durationText(36 * 3600)).toBe('36 hours');
  expect(durationText(7200)).toBe('2 hours');
  expect(durationText(300)).toBe('5 min');
  expect(durationText(DELIVERY_RULES.attemptTimeoutSeconds)).toBe('10 s');
  expect(durationText(90)).toBe('90 s');
});

test('the retry waits read as one list, and a count with its thousands separated', () => {
  expect(retryDelaysText()).toBe('5 s, 5 min, 30 min, 2 hours and 5 hours');
  expect(retryDelaysText([60])).toBe('1 min');
  expect(countText(DELIVERY_RULES.archiveAfterFailedDeliveries)).toBe('1,000');
});
