// Looks up a webhook for an account, answering 404 alike for an unknown id, a malformed id or another
// account's webhook, so existence never leaks across accounts (docs/decisions.md#4-error-statuses).
import { NotFoundError } from '../core/errors';
import { isIdOf } from '../core/ids';
import type { WebhookRecord } from '../domain/webhook';
import type { Store } from '../store/store';

export async function findWebhook(store: Store, accountId: number, webhookId: string): Promise<WebhookRecord> {
  const record = isIdOf('webhook', webhookId) ? await store.webhooks.get(accountId, webhookId) : null;
  if (!record) throw new NotFoundError(`No webhook with id "${webhookId}" in account ${accountId}.`);
  return record;
}
