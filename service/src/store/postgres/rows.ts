// Webhook rows as PostgreSQL keeps them: the shared row, plus the endpoint health only PostgreSQL keeps on it.
import type { WebhookRecord } from '../../domain/webhook';
import { webhookFromRow, type WebhookRow } from '../rows';
import { healthFromRow, type HealthRow } from './health-row';

export const SELECT_WEBHOOK = `
  SELECT w.*, a.identifier AS account_identifier
    FROM webhooks w JOIN accounts a ON a.id = w.account_id`;

export type PgWebhookRow = WebhookRow & HealthRow;

export function webhookFromPgRow(row: PgWebhookRow): WebhookRecord {
  return {
    ...webhookFromRow(row),
    endpointHealth: healthFromRow(row),
    endpointHealthRevision: row.endpoint_health_revision,
  };
}
