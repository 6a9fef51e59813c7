// One operational endpoint's page and its edit form: its facts, Edit and Rotate secret, and its Recent Deliveries,
// drawn by the webhook's own log, form and rotation views with the endpoint's API paths.
import type { OperationalEndpoint } from '@jobhooks/client/contract/operational';
import type { UiContext } from './context';
import { type DeliveryLogView, renderDeliveries } from './deliveries-view';
import { h, show } from './dom';
import { stateText } from './operational-view';
import { rotateSecretButton } from './secret-actions';
import { fact, overlapFact, timeElement } from './webhook-card';
import { operationalEndpointForm } from './webhook-form';

const ALL = '#/operational';

function pageOf(id: string): string {
  return `${ALL}/${encodeURIComponent(id)}`;
}

/** Reads the endpoint; on failure shows the way back and the problem. */
async function load(ctx: UiContext, id: string): Promise<OperationalEndpoint | null> {
  try {
    return await ctx.api.operationalEndpoint(id);
  } catch (error) {
    show(ctx.main, h('p', {}, h('a', { href: ALL }, '← All operational endpoints')));
    ctx.fail(error);
    return null;
  }
}

function facts(endpoint: OperationalEndpoint): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    ...fact('Endpoint', h('code', { class: 'url' }, endpoint.client_url)),
    ...fact('Event types', endpoint.event_types.join(', ')),
    ...fact('State', stateText(endpoint)),
    ...overlapFact(endpoint.previous_secret_expires_at, false),
    ...fact('Description', endpoint.description || '—'),
    ...fact('Created', timeElement(endpoint.created_at)),
    ...fact('Id', h('code', {}, endpoint.id)),
  );
}

/** `deliveriesView` keeps the log's page and filters in view when a redelivery draws the page again. */
export async function renderOperationalDetails(
  ctx: UiContext,
  id: string,
  deliveriesView?: DeliveryLogView,
): Promise<void> {
  show(ctx.main, h('p', { 'aria-busy': 'true' }, 'Loading the operational endpoint…'));
  const endpoint = await load(ctx, id);
  if (endpoint === null) return;
  const owner = ctx.api.operationalOwner(endpoint);
  const redraw = (view?: DeliveryLogView) => void renderOperationalDetails(ctx, id, view);
  const deliveries = h('div', { class: 'deliveries-panel' });
  show(
    ctx.main,
    h('p', {}, h('a', { href: ALL }, '← All operational endpoints')),
    h(
      'article',
      { class: `webhook detail ${endpoint.archived ? 'is-archived' : ''}`, 'aria-labelledby': 'endpoint-title' },
      h('header', {}, h('h1', { id: 'endpoint-title' }, endpoint.name)),
      facts(endpoint),
      ctx.canWrite &&
        h(
          'div',
          { class: 'actions' },
          h('a', { class: 'button', href: `${pageOf(endpoint.id)}/edit` }, 'Edit'),
          rotateSecretButton(ctx, owner, () => redraw()),
        ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'deliveries-title' },
      h('h2', { id: 'deliveries-title' }, 'Recent Deliveries'),
      deliveries,
    ),
  );
  await renderDeliveries(ctx, owner, deliveries, deliveriesView, redraw);
}

/** The edit form: a full replacement, so a new URL or Active reactivates an archived endpoint, as for a webhook. */
export async function renderOperationalForm(ctx: UiContext, id: string): Promise<void> {
  if (!ctx.canWrite) {
    show(
      ctx.main,
      h(
        'p',
        {},
        `The permission set "${ctx.account.permission_set ?? 'unknown'}" cannot change operational endpoints.`,
      ),
      h('a', { href: pageOf(id) }, '← Back'),
    );
    return;
  }
  const endpoint = await load(ctx, id);
  if (endpoint === null) return;
  show(
    ctx.main,
    operationalEndpointForm({
      existing: endpoint,
      cancel: () => ctx.go(pageOf(endpoint.id)),
      submit: async (fields) => {
        await ctx.api.updateOperationalEndpoint(endpoint.id, fields);
        ctx.notify(`${fields.name} is saved.`);
        ctx.go(pageOf(endpoint.id));
      },
    }),
  );
}
