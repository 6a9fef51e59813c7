// The webhooks list's model, apart from the page: each webhook with its 24-hour statistics, the state it is in,
// and the view's search, filter and sort, read from and written to the URL so that a filtered view can be shared.
// Pure functions of the API's values, tested without a browser.
import type { WebhookStatisticsSummary } from '@jobhooks/client/contract/statistics';
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import { shownName } from './managed-as-code';

/** What a webhook is doing, as the State column and the filter name it. */
export type RowState = 'archived' | 'inactive' | 'paused' | 'probing' | 'active';

export interface WebhookRow {
  webhook: WebhookDetail;
  /** Its line of the account's statistics; null when the statistics could not be read. */
  stats: WebhookStatisticsSummary | null;
  name: string;
  host: string;
  state: RowState;
  /** Its last automatic attempt failed (and it is not archived): failing since `stats.failing_since`. */
  failing: boolean;
}

export const STATE_WORDS: Record<RowState, string> = {
  archived: 'Archived',
  inactive: 'Inactive',
  paused: 'Paused (circuit open)',
  probing: 'Probing',
  active: 'Active',
};

export const FILTERS = ['all', 'failing', 'paused', 'archived', 'inactive'] as const;
export type Filter = (typeof FILTERS)[number];
export const FILTER_WORDS: Record<Filter, string> = {
  all: 'All',
  failing: 'Failing',
  paused: 'Paused',
  archived: 'Archived',
  inactive: 'Inactive',
};

export const SORTS = ['name', 'host', 'events', 'state', 'status', 'rate', 'deliveries', 'dispatched'] as const;
export type SortKey = (typeof SORTS)[number];

export interface ListView {
  q: string;
  filter: Filter;
  sort: SortKey;
  dir: 'asc' | 'desc';
}

export const DEFAULT_VIEW: ListView = { q: '', filter: 'all', sort: 'name', dir: 'asc' };

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function stateOfRow(webhook: WebhookDetail): RowState {
  if (webhook.archived) return 'archived';
  if (!webhook.active) return 'inactive';
  if (webhook.delivery_circuit === 'open') return 'paused';
  if (webhook.delivery_circuit === 'probing') return 'probing';
  return 'active';
}

export function rowOf(webhook: WebhookDetail, stats: WebhookStatisticsSummary | null): WebhookRow {
  const state = stateOfRow(webhook);
  return {
    webhook,
    stats,
    name: shownName(webhook.name),
    host: hostOf(webhook.client_url),
    state,
    failing: state !== 'archived' && (stats?.failing_since ?? null) !== null,
  };
}

/** Every webhook with its line of the statistics (matched by id). */
export function rowsOf(webhooks: readonly WebhookDetail[], stats: readonly WebhookStatisticsSummary[]): WebhookRow[] {
  const byId = new Map(stats.map((s) => [s.webhook_id, s]));
  return webhooks.map((webhook) => rowOf(webhook, byId.get(webhook.id) ?? null));
}

export function deliveriesOf(row: WebhookRow): number {
  return row.stats === null ? 0 : row.stats.totals.deliveries_succeeded + row.stats.totals.deliveries_failed;
}

function matchesFilter(row: WebhookRow, filter: Filter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'failing':
      return row.failing;
    case 'paused':
      return row.state === 'paused' || row.state === 'probing';
    case 'archived':
      return row.state === 'archived';
    case 'inactive':
      return row.state === 'inactive';
  }
}

/** Search by name (as shown) or URL, case-insensitive. */
function matchesSearch(row: WebhookRow, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (needle === '') return true;
  return row.name.toLowerCase().includes(needle) || row.webhook.client_url.toLowerCase().includes(needle);
}

/** Failing first within a state, so "state" sorts the worst to the top when descending. */
const STATE_ORDER: Record<RowState, number> = { active: 0, probing: 1, paused: 2, inactive: 3, archived: 4 };

function sortValue(row: WebhookRow, key: SortKey): string | number {
  switch (key) {
    case 'name':
      return row.name.toLowerCase();
    case 'host':
      return row.host.toLowerCase();
    case 'events':
      return row.webhook.event_types.join(',');
    case 'state':
      return STATE_ORDER[row.state] * 2 + (row.failing ? 1 : 0);
    case 'status':
      return Number(row.webhook.http_status_code);
    case 'rate':
      // No attempts sorts above every rate when ascending: there is nothing to worry about.
      return row.stats?.totals.success_rate ?? 2;
    case 'deliveries':
      return deliveriesOf(row);
    case 'dispatched':
      return Number(row.webhook.dispatched_at ?? 0);
  }
}

/** The rows the view shows, in its order (ties by name, then id, so the order is stable). */
export function visibleRows(rows: readonly WebhookRow[], view: ListView): WebhookRow[] {
  const sign = view.dir === 'asc' ? 1 : -1;
  const compare = (a: WebhookRow, b: WebhookRow): number => {
    const x = sortValue(a, view.sort);
    const y = sortValue(b, view.sort);
    if (x < y) return -sign;
    if (x > y) return sign;
    return a.name.localeCompare(b.name) || a.webhook.id.localeCompare(b.webhook.id);
  };
  return rows.filter((row) => matchesFilter(row, view.filter) && matchesSearch(row, view.q)).sort(compare);
}

const oneOf = <T extends string>(all: readonly T[], value: string | null, fallback: T): T =>
  all.includes(value as T) ? (value as T) : fallback;

/** The view a URL's query holds ("q=orders&state=failing&sort=rate&dir=asc"); what is missing or unknown is the default. */
export function viewOfQuery(query: string): ListView {
  const params = new URLSearchParams(query);
  return {
    q: params.get('q') ?? '',
    filter: oneOf(FILTERS, params.get('state'), DEFAULT_VIEW.filter),
    sort: oneOf(SORTS, params.get('sort'), DEFAULT_VIEW.sort),
    dir: params.get('dir') === 'desc' ? 'desc' : 'asc',
  };
}

/** The query of a view, leaving out what is the default, so the plain list's URL stays "#/webhooks". */
export function queryOfView(view: ListView): string {
  const params = new URLSearchParams();
  if (view.q !== '') params.set('q', view.q);
  if (view.filter !== DEFAULT_VIEW.filter) params.set('state', view.filter);
  if (view.sort !== DEFAULT_VIEW.sort) params.set('sort', view.sort);
  if (view.dir !== DEFAULT_VIEW.dir) params.set('dir', view.dir);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** A success rate in words: "97.5 %", or "—" with no attempts. */
export function rateText(rate: number | null | undefined): string {
  if (rate === null || rate === undefined) return '—';
  // Rounded down, so 99.96 % never reads as a clean 100 %.
  const percent = rate * 100;
  return percent === 100 || percent === 0 ? `${percent} %` : `${(Math.floor(percent * 10) / 10).toFixed(1)} %`;
}
