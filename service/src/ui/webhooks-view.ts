// The Webhooks page: every webhook of the account, and the warning banner while any is archived.
import { countText, DELIVERY_RULES, durationText } from '@jobhooks/client/contract/delivery-rules';
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import type { UiContext } from './context';
import { h, show, uniqueId } from './dom';
import { archivedBannerVisible, dismissBannerFor, dismissedArchivings } from './session';
import { webhookActions } from './webhook-actions';
import { webhookBadges, webhookFacts } from './webhook-card';
import { shownName } from './managed-as-code';

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

function webhookCard(ctx: UiContext, webhook: WebhookDetail, reload: () => void): HTMLElement {
  const titleId = uniqueId('webhook');
  return h(
    'article',
    {
      class: `webhook ${webhook.archived ? 'is-archived' : ''}`,
      'aria-labelledby': titleId,
      'data-webhook-id': webhook.id,
    },
    h(
      'header',
      {},
      h(
        'h3',
        { id: titleId },
        h('a', { href: `#/webhooks/${encodeURIComponent(webhook.id)}` }, shownName(webhook.name)),
      ),
      webhookBadges(webhook),
    ),
    webhookFacts(webhook),
    ...webhookActions(ctx, webhook, { changed: reload, deleted: reload }),
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
  try {
    webhooks = await ctx.api.allWebhooks();
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
  list.removeAttribute('aria-busy');
  if (webhooks.length === 0) {
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
  show(list, ...webhooks.map((webhook) => webhookCard(ctx, webhook, reload)));
}
