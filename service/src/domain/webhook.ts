// A webhook as the store keeps it, the parts a user writes, and the dispatch state its deliveries change.
// Times are microseconds since the epoch.
import type { Micros } from '../core/time';
import type { DeliveredEventType } from '@jobhooks/client/contract';
import type { EndpointHealth } from './endpoint-health';

/**
 * 'job': a webhook of the dbt-compatible API; 'operational': an account's operational endpoint
 * (docs/operational-webhooks.md), which only jobhooks' own API shows. Both are delivered to alike.
 */
export type WebhookKind = 'job' | 'operational';

export interface WebhookRecord {
  id: string;
  kind: WebhookKind;
  accountId: number;
  accountIdentifier: string;
  name: string;
  description: string;
  clientUrl: string;
  eventTypes: DeliveredEventType[];
  /** Job ids as decimal strings, in the order they were written. */
  jobIds: string[];
  active: boolean;
  /** At most this many requests per second to its endpoint, over all instances; null for no limit. */
  maxRequestsPerSecond: number | null;
  sealedSecret: string;
  /**
   * The secret a rotation replaced, kept until `previousSecretUntil` (microseconds): while it lasts, deliveries
   * are signed with both, so receivers can move to the new secret without missing a delivery.
   */
  previousSealedSecret: string | null;
  previousSecretUntil: Micros | null;
  createdAt: Micros;
  updatedAt: Micros;
  dispatchedAt: Micros | null;
  httpStatusCode: string;
  consecutiveFailures: number;
  failingSince: Micros | null;
  lastFailureAt: Micros | null;
  archivedAt: Micros | null;
  archivedReason: string | null;
  /** What its endpoint's answers taught, as the store keeps it (delivery/endpoint-health.ts). */
  endpointHealth: EndpointHealth;
  /** The revision of that health (KeptHealth): after a new client_url, the revision of its reset. */
  endpointHealthRevision: number;
}

/**
 * What an event's fan-out reads of a webhook (events/fan-out.ts): whether it wants the event, the state its delivery
 * starts in, and the name its payload carries. No secret, no endpoint health: ingestion needs neither.
 */
export type FanOutWebhook = Pick<WebhookRecord, 'id' | 'name' | 'eventTypes' | 'jobIds' | 'active' | 'archivedAt'>;

/** The fields a user writes through create and update. */
export type WebhookWritable = Pick<
  WebhookRecord,
  'name' | 'description' | 'clientUrl' | 'eventTypes' | 'jobIds' | 'active' | 'maxRequestsPerSecond'
>;

/**
 * Whether an update points the webhook at an endpoint its health says nothing of: another URL, or one a person
 * just turned back on. What the old circuit learnt then no longer holds.
 */
export function endpointRenewed(
  before: Pick<WebhookRecord, 'clientUrl' | 'active' | 'archivedAt'>,
  after: Pick<WebhookRecord, 'clientUrl' | 'active' | 'archivedAt'>,
): boolean {
  const reactivated = (before.archivedAt !== null || !before.active) && after.active && after.archivedAt === null;
  return after.clientUrl !== before.clientUrl || reactivated;
}

/** What an update may change: the written fields, plus the archive state and failure counters it may reset. */
export type WebhookChange = WebhookWritable &
  Pick<
    WebhookRecord,
    'updatedAt' | 'consecutiveFailures' | 'failingSince' | 'lastFailureAt' | 'archivedAt' | 'archivedReason'
  >;

/**
 * Prefixed to the request hash of a create's Idempotency-Key once its webhook's secret is rotated: a replay of that
 * create must not show the rotated secret.
 */
export const ROTATED_KEY_PREFIX = 'rotated:';

/** What a rotation changes: the secret, and the replaced one with the end of its overlap. */
export type SecretChange = Pick<
  WebhookRecord,
  'sealedSecret' | 'previousSealedSecret' | 'previousSecretUntil' | 'updatedAt'
>;

/** The columns of a webhook that its deliveries change (delivery/archive-policy.ts computes them). Times are microseconds since the epoch. */
export interface DispatchState {
  httpStatusCode: string;
  dispatchedAt: Micros | null;
  /** Consecutive deliveries whose every attempt failed. */
  consecutiveFailures: number;
  /** The first failed attempt after the last success, or after the last day without one (archive-policy.ts). */
  failingSince: Micros | null;
  lastFailureAt: Micros | null;
  archivedAt: Micros | null;
  archivedReason: string | null;
}

/** A new webhook's dispatch state: never sent to, no failure, not archived. */
export const NEW_DISPATCH_STATE: Readonly<DispatchState> = Object.freeze({
  httpStatusCode: '0',
  dispatchedAt: null,
  consecutiveFailures: 0,
  failingSince: null,
  lastFailureAt: null,
  archivedAt: null,
  archivedReason: null,
});

/** Whether a webhook still takes deliveries: active and not archived. A claimed delivery of one that does not is skipped. */
export function takesDeliveries(webhook: { active: boolean; archived: boolean }): boolean {
  return webhook.active && !webhook.archived;
}
