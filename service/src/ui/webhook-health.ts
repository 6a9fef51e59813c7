// A webhook's health above its deliveries: attempts per hour, succeeded and failed, over the last 24 hours or 7
// days, with response times and the moments its circuit opened or it was archived, and the window's totals.
import { type StatisticsWindow, type WebhookStatistics, windowText } from '@jobhooks/client/contract/statistics';
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import type { UiContext } from './context';
import { h, show } from './dom';
import { healthChart } from './health-chart';
import { shownName } from './managed-as-code';
import { rateText } from './webhook-rows';
import { windowSwitch } from './window-switch';

function totalsLine(stats: WebhookStatistics): HTMLElement {
  const t = stats.totals;
  const ms = (value: number | null) => (value === null ? '—' : `≤ ${value.toLocaleString()} ms`);
  return h(
    'dl',
    { class: 'facts totals' },
    h('dt', {}, 'Success rate'),
    h('dd', { 'data-total': 'success_rate' }, rateText(t.success_rate)),
    h('dt', {}, 'Attempts'),
    h(
      'dd',
      { 'data-total': 'attempts' },
      `${t.attempts_succeeded.toLocaleString()} succeeded, ${t.attempts_failed.toLocaleString()} failed`,
    ),
    h('dt', {}, 'Deliveries'),
    h(
      'dd',
      { 'data-total': 'deliveries' },
      `${t.deliveries_succeeded.toLocaleString()} succeeded, ${t.deliveries_failed.toLocaleString()} failed`,
    ),
    h('dt', {}, 'Response time'),
    h('dd', { 'data-total': 'latency' }, `p50 ${ms(t.p50_ms)}, p95 ${ms(t.p95_ms)}`),
    h('dt', {}, 'Waiting'),
    h('dd', { 'data-total': 'waiting' }, `${stats.pending.toLocaleString()} (${stats.due.toLocaleString()} due)`),
  );
}

/** Draws the health section into `panel`, and again on a change of window. */
export async function renderWebhookHealth(
  ctx: UiContext,
  webhook: WebhookDetail,
  panel: HTMLElement,
  window: StatisticsWindow = '24h',
): Promise<void> {
  panel.setAttribute('aria-busy', 'true');
  let stats: WebhookStatistics;
  try {
    stats = await ctx.api.webhookStatistics(webhook.id, window);
  } catch (error) {
    show(panel, h('p', {}, 'The statistics could not be loaded.'));
    panel.removeAttribute('aria-busy');
    return ctx.fail(error);
  }
  panel.removeAttribute('aria-busy');
  show(
    panel,
    windowSwitch(window, (next) => void renderWebhookHealth(ctx, webhook, panel, next)),
    totalsLine(stats),
    healthChart({
      title: `Attempts per hour to ${shownName(webhook.name)}, last ${windowText(window)}`,
      buckets: stats.buckets,
      markers: stats.markers,
    }),
  );
}
