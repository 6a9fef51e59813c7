// The retry schedule, jitter and Retry-After rules (docs/decisions.md#8-retries), as tables over the pure policy.
import { parseRetryAfterSeconds } from '@jobhooks/client/contract';
import {
  DEFAULT_RETRY_DELAYS_SECONDS,
  planNextStep,
  statusCodeOf,
  verdictOf,
} from '../../service/src/delivery/retry-policy';
import type { SendOutcome } from '../../service/src/delivery/sender';

const response = (status: number, retryAfter: string | null = null): SendOutcome => ({
  kind: 'response',
  status,
  durationMs: 5,
  bodyExcerpt: '',
  retryAfter,
});
const noResponse: SendOutcome = { kind: 'no_response', error: 'Connection refused', durationMs: 1 };
const NOW = Date.parse('2026-11-21T10:00:00Z');
const plan = (outcome: SendOutcome, attempt: number, jitter = 0) =>
  planNextStep({ outcome, attempt, delaysSeconds: DEFAULT_RETRY_DELAYS_SECONDS, jitter, nowMillis: NOW });

test.each([
  [200, 'succeeded'],
  [204, 'succeeded'],
  [299, 'succeeded'],
  [301, 'failed'],
  [302, 'failed'],
  [400, 'failed'],
  [410, 'gone'],
  [429, 'failed'],
  [500, 'failed'],
])('an HTTP %i answer is %s', (status, verdict) => {
  expect(verdictOf(response(status))).toBe(verdict);
});

test('no response is a failure recorded as status "599"', () => {
  expect(verdictOf(noResponse)).toBe('failed');
  expect(statusCodeOf(noResponse)).toBe('599');
  expect(statusCodeOf(response(503))).toBe('503');
});

test.each([
  [1, 5],
  [2, 300],
  [3, 1800],
  [4, 7200],
  [5, 18000],
])('after failed attempt %i the next comes %i s later without jitter', (attempt, seconds) => {
  expect(plan(response(500), attempt)).toEqual({ kind: 'retry', delayMicros: seconds * 1_000_000 });
});

test('the sixth failed attempt exhausts the delivery: one attempt plus five retries', () => {
  expect(plan(response(500), 6)).toEqual({ kind: 'exhausted' });
  expect(plan(noResponse, 6)).toEqual({ kind: 'exhausted' });
});

test('a success ends the delivery at any attempt', () => {
  expect(plan(response(200), 1)).toEqual({ kind: 'succeeded' });
  expect(plan(response(201), 6)).toEqual({ kind: 'succeeded' });
});

test('a 410 exhausts the delivery at once, whatever attempts are left', () => {
  expect(plan(response(410), 1)).toEqual({ kind: 'exhausted' });
});

test('jitter stretches a delay by up to 20 % and never shortens it', () => {
  const delays = [0, 0.25, 0.5, 0.999999].map((jitter) => {
    const step = plan(response(500), 2, jitter);
    return step.kind === 'retry' ? step.delayMicros / 1_000_000 : NaN;
  });
  expect(delays[0]).toBe(300);
  expect(delays[1]).toBeCloseTo(315);
  expect(delays[2]).toBeCloseTo(330);
  expect(delays[3]).toBeLessThan(360);
  expect(Math.min(...delays)).toBeGreaterThanOrEqual(300);
});

test.each([
  ['429 with a longer Retry-After within twice the step is honoured', response(429, '8'), 8],
  ['429 with a Retry-After beyond twice the step is capped at twice the step', response(429, '3600'), 10],
  ['503 with a Retry-After HTTP date is honoured', response(503, new Date(NOW + 7000).toUTCString()), 7],
  ['a shorter Retry-After never brings a retry earlier than the schedule', response(429, '1'), 5],
  ['Retry-After on a 500 is ignored', response(500, '9'), 5],
  ['an unreadable Retry-After is ignored', response(503, 'soon'), 5],
])('%s', (_name, outcome, seconds) => {
  expect(plan(outcome, 1)).toEqual({ kind: 'retry', delayMicros: seconds * 1_000_000 });
});

test('Retry-After never adds attempts', () => {
  expect(plan(response(429, '10'), 6)).toEqual({ kind: 'exhausted' });
});

test('Retry-After is read as delta-seconds or an HTTP date', () => {
  expect(parseRetryAfterSeconds('120', NOW)).toBe(120);
  expect(parseRetryAfterSeconds(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30);
  expect(parseRetryAfterSeconds(new Date(NOW - 30_000).toUTCString(), NOW)).toBe(0);
  expect(parseRetryAfterSeconds(null, NOW)).toBeNull();
  expect(parseRetryAfterSeconds('-3', NOW)).toBeNull();
});
