// Looks up a webhook for an account, answering 404 alike for an unknown id, a malformed id or another
// account's webhook, so existence never leaks across accounts (docs/decisions.md#4-error-statuses).
import { NotFoundError } from '../core/errors';
import { isIdOf } from '../core/ids';
import type { WebhookKind, WebhookRecord } from '../domain/webhook';
import type { Store } from '../store/store';

/** The 404 for a webhook that is not there (or no longer: deleted between a lookup and a write). */
export function webhookNotFound(accountId: number, webhookId: string): NotFoundError {
  return new NotFoundError(`No webhook with id "${webhookId}" in account ${accountId}.`);
}

/** A webhook of another kind is not there either: the dbt-compatible API never shows an operational endpoint. */
export async function findWebhook(
  store: Store,
  accountId: number,
  webhookId: string,
  kind: WebhookKind = 'job',
): Promise<WebhookRecord> {
  const record = isIdOf('webhook', webhookId) ? await store.webhooks.get(accountId, webhookId) : null;
  if (!record || record.kind !== kind) throw webhookNotFound(accountId, webhookId);
  return record;
}
