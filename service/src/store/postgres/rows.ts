// Webhook rows of the PostgreSQL schema: the SQLite store's rows and mapper, with booleans where SQLite has 0 and 1.
import type { WebhookRecord } from '../../domain/webhook';
import { webhookFromRow, type WebhookRow } from '../webhooks';

/** A webhook row as PostgreSQL returns it: `active` is a boolean where SQLite has 0 and 1. */
export type PgWebhookRow = Omit<WebhookRow, 'active'> & { active: boolean };

export function webhookFromPgRow(row: PgWebhookRow): WebhookRecord {
  return webhookFromRow({ ...row, active: row.active ? 1 : 0 });
}
