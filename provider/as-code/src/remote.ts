// What the account has on the server, every page of a list (the API gives at most 100 at a time): its webhooks or
// its operational endpoints.
import type { WebhooksClient } from '@jobhooks/client';
import type { OperationalEndpoint, WebhookDetail } from '@jobhooks/client/contract';

export const PAGE_SIZE = 100;

/** One page of a list, as the client answers it. */
type ListPage<Item> = (page: { offset: number; limit: number }) => Promise<{
  data: Item[];
  extra: { pagination: { total_count: number } };
}>;

export async function listAll<Item extends { id: string }>(list: ListPage<Item>): Promise<Item[]> {
  const byId = new Map<string, Item>();
  for (let offset = 0; ;) {
    const page = await list({ offset, limit: PAGE_SIZE });
    // By id: an item created or deleted meanwhile shifts the pages, and one may then be seen twice.
    for (const item of page.data) byId.set(item.id, item);
    offset += page.data.length;
    if (page.data.length === 0 || offset >= page.extra.pagination.total_count) return [...byId.values()];
  }
}

export function listAllWebhooks(api: Pick<WebhooksClient, 'list'>): Promise<WebhookDetail[]> {
  return listAll((page) => api.list(page));
}

export function listAllOperationalEndpoints(
  api: Pick<WebhooksClient, 'operationalEndpoints'>,
): Promise<OperationalEndpoint[]> {
  return listAll((page) => api.operationalEndpoints.list(page));
}

/** Oldest first, by creation time (microsecond digits) and then id: which of two same-marker items is kept. */
export function byAge(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  const [x, y] = [a.created_at, b.created_at];
  return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0) || a.id.localeCompare(b.id);
}
