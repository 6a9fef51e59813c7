// The account overview, the UI's landing page: how deliveries are going (success rate, deliveries per hour), which
// webhooks need attention (failing and paused first, then archived), and the deliveries waiting; each number links
// to the webhook or to the list filtered to it, so any webhook is two clicks away.
import { type AccountStatistics, type StatisticsWindow, windowText } from '@jobhooks/client/contract/statistics';
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import type { UiContext } from './context';
import { h, show } from './dom';
import { healthChart } from './health-chart';
import { timeElement } from './webhook-card';
import { last24Cell, stateCell } from './webhooks-view';
import { deliveriesOf, rateText, rowsOf, type WebhookRow } from './webhook-rows';
import { windowSwitch } from './window-switch';

/** How many webhooks the "waiting" list names; the rest are in the webhooks list. */
const WAITING_SHOWN = 10;

const webhookLink = (row: WebhookRow) => h('a', { href: `#/webhooks/${encodeURIComponent(row.webhook.id)}` }, row.name);

function tile(label: string, value: string, detail: string, href?: string): HTMLElement {
  const body = [
    h('span', { class: 'tile-label' }, label),
    h('strong', { class: 'tile-value' }, value),
    h('span', { class: 'tile-detail' }, detail),
  ];
  return h(
    'li',
    { class: 'tile', 'data-tile': label },
    href === undefined ? h('div', {}, ...body) : h('a', { href }, ...body),
  );
}

function tiles(stats: AccountStatistics, rows: WebhookRow[]): HTMLElement {
  const { totals } = stats;
  const attempts = totals.attempts_succeeded + totals.attempts_failed;
  const count = (pick: (row: WebhookRow) => boolean) => rows.filter(pick).length;
  const failing = count((r) => r.failing);
  const paused = count((r) => r.state === 'paused' || r.state === 'probing');
  const archived = count((r) => r.state === 'archived');
  return h(
    'ul',
    { class: 'tiles', 'aria-label': 'The account at a glance' },
    tile(
      'Success rate, last 24 h',
      rateText(totals.success_rate),
      `${totals.attempts_succeeded.toLocaleString()} of ${attempts.toLocaleString()} attempts succeeded`,
    ),
    tile(
      'Deliveries, last 24 h',
      (totals.deliveries_succeeded + totals.deliveries_failed).toLocaleString(),
      `${totals.deliveries_succeeded.toLocaleString()} succeeded, ${totals.deliveries_failed.toLocaleString()} failed`,
    ),
    tile('Failing webhooks', failing.toLocaleString(), 'last attempt failed', '#/webhooks?state=failing'),
    tile('Open circuits', paused.toLocaleString(), 'paused or probing', '#/webhooks?state=paused'),
    tile('Archived webhooks', archived.toLocaleString(), 'nothing is sent to them', '#/webhooks?state=archived'),
    tile('Due backlog', stats.due.toLocaleString(), `due now, of ${stats.pending.toLocaleString()} waiting`),
  );
}

/** Paused and probing first (nothing goes out), then failing, the longest failing first. */
function attentionOrder(a: WebhookRow, b: WebhookRow): number {
  const pausedA = a.state === 'paused' || a.state === 'probing' ? 0 : 1;
  const pausedB = b.state === 'paused' || b.state === 'probing' ? 0 : 1;
  const since = (r: WebhookRow) => Number(r.stats?.failing_since ?? Number.MAX_SAFE_INTEGER);
  return pausedA - pausedB || since(a) - since(b) || a.name.localeCompare(b.name);
}

function attentionTable(rows: WebhookRow[]): HTMLElement {
  const shown = rows.filter((r) => r.failing || r.state === 'paused' || r.state === 'probing').sort(attentionOrder);
  if (shown.length === 0) return h('p', { class: 'empty' }, 'No webhook is failing or paused.');
  return h(
    'div',
    { class: 'table-frame' },
    h(
      'table',
      { class: 'webhook-table attention' },
      h('caption', { class: 'visually-hidden' }, 'Failing and paused webhooks, paused first, then the longest failing'),
      h(
        'thead',
        {},
        h('tr', {}, ...['Webhook', 'State', 'Last 24 h', 'Waiting'].map((text) => h('th', { scope: 'col' }, text))),
      ),
      h(
        'tbody',
        {},
        ...shown.map((row) =>
          h(
            'tr',
            { 'data-webhook-id': row.webhook.id },
            h('th', { scope: 'row', 'data-label': 'Webhook' }, webhookLink(row)),
            h('td', { 'data-label': 'State' }, ...stateCell(row)),
            h('td', { 'data-label': 'Last 24 h' }, ...last24Cell(row.stats, deliveriesOf(row))),
            h('td', { 'data-label': 'Waiting' }, `${row.stats?.pending ?? 0} (${row.stats?.due ?? 0} due)`),
          ),
        ),
      ),
    ),
  );
}

function archivedList(rows: WebhookRow[]): HTMLElement {
  const archived = rows
    .filter((r) => r.state === 'archived')
    .sort((a, b) => Number(b.webhook.archived_at ?? 0) - Number(a.webhook.archived_at ?? 0));
  if (archived.length === 0) return h('p', { class: 'empty' }, 'No webhook is archived.');
  return h(
    'ul',
    { class: 'plain-list' },
    ...archived.map((row) =>
      h(
        'li',
        { 'data-webhook-id': row.webhook.id },
        webhookLink(row),
        row.webhook.archived_at ? ' — archived ' : '',
        row.webhook.archived_at ? timeElement(row.webhook.archived_at) : '',
        row.webhook.archived_reason ? `: ${row.webhook.archived_reason}` : '',
      ),
    ),
  );
}

function waitingList(rows: WebhookRow[]): HTMLElement {
  const waiting = rows
    .filter((r) => (r.stats?.pending ?? 0) > 0)
    .sort((a, b) => (b.stats?.pending ?? 0) - (a.stats?.pending ?? 0));
  if (waiting.length === 0) return h('p', { class: 'empty' }, 'No delivery is waiting.');
  return h(
    'ul',
    { class: 'plain-list' },
    ...waiting
      .slice(0, WAITING_SHOWN)
      .map((row) =>
        h(
          'li',
          { 'data-webhook-id': row.webhook.id },
          webhookLink(row),
          `: ${row.stats?.pending ?? 0} waiting, ${row.stats?.due ?? 0} due`,
        ),
      ),
  );
}

export async function renderOverview(ctx: UiContext, window: StatisticsWindow = '24h'): Promise<void> {
  show(ctx.main, h('h1', {}, 'Overview'), h('p', { 'aria-busy': 'true' }, 'Loading the overview…'));
  let webhooks: WebhookDetail[];
  let day: AccountStatistics;
  let chartStats: AccountStatistics;
  try {
    [webhooks, day, chartStats] = await Promise.all([
      ctx.api.allWebhooks(),
      ctx.api.accountStatistics('24h'),
      window === '24h' ? Promise.resolve(null) : ctx.api.accountStatistics(window),
    ]).then(([w, d, c]) => [w, d, c ?? d] as const);
  } catch (error) {
    show(ctx.main, h('h1', {}, 'Overview'), h('p', {}, 'The overview could not be loaded.'));
    return ctx.fail(error);
  }
  const rows = rowsOf(webhooks, day.webhooks);
  const section = (title: string, id: string, ...children: Array<Node | string>) =>
    h('section', { 'aria-labelledby': id, class: 'overview-section' }, h('h2', { id }, title), ...children);
  show(
    ctx.main,
    h(
      'div',
      { class: 'page-heading' },
      h('h1', {}, 'Overview'),
      h(
        'div',
        { class: 'actions' },
        h('a', { class: 'button', href: '#/webhooks' }, `All ${webhooks.length} webhooks`),
      ),
    ),
    tiles(day, rows),
    section(
      'Deliveries per hour',
      'overview-chart',
      windowSwitch(window, (next) => void renderOverview(ctx, next)),
      healthChart({
        title: `Attempts per hour, all webhooks, last ${windowText(window)}`,
        buckets: chartStats.buckets,
      }),
    ),
    section(
      'Failing and paused',
      'overview-attention',
      attentionTable(rows),
      h('p', {}, h('a', { href: '#/webhooks?state=failing' }, 'All failing webhooks')),
    ),
    section('Archived', 'overview-archived', archivedList(rows)),
    section('Waiting deliveries', 'overview-waiting', waitingList(rows)),
  );
}
