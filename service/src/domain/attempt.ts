// One attempt of a delivery: how it went, its row in the delivery log, and what it changes.
import type { EventType } from '@jobhooks/client/contract';
import type { DeliveryChange } from './delivery';
import type { EndpointHealthChange } from './endpoint-health';

/** How an attempt went: 2xx succeeded, 410 Gone archives the webhook at once, anything else failed. */
export type AttemptVerdict = 'succeeded' | 'failed' | 'gone';

export interface AttemptFacts {
  requestedAt: number;
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
  eventType: EventType;
  attempt: number;
  requestedAt: number;
  durationMs: number;
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
   * What the answer does to the endpoint's health that was not written when it came in (it changed nothing the
   * sending instance knew, or the write failed): a store that keeps the health applies it with the result.
   */
  endpointHealthChange?: EndpointHealthChange | null;
}
