// Webhook rows of the PostgreSQL schema: the SQLite store's rows and mapper, with booleans where SQLite has 0 and 1,
// and the endpoint health only PostgreSQL keeps on the row.
import type { WebhookRecord } from '../../domain/webhook';
import { webhookFromRow, type WebhookRow } from '../webhooks';
import { healthFromRow, type HealthRow } from './endpoint-health';

/**
 * A webhook row as PostgreSQL returns it: `active` is a boolean where SQLite has 0 and 1, and the row holds its
 * endpoint's health.
 */
export type PgWebhookRow = Omit<WebhookRow, 'active'> & { active: boolean } & HealthRow;

export function webhookFromPgRow(row: PgWebhookRow): WebhookRecord {
  return { ...webhookFromRow({ ...row, active: row.active ? 1 : 0 }), endpointHealth: healthFromRow(row) };
}
