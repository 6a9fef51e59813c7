// Recent Deliveries of one webhook (the API keeps 7 days): one row per attempt, newest first, paged,
// with Redeliver on failed ones.
import type { DeliveryAttemptView } from '@jobhooks/client/contract/delivery';
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import type { UiContext } from './context';
import { h, show } from './dom';
import { timeElement } from './webhook-card';

export const DELIVERIES_PER_PAGE = 20;

function resultCell(attempt: DeliveryAttemptView): HTMLElement {
  return h(
    'td',
    {},
    h('span', { class: `badge ${attempt.success ? 'success' : 'failure'}` }, attempt.success ? 'Succeeded' : 'Failed'),
  );
}

/**
 * Redeliver is offered on a delivery's newest attempt when that attempt failed: the button sends the whole
 * delivery again, so one per delivery, and none once a later attempt has succeeded.
 */
function redeliverCell(
  ctx: UiContext,
  webhook: WebhookDetail,
  attempt: DeliveryAttemptView,
  newest: boolean,
  reload: () => void,
): HTMLElement {
  if (!ctx.canWrite || !newest || attempt.success || attempt.delivery_id === null) return h('td', {});
  const deliveryId = attempt.delivery_id;
  const button = h(
    'button',
    { type: 'button', 'aria-label': `Redeliver attempt ${attempt.attempt} of event ${attempt.event_id}` },
    'Redeliver',
  );
  button.addEventListener('click', () => {
    button.disabled = true;
    ctx.api
      .redeliver(webhook.id, deliveryId)
      .then((sent) => {
        ctx.notify(
          sent.success
            ? `Redelivered: the endpoint answered HTTP ${sent.http_status_code}.`
            : `Redelivery failed (HTTP ${sent.http_status_code}): ${sent.error ?? ''}`,
        );
        reload();
      })
      .catch((error: unknown) => {
        button.disabled = false;
        ctx.fail(error);
      });
  });
  return h('td', {}, button);
}

function attemptRow(
  ctx: UiContext,
  webhook: WebhookDetail,
  attempt: DeliveryAttemptView,
  newest: boolean,
  reload: () => void,
): HTMLElement {
  return h(
    'tr',
    { class: attempt.success ? 'success' : 'failure' },
    h('td', {}, timeElement(attempt.requested_at)),
    h('td', {}, attempt.event_type, attempt.test ? h('span', { class: 'tag' }, ' test') : null),
    h('td', { class: 'number' }, String(attempt.attempt)),
    h('td', { class: 'number' }, attempt.http_status_code === '599' ? 'none' : attempt.http_status_code),
    h('td', { class: 'number' }, `${attempt.duration_ms} ms`),
    resultCell(attempt),
    h('td', { class: 'error-text' }, attempt.error ?? ''),
    redeliverCell(ctx, webhook, attempt, newest, reload),
  );
}

/** The first (newest, as the list is ordered) attempt of each delivery on the page. */
function newestAttempts(items: readonly DeliveryAttemptView[]): Set<DeliveryAttemptView> {
  const seen = new Set<string>();
  return new Set(
    items.filter(
      (attempt) => attempt.delivery_id === null || (!seen.has(attempt.delivery_id) && seen.add(attempt.delivery_id)),
    ),
  );
}

/**
 * Draws one page of the log into `into`. `redelivered` runs after a redelivery (the webhook's status
 * changed too); by default only the log is drawn again.
 */
export async function renderDeliveries(
  ctx: UiContext,
  webhook: WebhookDetail,
  into: HTMLElement,
  offset = 0,
  redelivered?: (offset: number) => void,
): Promise<void> {
  const reload = () => (redelivered ? redelivered(offset) : void renderDeliveries(ctx, webhook, into, offset));
  const refresh = h(
    'button',
    { type: 'button', onclick: () => void renderDeliveries(ctx, webhook, into, offset, redelivered) },
    'Refresh deliveries',
  );
  into.setAttribute('aria-busy', 'true');
  let page;
  try {
    page = await ctx.api.deliveries(webhook.id, offset, DELIVERIES_PER_PAGE);
  } catch (error) {
    into.removeAttribute('aria-busy');
    show(into, h('p', {}, 'The deliveries could not be loaded.'));
    return ctx.fail(error);
  }
  into.removeAttribute('aria-busy');
  if (page.items.length === 0 && offset === 0) {
    show(into, h('p', { class: 'empty' }, 'No deliveries in the last 7 days.'), refresh);
    return;
  }
  const last = Math.min(offset + page.items.length, page.total);
  const previous = h('button', { type: 'button', disabled: offset === 0 }, 'Newer');
  const next = h('button', { type: 'button', disabled: last >= page.total }, 'Older');
  previous.addEventListener(
    'click',
    () => void renderDeliveries(ctx, webhook, into, Math.max(0, offset - DELIVERIES_PER_PAGE), redelivered),
  );
  next.addEventListener(
    'click',
    () => void renderDeliveries(ctx, webhook, into, offset + DELIVERIES_PER_PAGE, redelivered),
  );
  const newest = newestAttempts(page.items);
  show(
    into,
    h(
      'div',
      { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Recent deliveries table' },
      h(
        'table',
        { class: 'deliveries' },
        h(
          'caption',
          { class: 'visually-hidden' },
          `Delivery attempts ${offset + 1} to ${last} of ${page.total}, newest first`,
        ),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Time', 'Event', 'Attempt', 'Status', 'Duration', 'Result', 'Error', ''].map((title) =>
              h('th', { scope: 'col' }, title),
            ),
          ),
        ),
        h('tbody', {}, ...page.items.map((attempt) => attemptRow(ctx, webhook, attempt, newest.has(attempt), reload))),
      ),
    ),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Delivery pages' },
      previous,
      h('span', {}, `${offset + 1}–${last} of ${page.total}`),
      next,
      refresh,
    ),
  );
}
