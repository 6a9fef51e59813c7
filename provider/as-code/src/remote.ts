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

/** Oldest first, by creation time (microsecond digits) and then id: which of two same-marker webhooks is kept. */
export function byAge(a: WebhookDetail, b: WebhookDetail): number {
  const [x, y] = [a.created_at, b.created_at];
  return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0) || a.id.localeCompare(b.id);
}
