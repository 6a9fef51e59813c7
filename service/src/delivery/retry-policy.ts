// When a failed delivery is tried again (docs/decisions.md#8-retries): pure functions over named constants.
import { type Micros, MICROS_PER_SECOND, type Millis } from '../core/time';
import { DELIVERY_RULES, parseRetryAfterSeconds } from '@jobhooks/client/contract';
import type { AttemptOutcomeLabel } from '../core/tracing';
import type { AttemptVerdict } from '../domain/attempt';
import type { SendOutcome } from './sender';

/** Each event is retried this many times after its first attempt. */
export const RETRIES_PER_DELIVERY: number = DELIVERY_RULES.retriesPerDelivery;
/** Delay before each retry, in seconds. */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = DELIVERY_RULES.retryDelaysSeconds;
/** Each delay is stretched by a random 0 to 20 %, never shortened, so retries of a burst spread out. */
export const MAX_JITTER_FRACTION = DELIVERY_RULES.retryJitterPercent / 100;
/** `Retry-After` may stretch a delay up to this multiple of its step, and never adds attempts. */
export const RETRY_AFTER_MAX_STRETCH = 2;
/** The statuses whose `Retry-After` is honoured. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

export function verdictOf(outcome: SendOutcome): AttemptVerdict {
  if (outcome.kind === 'no_response') return 'failed';
  if (outcome.status >= 200 && outcome.status < 300) return 'succeeded';
  return outcome.status === 410 ? 'gone' : 'failed';
}

/** How an attempt went as metrics and traces name it: a status that is not a success is told from no response. */
export function outcomeLabel(outcome: SendOutcome): AttemptOutcomeLabel {
  if (outcome.kind === 'no_response') return 'no_response';
  const verdict = verdictOf(outcome);
  return verdict === 'failed' ? 'failed_status' : verdict;
}

/** The status recorded for an attempt: the response's, or "599" when none came (docs/decisions.md#11-http_status_code-and-dispatched_at). */
export function statusCodeOf(outcome: SendOutcome): string {
  return outcome.kind === 'response' ? String(outcome.status) : '599';
}

/** The error text of the delivery log; null for a success. */
export function errorTextOf(outcome: SendOutcome): string | null {
  if (outcome.kind === 'no_response') return outcome.error;
  return verdictOf(outcome) === 'succeeded' ? null : `The endpoint answered HTTP ${outcome.status}`;
}

export type NextStep =
  | { kind: 'succeeded' }
  | { kind: 'retry'; delayMicros: Micros }
  /** No attempts left, or a 410: the delivery failed for good. */
  | { kind: 'exhausted' };

export interface NextStepInput {
  outcome: SendOutcome;
  /** The attempt that just ended, 1-based. */
  attempt: number;
  delaysSeconds: readonly number[];
  /** A uniform random number in [0, 1) for the jitter. */
  jitter: number;
  nowMillis: Millis;
}

export function planNextStep(input: NextStepInput): NextStep {
  const verdict = verdictOf(input.outcome);
  if (verdict === 'succeeded') return { kind: 'succeeded' };
  const step = input.delaysSeconds[input.attempt - 1];
  if (verdict === 'gone' || step === undefined) return { kind: 'exhausted' };
  let delaySeconds = step * (1 + MAX_JITTER_FRACTION * input.jitter);
  if (input.outcome.kind === 'response' && RETRY_AFTER_STATUSES.has(input.outcome.status)) {
    const asked = parseRetryAfterSeconds(input.outcome.retryAfter, input.nowMillis);
    if (asked !== null) delaySeconds = Math.max(delaySeconds, Math.min(asked, step * RETRY_AFTER_MAX_STRETCH));
  }
  return { kind: 'retry', delayMicros: Math.round(delaySeconds * MICROS_PER_SECOND) };
}
