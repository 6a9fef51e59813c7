// One attempt of a delivery: how it went, its row in the delivery log, and what it changes.
import type { Micros, Millis } from '../core/time';
import type { DeliveredEventType } from '@jobhooks/client/contract';
import type { DeliveryChange } from './delivery';
import type { EndpointHealthChange } from './endpoint-health';

/** How an attempt went: 2xx succeeded, 410 Gone archives the webhook at once, anything else failed. */
export type AttemptVerdict = 'succeeded' | 'failed' | 'gone';

export interface AttemptFacts {
  requestedAt: Micros;
  statusCode: string;
  verdict: AttemptVerdict;
  /** True when this attempt was the delivery's last: it failed with no retries left, or got a 410. */
  exhausted: boolean;
  /** A redelivery asked for by a user: a success clears the failures; a failure other than 410 does not count. */
  manual: boolean;
}

/** One row of the delivery log. */
export interface AttemptLogEntry {
  deliveryId: string | null;
  webhookId: string;
  eventId: string;
  eventType: DeliveredEventType;
  attempt: number;
  requestedAt: Micros;
  durationMs: Millis;
  statusCode: string;
  error: string | null;
  success: boolean;
  responseExcerpt: string;
  /** The response's headers as the log keeps them (empty when no response came). */
  responseHeaders: Record<string, string>;
  isTest: boolean;
}

export interface LoggedAttempt extends AttemptLogEntry {
  id: number;
}

export interface AttemptResult {
  log: AttemptLogEntry & { deliveryId: string };
  facts: AttemptFacts;
  delivery: DeliveryChange;
  /** The lease the result was produced under; null for a manual redelivery of a finished delivery. */
  lease: string | null;
  /**
   * The URL the request went to. The webhook may have been given another since (results-plan.ts): then the
   * answer is about an endpoint it no longer has.
   */
  sentTo?: string;
  /**
   * What the answer does to the endpoint's health that was not written when it came in (it changed nothing the
   * sending instance knew, or the write failed): a store that keeps the health applies it with the result.
   */
  endpointHealthChange?: EndpointHealthChange | null;
}

/**
 * What stays of a database's refusal, and of the error text of a row the database refused, in the row written
 * instead: printable ASCII only, at most this long. Whatever made the row unwritable cannot be in it again.
 */
const REFUSAL_TEXT_CHARS = 200;

function refusalText(refusal: unknown): string {
  const message = refusal instanceof Error ? refusal.message : String(refusal);
  return message.replace(/[^\x20-\x7e]/g, '?').slice(0, REFUSAL_TEXT_CHARS);
}

/**
 * The log row of an attempt whose row the database refused: the same attempt (its status, verdict and times, so
 * retries, the circuit breaker and archiving go on as for any attempt) without the receiver's body and headers,
 * and with an error that says why they are missing.
 */
export function withoutAnswer<E extends AttemptLogEntry>(entry: E, refusal: unknown): E {
  const note = `The answer could not be stored, so its body and headers are left out (${refusalText(refusal)}).`;
  return {
    ...entry,
    responseExcerpt: '',
    responseHeaders: {},
    error: entry.error === null ? note : `${refusalText(entry.error)} ${note}`,
  };
}

/** An attempt's result with its log row as withoutAnswer makes it. */
export function resultWithoutAnswer(result: AttemptResult, refusal: unknown): AttemptResult {
  return { ...result, log: withoutAnswer(result.log, refusal) };
}
