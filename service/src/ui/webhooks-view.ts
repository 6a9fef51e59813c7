// The Webhooks page: every webhook of the account as a table (name, endpoint, events, state, last status, the last
// 24 hours, last dispatch), with search, a state filter and a sort on every column, all kept in the URL
// (#/webhooks?q=...&state=...&sort=...&dir=...) so a view can be shared; and the banner while any is archived.
import { type StatisticsWindow, type WebhookStatisticsSummary, windowText } from '@jobhooks/client/contract/statistics';
import { countText, DELIVERY_RULES, durationText } from '@jobhooks/client/contract/delivery-rules';
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import type { UiContext } from './context';
import { h, show, uniqueId } from './dom';
import { archivedBannerVisible, dismissBannerFor, dismissedArchivings } from './session';
import { rowActions } from './webhook-actions';
import { timeElement, webhookBadges } from './webhook-card';
import { managedBadge, shownName } from './managed-as-code';
import { sparkline } from './svg';
import {
  deliveriesOf,
  FILTER_WORDS,
  FILTERS,
  type ListView,
  queryOfView,
  rateText,
  rowsOf,
  type SortKey,
  STATE_WORDS,
  viewOfQuery,
  visibleRows,
  type WebhookRow,
} from './webhook-rows';

/** Rows added to the table at a time: more than a screenful, few enough to lay out at once (see addRest). */
const ROWS_AT_ONCE = 100;

/** The list's statistics cover the last day. */
const LIST_WINDOW: StatisticsWindow = '24h';

function archivedBanner(archived: WebhookDetail[], onDismiss: () => void): HTMLElement {
  const names = archived.map((webhook) => shownName(webhook.name)).join(', ');
  return h(
    'section',
    { class: 'banner warning', role: 'region', 'aria-label': 'Archived webhooks' },
    h(
      'div',
      {},
      h('strong', {}, archived.length === 1 ? '1 webhook is archived' : `${archived.length} webhooks are archived`),
      `: ${names}. `,
      'Events are no longer sent to an archived webhook: its endpoint failed ' +
        `${countText(DELIVERY_RULES.archiveAfterFailedDeliveries)} deliveries in a row, failed for ` +
        `${durationText(DELIVERY_RULES.archiveAfterFailingDays * 86_400)}, or answered 410 Gone. `,
      'Fix the endpoint, then choose Reactivate, or edit the webhook and change its URL.',
    ),
    h(
      'button',
      { type: 'button', class: 'dismiss', 'aria-label': 'Dismiss the archived webhooks warning', onclick: onDismiss },
      'Dismiss',
    ),
  );
}

const COLUMNS: Array<{ key: SortKey; label: string }> = [
  { key: 'name', label: 'Name' },
  { key: 'host', label: 'Endpoint' },
  { key: 'events', label: 'Events' },
  { key: 'state', label: 'State' },
  { key: 'status', label: 'Last status' },
  { key: 'rate', label: 'Last 24 h' },
  { key: 'dispatched', label: 'Last dispatch' },
];

/** The 24-hour cell: success rate, deliveries, and the hourly trend. */
export function last24Cell(stats: WebhookStatisticsSummary | null, deliveries: number): Array<Node | string> {
  if (stats === null) return [h('span', { class: 'muted' }, 'No statistics')];
  const { totals } = stats;
  const attempts = totals.attempts_succeeded + totals.attempts_failed;
  return [
    h('span', { class: 'rate', 'data-rate': String(totals.success_rate ?? '') }, rateText(totals.success_rate)),
    ' ',
    h(
      'span',
      { class: 'deliveries' },
      `${deliveries.toLocaleString()} ${deliveries === 1 ? 'delivery' : 'deliveries'}`,
    ),
    sparkline(
      stats.trend_succeeded,
      stats.trend_failed,
      `Attempts per hour over the last ${windowText(LIST_WINDOW)}: ${attempts} in all, ${totals.attempts_failed} failed`,
    ),
  ];
}

/** The State cell: what the webhook is doing, and since when it fails. */
export function stateCell(row: WebhookRow): Array<Node | string> {
  const since = row.stats?.failing_since ?? null;
  return [
    h('span', { class: `state ${row.state}` }, STATE_WORDS[row.state]),
    row.failing && since !== null ? h('span', { class: 'failing' }, 'Failing since ', timeElement(since)) : '',
  ];
}

function eventsText(types: readonly string[]): string {
  return types.map((type) => type.replace(/^job\.run\./, '')).join(', ');
}

function tableRow(ctx: UiContext, row: WebhookRow, reload: () => void): HTMLTableRowElement {
  const { webhook } = row;
  const cell = (label: string, ...children: Array<Node | string>) => h('td', { 'data-label': label }, ...children);
  return h(
    'tr',
    {
      'data-webhook-id': webhook.id,
      class: row.failing ? 'is-failing' : row.state === 'archived' ? 'is-archived' : '',
    },
    h(
      'th',
      { scope: 'row', 'data-label': 'Name' },
      h('a', { class: 'name', href: `#/webhooks/${encodeURIComponent(webhook.id)}` }, row.name),
      managedBadge(webhook.name),
    ),
    cell('Endpoint', h('code', { class: 'host', title: webhook.client_url }, row.host)),
    cell('Events', eventsText(webhook.event_types)),
    cell('State', ...stateCell(row)),
    cell('Last status', webhookBadges(webhook, false)),
    cell('Last 24 h', ...last24Cell(row.stats, deliveriesOf(row))),
    cell('Last dispatch', webhook.dispatched_at ? timeElement(webhook.dispatched_at) : 'Never'),
    ...(ctx.canWrite ? [cell('Actions', ...rowActions(ctx, webhook, { changed: reload, deleted: reload }))] : []),
  );
}

/** The part of the hash after "?" while the list is shown. */
function currentQuery(): string {
  const at = location.hash.indexOf('?');
  return at === -1 ? '' : location.hash.slice(at + 1);
}

function webhooksTable(ctx: UiContext, rows: WebhookRow[], reload: () => void): HTMLElement {
  let view: ListView = viewOfQuery(currentQuery());
  // Each row's element is made the first time the view shows it, and kept for the next view.
  const made = new Map<string, HTMLTableRowElement>();
  const trOf = (row: WebhookRow): HTMLTableRowElement => {
    let tr = made.get(row.webhook.id);
    if (tr === undefined) {
      tr = tableRow(ctx, row, reload);
      made.set(row.webhook.id, tr);
    }
    return tr;
  };
  /** Which view's rows are being added; a newer view stops an older one's. */
  let drawing = 0;
  const body = h('tbody', {});
  const count = h('p', { class: 'count', role: 'status', 'aria-live': 'polite' });
  const searchId = uniqueId('search');
  const search = h('input', {
    id: searchId,
    type: 'search',
    value: view.q,
    placeholder: 'Name or URL',
    autocomplete: 'off',
  });
  const filterId = uniqueId('filter');
  const counts = new Map(FILTERS.map((f) => [f, visibleRows(rows, { ...view, q: '', filter: f }).length]));
  const filter = h(
    'select',
    { id: filterId },
    ...FILTERS.map((f) =>
      h('option', { value: f, selected: f === view.filter }, `${FILTER_WORDS[f]} (${counts.get(f) ?? 0})`),
    ),
  );
  const headers = COLUMNS.map(({ key, label }) => {
    const button = h('button', { type: 'button', class: 'sort', 'data-sort': key }, label);
    const th = h('th', { scope: 'col' }, button);
    button.addEventListener('click', () =>
      apply({ ...view, sort: key, dir: view.sort === key && view.dir === 'asc' ? 'desc' : 'asc' }),
    );
    return { key, th };
  });

  function apply(next: ListView): void {
    view = next;
    const visible = visibleRows(rows, view);
    drawing += 1;
    body.replaceChildren(...visible.slice(0, ROWS_AT_ONCE).map(trOf));
    addRest(visible, ROWS_AT_ONCE, drawing);
    count.textContent =
      visible.length === rows.length
        ? `${rows.length} ${rows.length === 1 ? 'webhook' : 'webhooks'}`
        : `Showing ${visible.length} of ${rows.length} webhooks`;
    for (const { key, th } of headers)
      th.setAttribute('aria-sort', key !== view.sort ? 'none' : view.dir === 'asc' ? 'ascending' : 'descending');
    // The view is in the URL for sharing; replaceState changes it without a new history entry or a redraw.
    history.replaceState(null, '', `#/webhooks${queryOfView(view)}`);
  }
  /**
   * The rows past the first screenful go in a batch a task, so the page answers (search, filter, sort, scrolling)
   * while a list of 1,000 is still being laid out, rather than after the whole table is.
   */
  function addRest(visible: WebhookRow[], from: number, draw: number): void {
    if (from >= visible.length) return;
    setTimeout(() => {
      if (draw !== drawing) return;
      body.append(...visible.slice(from, from + ROWS_AT_ONCE).map(trOf));
      addRest(visible, from + ROWS_AT_ONCE, draw);
    }, 0);
  }
  search.addEventListener('input', () => apply({ ...view, q: search.value }));
  filter.addEventListener('change', () => apply({ ...view, filter: filter.value as ListView['filter'] }));

  const table = h(
    'table',
    { class: 'webhook-table all-webhooks' },
    h('caption', { class: 'visually-hidden' }, 'Webhooks; column headers sort the table'),
    h('thead', {}, h('tr', {}, ...headers.map(({ th }) => th), ctx.canWrite && h('th', { scope: 'col' }, 'Actions'))),
    body,
  );
  apply(view);
  return h(
    'div',
    { class: 'webhook-list' },
    h(
      'div',
      { class: 'list-controls', role: 'search' },
      h('label', { for: searchId }, 'Search'),
      search,
      h('label', { for: filterId }, 'Show'),
      filter,
    ),
    count,
    h('div', { class: 'table-frame' }, table),
  );
}

export async function renderWebhooksPage(ctx: UiContext): Promise<void> {
  const banner = h('div', {});
  const list = h('div', { class: 'webhook-list', 'aria-busy': 'true' }, h('p', {}, 'Loading webhooks…'));
  const reload = () => void renderWebhooksPage(ctx);
  show(
    ctx.main,
    h(
      'div',
      { class: 'page-heading' },
      h('h1', {}, 'Webhooks'),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', onclick: reload }, 'Refresh'),
        ctx.canWrite && h('a', { class: 'button primary', href: '#/new' }, 'New webhook'),
      ),
    ),
    banner,
    list,
  );
  let webhooks: WebhookDetail[];
  let stats: WebhookStatisticsSummary[] = [];
  try {
    const [all, statistics] = await Promise.all([
      ctx.api.allWebhooks(),
      // The list is still useful without its statistics: a failure to read them shows no numbers, not no list.
      ctx.api.accountStatistics(LIST_WINDOW).catch((error: unknown) => {
        ctx.fail(error);
        return null;
      }),
    ]);
    webhooks = all;
    stats = statistics?.webhooks ?? [];
  } catch (error) {
    show(list, h('p', {}, 'The webhooks could not be loaded.'));
    list.removeAttribute('aria-busy');
    return ctx.fail(error);
  }
  const archived = webhooks.filter((webhook) => webhook.archived);
  if (archivedBannerVisible(archived, dismissedArchivings())) {
    show(
      banner,
      archivedBanner(archived, () => {
        dismissBannerFor(archived);
        show(banner);
      }),
    );
  }
  if (webhooks.length === 0) {
    list.removeAttribute('aria-busy');
    show(
      list,
      h(
        'p',
        { class: 'empty' },
        ctx.canWrite
          ? 'No webhooks yet. Choose New webhook to send job-run events to an endpoint.'
          : 'No webhooks yet.',
      ),
    );
    return;
  }
  list.replaceWith(webhooksTable(ctx, rowsOf(webhooks, stats), reload));
}
