// A delivery: one event for one webhook, from its planning at ingestion to its lease and its last state.
import type { Micros } from '../core/time';
import type { DeliveredEventType } from '@jobhooks/client/contract';
import type { EventTrace } from '../core/trace-context';
import type { EndpointHealth } from './endpoint-health';
import type { SendRate } from './send-rate';

export type DeliveryState = 'pending' | 'succeeded' | 'failed' | 'skipped';

/**
 * One event x webhook. The exact bytes every attempt will send are its `payloadHead` followed by the
 * event's `payloadTail` (events/payload.ts), so the run data all webhooks share is stored once per event.
 */
export interface NewDelivery {
  id: string;
  webhookId: string;
  state: 'pending' | 'skipped';
  payloadHead: Buffer;
}

export interface PlannedDeliveries {
  payloadTail: Buffer;
  deliveries: NewDelivery[];
}

export interface DueCandidate {
  id: string;
  webhookId: string;
  accountId: number;
  /** When its next attempt came due, in microseconds since the epoch. */
  dueAt: Micros;
  /**
   * Requests to its webhook in flight under the leases of other processes (other instances on one PostgreSQL
   * database), which count against the webhook's limit like this process's own. Always 0 on SQLite.
   */
  inFlightElsewhere: number;
  /** Its endpoint's health as the store keeps it. */
  endpointHealth: EndpointHealth;
  /** The revision of that health (KeptHealth): a claim's read never replaces a newer one its instance knows. */
  endpointHealthRevision: number;
  /** Its webhook's delivery rate (send-rate.ts); null for most webhooks, which have none. */
  sendRate: SendRate | null;
}

/** What names one delivery: a delivery's id is looked up among its webhook's. */
export interface DeliveryKey {
  webhookId: string;
  id: string;
}

/** A delivery leased to one dispatcher, with what its attempt needs. */
export interface ClaimedDelivery {
  id: string;
  /**
   * The lease this claim holds, new for every claim: a result or a skip moves the row only while it still
   * carries it, so a late result of a lease that expired and was claimed again (by another instance, or by
   * this one) moves nothing; its attempt is still logged.
   */
  lease: string;
  eventId: string;
  eventType: DeliveredEventType;
  webhookId: string;
  accountId: number;
  /** When this attempt came due (before the lease moved next_attempt_at), in microseconds since the epoch. */
  dueAt: Micros;
  /** Its webhook's delivery rate as the claim read it: its attempt first takes a start slot (send-rate.ts); null for none. */
  maxRequestsPerSecond: number | null;
  payload: Buffer;
  /** Its event's trace context; null for an event taken in before traces were kept. */
  trace: EventTrace | null;
  /** Attempts made so far. */
  attempts: number;
  clientUrl: string;
  sealedSecret: string;
  /** The secret a rotation replaced, while its overlap lasts (see WebhookRecord). */
  previousSealedSecret: string | null;
  previousSecretUntil: Micros | null;
  /** True for a delivery a recovery put back: this attempt is its last, whatever it gets. */
  lastAttempt: boolean;
  active: boolean;
  archived: boolean;
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  eventType: DeliveredEventType;
  webhookId: string;
  state: DeliveryState;
  payload: Buffer;
  /** Its event's trace context; null for an event taken in before traces were kept. */
  trace: EventTrace | null;
  attempts: number;
}

/** What an attempt does to its delivery row. */
export type DeliveryChange =
  | { state: 'pending'; nextAttemptAt: Micros }
  | { state: 'succeeded' | 'failed' }
  /** A manual redelivery that failed leaves the delivery as it was. */
  | { state: 'unchanged' };
