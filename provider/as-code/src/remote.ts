// The account's webhooks as the server has them, every page of the list (the API gives at most 100 at a time).
import type { WebhooksClient } from '@jobhooks/client';
import type { WebhookDetail } from '@jobhooks/client/contract';

export const PAGE_SIZE = 100;

export async function listAllWebhooks(api: Pick<WebhooksClient, 'list'>): Promise<WebhookDetail[]> {
  const byId = new Map<string, WebhookDetail>();
  for (let offset = 0; ;) {
    const page = await api.list({ offset, limit: PAGE_SIZE });
    // By id: a webhook created or deleted meanwhile shifts the pages, and one may then be seen twice.
    for (const webhook of page.data) byId.set(webhook.id, webhook);
    offset += page.data.length;
    if (page.data.length === 0 || offset >= page.extra.pagination.total_count) return [...byId.values()];
  }
}
