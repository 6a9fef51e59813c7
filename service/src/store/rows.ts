// The rows both backends read, and the records they make of them: one mapper per table, so SQLite and
// PostgreSQL hand the rest of the service the same records. A flag is 0 or 1 in SQLite and a boolean in
// PostgreSQL; a time is a whole number of microseconds in both.
import type { DeliveredEventType, PermissionSet, Plan } from '@jobhooks/client/contract';
import type { EventTrace } from '../core/trace-context';
import type { AccountRecord, ApiTokenRecord } from '../domain/account';
import type { LoggedAttempt } from '../domain/attempt';
import type { ClaimedDelivery, DeliveryRecord, DeliveryState, DueCandidate } from '../domain/delivery';
import type { DispatchState, FanOutWebhook, WebhookKind, WebhookRecord } from '../domain/webhook';
import type { StartSlotRow } from '../domain/send-rate';
import type { Micros } from '../core/time';

/** A boolean column as either backend returns it. */
export type Flag = boolean | 0 | 1;

export const isSet = (flag: Flag): boolean => flag === true || flag === 1;

/** One step of a backend's schema: an append-only list of them upgrades a database made by an older build. */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

export interface AccountRow {
  id: number;
  identifier: string;
  name: string;
  plan: string;
  created_at: number;
}

export function accountFromRow(row: AccountRow): AccountRecord {
  return { id: row.id, identifier: row.identifier, name: row.name, plan: row.plan as Plan, createdAt: row.created_at };
}

export interface ApiTokenRow {
  id: string;
  account_id: number;
  name: string;
  permission_set: string;
  created_at: number;
  revoked_at: number | null;
}

export function tokenFromRow(row: ApiTokenRow): ApiTokenRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    permissionSet: row.permission_set as PermissionSet,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

export type TokenPrincipal = { token: ApiTokenRecord; account: AccountRecord };

/** A token joined with its account, whose columns are prefixed `a_`. */
export type PrincipalRow = ApiTokenRow & { a_identifier: string; a_name: string; a_plan: string; a_created_at: number };

/** Frozen, because one object answers many requests once a store keeps it. */
export function principalFromRow(row: PrincipalRow): TokenPrincipal {
  const account = accountFromRow({
    id: row.account_id,
    identifier: row.a_identifier,
    name: row.a_name,
    plan: row.a_plan,
    created_at: row.a_created_at,
  });
  return Object.freeze({ token: Object.freeze(tokenFromRow(row)), account: Object.freeze(account) });
}

/** The dispatch columns of a webhook row. */
export interface DispatchRow {
  http_status_code: string;
  dispatched_at: number | null;
  consecutive_failures: number;
  failing_since: number | null;
  last_failure_at: number | null;
  archived_at: number | null;
  archived_reason: string | null;
}

export function dispatchStateFromRow(row: DispatchRow): DispatchState {
  return {
    httpStatusCode: row.http_status_code,
    dispatchedAt: row.dispatched_at,
    consecutiveFailures: row.consecutive_failures,
    failingSince: row.failing_since,
    lastFailureAt: row.last_failure_at,
    archivedAt: row.archived_at,
    archivedReason: row.archived_reason,
  };
}

/** A webhook row joined with its account's identifier. */
export interface WebhookRow extends DispatchRow {
  id: string;
  kind: WebhookKind;
  account_id: number;
  account_identifier: string;
  name: string;
  description: string;
  client_url: string;
  /** JSON arrays kept in the order they were written: clients compare what they read back with what they sent. */
  event_types: string;
  job_ids: string;
  active: Flag;
  max_requests_per_second: number | null;
  sealed_secret: string;
  previous_sealed_secret: string | null;
  previous_secret_until: number | null;
  created_at: number;
  updated_at: number;
}

/** A webhook as its row holds it: each backend adds its endpoint's health, which it keeps its own way. */
export type StoredWebhook = Omit<WebhookRecord, 'endpointHealth' | 'endpointHealthRevision'>;

export function webhookFromRow(row: WebhookRow): StoredWebhook {
  return {
    ...fanOutWebhookFromRow(row),
    kind: row.kind,
    accountId: row.account_id,
    accountIdentifier: row.account_identifier,
    description: row.description,
    clientUrl: row.client_url,
    maxRequestsPerSecond: row.max_requests_per_second,
    sealedSecret: row.sealed_secret,
    previousSealedSecret: row.previous_sealed_secret,
    previousSecretUntil: row.previous_secret_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...dispatchStateFromRow(row),
  };
}

/** The columns of a webhook row that the fan-out reads (FanOutWebhook), in both backends. */
const FAN_OUT_COLUMN_NAMES = ['id', 'name', 'event_types', 'job_ids', 'active', 'archived_at'] as const;
export const FAN_OUT_COLUMNS = FAN_OUT_COLUMN_NAMES.join(', ');
export type FanOutRow = Pick<WebhookRow, (typeof FAN_OUT_COLUMN_NAMES)[number]>;

export function fanOutWebhookFromRow(row: FanOutRow): FanOutWebhook {
  return {
    id: row.id,
    name: row.name,
    eventTypes: JSON.parse(row.event_types) as DeliveredEventType[],
    jobIds: JSON.parse(row.job_ids) as string[],
    active: isSet(row.active),
    archivedAt: row.archived_at,
  };
}

/** The bytes a delivery sends: its own head, then its event's shared tail; whole in rows older than the split. */
export function payloadBytes(head: Buffer, tail: Buffer | null): Buffer {
  return tail === null ? head : Buffer.concat([head, tail]);
}

/** What both backends' GET of one delivery selects (d.*, and e.event_type, e.payload_tail and the trace context). */
export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: DeliveredEventType;
  webhook_id: string;
  state: DeliveryState;
  payload: Buffer;
  payload_tail: Buffer | null;
  traceparent: string | null;
  tracestate: string | null;
  attempts: number;
}

/** The trace context an event row keeps; null in a row stored before traces were kept. */
export function traceFromRow(row: { traceparent: string | null; tracestate: string | null }): EventTrace | null {
  return row.traceparent === null ? null : { traceparent: row.traceparent, tracestate: row.tracestate };
}

export function deliveryFromRow(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    webhookId: row.webhook_id,
    state: row.state,
    payload: payloadBytes(row.payload, row.payload_tail),
    trace: traceFromRow(row),
    attempts: row.attempts,
  };
}

/** What a claim needs of a leased delivery's own row. */
export interface LeasedRow {
  id: string;
  event_id: string;
  webhook_id: string;
  payload: Buffer;
  attempts: number;
  last_attempt: number;
}

/** What a claim needs of a leased delivery's event. */
export interface ClaimedEventRow {
  event_type: DeliveredEventType;
  payload_tail: Buffer | null;
  traceparent: string | null;
  tracestate: string | null;
}

/** What a claim needs of a leased delivery's webhook. */
export interface ClaimedWebhookRow {
  client_url: string;
  sealed_secret: string;
  previous_sealed_secret: string | null;
  previous_secret_until: number | null;
  active: Flag;
  archived_at: number | null;
}

/** A leased delivery joined with its event's and webhook's columns that a send needs, read as one row. */
export type ClaimedRow = LeasedRow & ClaimedEventRow & ClaimedWebhookRow;

/** A claimed delivery from its row, with what the claim read of it (its account, when it came due, its rate) and its lease. */
export function claimedFromRow(
  row: ClaimedRow,
  candidate: Pick<DueCandidate, 'accountId' | 'dueAt' | 'sendRate'>,
  lease: string,
): ClaimedDelivery {
  return claimedFromRows(row, row, row, candidate, lease);
}

/** The same from the three rows read apart (the deliveries of one event or webhook share its row). */
export function claimedFromRows(
  leased: LeasedRow,
  event: ClaimedEventRow,
  webhook: ClaimedWebhookRow,
  candidate: Pick<DueCandidate, 'accountId' | 'dueAt' | 'sendRate'>,
  lease: string,
): ClaimedDelivery {
  return {
    id: leased.id,
    lease,
    eventId: leased.event_id,
    eventType: event.event_type,
    webhookId: leased.webhook_id,
    accountId: candidate.accountId,
    dueAt: candidate.dueAt,
    maxRequestsPerSecond: candidate.sendRate?.perSecond ?? null,
    payload: payloadBytes(leased.payload, event.payload_tail),
    trace: traceFromRow(event),
    attempts: leased.attempts,
    clientUrl: webhook.client_url,
    sealedSecret: webhook.sealed_secret,
    previousSealedSecret: webhook.previous_sealed_secret,
    previousSecretUntil: webhook.previous_secret_until,
    lastAttempt: leased.last_attempt === 1,
    active: isSet(webhook.active),
    archived: webhook.archived_at !== null,
  };
}

export interface AttemptRow {
  id: number;
  delivery_id: string | null;
  webhook_id: string;
  event_id: string;
  event_type: DeliveredEventType;
  attempt: number;
  requested_at: number;
  duration_ms: number;
  status_code: string;
  error: string | null;
  success: Flag;
  response_excerpt: string | null;
  response_headers: string | null;
  is_test: Flag;
}

export function attemptFromRow(row: AttemptRow): LoggedAttempt {
  return {
    id: row.id,
    deliveryId: row.delivery_id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    requestedAt: row.requested_at,
    durationMs: row.duration_ms,
    statusCode: row.status_code,
    error: row.error,
    success: isSet(row.success),
    responseExcerpt: row.response_excerpt ?? '',
    responseHeaders: row.response_headers === null ? {} : (JSON.parse(row.response_headers) as Record<string, string>),
    isTest: isSet(row.is_test),
  };
}

/** A webhook's row as both stores read it for a start slot (START_SLOT_COLUMNS). */
export interface StartSlotDbRow {
  next_at: Micros | null;
  active: Flag;
  archived: Flag;
  client_url: string;
  sealed_secret: string;
  previous_sealed_secret: string | null;
  previous_secret_until: Micros | null;
}

/** What a start slot is decided on: the rate's next start, whether the webhook sends, and where and how. */
export const START_SLOT_COLUMNS = `rate_next_at AS next_at, active, archived_at IS NOT NULL AS archived, client_url,
  sealed_secret, previous_sealed_secret, previous_secret_until`;

export function startSlotFromRow(row: StartSlotDbRow): StartSlotRow {
  return {
    nextAt: row.next_at,
    active: isSet(row.active),
    archived: isSet(row.archived),
    endpoint: {
      clientUrl: row.client_url,
      sealedSecret: row.sealed_secret,
      previousSealedSecret: row.previous_sealed_secret,
      previousSecretUntil: row.previous_secret_until,
    },
  };
}
