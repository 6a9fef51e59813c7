// Rows of the PostgreSQL schema and the records they map to: the same records the SQLite store makes, from
// typed columns (booleans are booleans here, integers there).
import type { EventType } from '@jobhooks/client/contract';
import type { WebhookRecord } from '../../domain/webhook';

export interface PgWebhookRow {
  id: string;
  account_id: number;
  account_identifier: string;
  name: string;
  description: string;
  client_url: string;
  event_types: string;
  job_ids: string;
  active: boolean;
  sealed_secret: string;
  previous_sealed_secret: string | null;
  previous_secret_until: number | null;
  created_at: number;
  updated_at: number;
  dispatched_at: number | null;
  http_status_code: string;
  consecutive_failures: number;
  failing_since: number | null;
  last_failure_at: number | null;
  archived_at: number | null;
  archived_reason: string | null;
}

/** Every column of a webhook and its account's identifier, which a record carries. */
export const SELECT_PG_WEBHOOK = `
  SELECT w.*, a.identifier AS account_identifier
    FROM webhooks w JOIN accounts a ON a.id = w.account_id`;

export function webhookFromPgRow(row: PgWebhookRow): WebhookRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    accountIdentifier: row.account_identifier,
    name: row.name,
    description: row.description,
    clientUrl: row.client_url,
    eventTypes: JSON.parse(row.event_types) as EventType[],
    jobIds: JSON.parse(row.job_ids) as string[],
    active: row.active,
    sealedSecret: row.sealed_secret,
    previousSealedSecret: row.previous_sealed_secret,
    previousSecretUntil: row.previous_secret_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    dispatchedAt: row.dispatched_at,
    httpStatusCode: row.http_status_code,
    consecutiveFailures: row.consecutive_failures,
    failingSince: row.failing_since,
    lastFailureAt: row.last_failure_at,
    archivedAt: row.archived_at,
    archivedReason: row.archived_reason,
  };
}
