// Maps a stored webhook to the response shapes of docs/api-contract.md#6-responses-of-each-operation.
import type { Micros } from '../core/time';
import {
  type CreatedWebhook,
  isJobEventType,
  type WebhookDetail,
  type WebhookSummary,
} from '@jobhooks/client/contract';
import type { Circuit } from '../delivery/endpoint-health';
import type { WebhookRecord } from '../domain/webhook';

export function toSummary(record: WebhookRecord): WebhookSummary {
  const archived = record.archivedAt !== null;
  return {
    id: record.id,
    account_identifier: record.accountIdentifier,
    name: record.name,
    description: record.description,
    job_ids: record.jobIds,
    event_types: record.eventTypes.filter(isJobEventType),
    client_url: record.clientUrl,
    // An archived webhook reports active false (docs/decisions.md#5-archived-state-in-the-api).
    active: record.active && !archived,
    created_at: String(record.createdAt),
    updated_at: String(record.updatedAt),
    http_status_code: record.httpStatusCode,
    account_id: String(record.accountId),
    archived,
    ...(archived ? { archived_at: String(record.archivedAt), archived_reason: record.archivedReason ?? '' } : {}),
    ...(record.maxRequestsPerSecond !== null ? { max_requests_per_second: record.maxRequestsPerSecond } : {}),
  };
}

/** When the secret a rotation replaced stops signing, while that is still ahead of `now`; null otherwise. */
export function secretOverlapUntil(record: WebhookRecord, now: Micros): number | null {
  return record.previousSealedSecret !== null && record.previousSecretUntil !== null && now < record.previousSecretUntil
    ? record.previousSecretUntil
    : null;
}

export function toDetail(record: WebhookRecord, circuit: Circuit, now: Micros): WebhookDetail {
  const overlapUntil = secretOverlapUntil(record, now);
  return {
    ...toSummary(record),
    ...(record.dispatchedAt !== null ? { dispatched_at: String(record.dispatchedAt) } : {}),
    delivery_circuit: circuit.state,
    ...(circuit.state === 'open' ? { delivery_circuit_open_until: String(circuit.until) } : {}),
    ...(overlapUntil !== null ? { previous_secret_expires_at: String(overlapUntil) } : {}),
  };
}

export function toCreated(record: WebhookRecord, hmacSecret: string): CreatedWebhook {
  return { ...toSummary(record), hmac_secret: hmacSecret };
}
