// One webhook's page: its facts, its actions, its health over time, and its Recent Deliveries.
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import type { UiContext } from './context';
import { type DeliveryLogView, renderDeliveries } from './deliveries-view';
import { h, show } from './dom';
import { webhookActions } from './webhook-actions';
import { webhookBadges, webhookFacts } from './webhook-card';
import { renderWebhookHealth } from './webhook-health';
import { shownName } from './managed-as-code';

/** `deliveriesView` keeps the log's page and filters in view when a redelivery or a recovery draws the page again. */
export async function renderWebhookDetails(
  ctx: UiContext,
  id: string,
  deliveriesView?: DeliveryLogView,
): Promise<void> {
  show(ctx.main, h('p', { 'aria-busy': 'true' }, 'Loading the webhook…'));
  let webhook: WebhookDetail;
  try {
    webhook = await ctx.api.webhook(id);
  } catch (error) {
    show(ctx.main, h('p', {}, h('a', { href: '#/webhooks' }, '← All webhooks')));
    return ctx.fail(error);
  }
  const deliveries = h('div', { class: 'deliveries-panel' });
  const health = h('div', { class: 'health-panel' });
  show(
    ctx.main,
    h('p', {}, h('a', { href: '#/webhooks' }, '← All webhooks')),
    h(
      'article',
      { class: `webhook detail ${webhook.archived ? 'is-archived' : ''}`, 'aria-labelledby': 'webhook-title' },
      h('header', {}, h('h1', { id: 'webhook-title' }, shownName(webhook.name)), webhookBadges(webhook)),
      webhookFacts(webhook, true),
      ...webhookActions(ctx, webhook, {
        changed: () => void renderWebhookDetails(ctx, id),
        deleted: () => ctx.go('#/webhooks'),
      }),
    ),
    h('section', { 'aria-labelledby': 'health-title' }, h('h2', { id: 'health-title' }, 'Health'), health),
    h(
      'section',
      { 'aria-labelledby': 'deliveries-title' },
      h('h2', { id: 'deliveries-title' }, 'Recent Deliveries'),
      deliveries,
    ),
  );
  await Promise.all([
    renderWebhookHealth(ctx, webhook, health),
    renderDeliveries(
      ctx,
      ctx.api.webhookOwner(webhook),
      deliveries,
      deliveriesView,
      (view) => void renderWebhookDetails(ctx, id, view),
    ),
  ]);
}
