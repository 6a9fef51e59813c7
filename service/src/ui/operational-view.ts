// The account's operational endpoints (docs/operational-webhooks.md): where jobhooks tells the owners that webhooks
// are failing, archived, or that a delivery failed for good. Lists them, each linked to its page (operational-details.ts),
// adds one (its secret shown once), deletes.
import { OPERATIONAL_EVENT_TYPES } from '@jobhooks/client/contract/closed-lists';
import type { CreatedOperationalEndpoint, OperationalEndpoint } from '@jobhooks/client/contract/operational';
import type { UiContext } from './context';
import { confirmAction, showSecretOnce } from './dialogs';
import { busy, h, show, uniqueId } from './dom';

/** What each event type tells, in the words of the form. */
const TYPE_TEXT: Record<(typeof OPERATIONAL_EVENT_TYPES)[number], string> = {
  'webhook.archived': 'a webhook is archived',
  'webhook.failing': 'a webhook keeps failing (50, 70, 90 and 100 % of the archive threshold)',
  'webhook.circuit_opened': "a webhook's endpoint stops answering and its circuit opens",
  'webhook.recovered': 'that endpoint answers again',
  'delivery.exhausted': 'a delivery fails for good',
};

export function stateText(endpoint: OperationalEndpoint): string {
  if (endpoint.archived) return `Archived: ${endpoint.archived_reason ?? ''}`;
  return endpoint.active ? 'Active' : 'Inactive';
}

function row(ctx: UiContext, endpoint: OperationalEndpoint, redraw: () => void): HTMLElement {
  const remove = h('button', { type: 'button' }, 'Delete');
  remove.addEventListener('click', () =>
    busy(remove, async () => {
      const sure = await confirmAction(
        `Delete ${endpoint.name}?`,
        'It receives no more operational events; its delivery log goes with it.',
        'Delete',
      );
      if (!sure) return;
      try {
        await ctx.api.removeOperationalEndpoint(endpoint.id);
        ctx.notify(`Operational endpoint ${endpoint.name} deleted.`);
        redraw();
      } catch (error) {
        ctx.fail(error);
      }
    }),
  );
  return h(
    'tr',
    { 'data-endpoint-id': endpoint.id },
    h('th', { scope: 'row' }, h('a', { href: `#/operational/${encodeURIComponent(endpoint.id)}` }, endpoint.name)),
    h('td', {}, h('code', {}, endpoint.client_url)),
    h('td', {}, endpoint.event_types.join(', ')),
    h('td', {}, stateText(endpoint)),
    h('td', {}, ctx.canWrite ? remove : null),
  );
}

function addForm(ctx: UiContext, redraw: () => void): HTMLElement {
  const nameId = uniqueId('op-name');
  const urlId = uniqueId('op-url');
  const name = h('input', { id: nameId, name: 'name', type: 'text', required: true, maxlength: 255 });
  const url = h('input', { id: urlId, name: 'client_url', type: 'url', required: true });
  const boxes = OPERATIONAL_EVENT_TYPES.map((type) => ({
    type,
    box: h('input', { type: 'checkbox', name: 'event_types', value: type, checked: true }),
  }));
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Add operational endpoint');
  const form = h(
    'form',
    { 'aria-label': 'Add an operational endpoint' },
    h('h2', {}, 'Add an operational endpoint'),
    h('p', {}, h('label', { for: nameId }, 'Name'), name),
    h('p', {}, h('label', { for: urlId }, 'Endpoint URL'), url),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Send an event when'),
      ...boxes.map(({ type, box }) => h('label', {}, box, ` ${TYPE_TEXT[type]} (${type})`)),
    ),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(submit, async () => {
      let created: CreatedOperationalEndpoint;
      try {
        created = await ctx.api.createOperationalEndpoint({
          name: name.value,
          client_url: url.value,
          event_types: boxes.filter(({ box }) => box.checked).map(({ type }) => type),
        });
      } catch (error) {
        ctx.fail(error);
        return;
      }
      await showSecretOnce(created.name, created.hmac_secret, {
        storeHint: 'The endpoint verifies every operational event with it, by either signature scheme.',
      });
      ctx.notify(`Operational endpoint ${created.name} added.`);
      redraw();
    });
  });
  return form;
}

export async function renderOperationalPage(ctx: UiContext): Promise<void> {
  const redraw = () => void renderOperationalPage(ctx);
  let endpoints: OperationalEndpoint[];
  try {
    endpoints = await ctx.api.operationalEndpoints();
  } catch (error) {
    ctx.fail(error);
    return;
  }
  show(
    ctx.main,
    h('h1', {}, 'Operational endpoints'),
    h(
      'p',
      {},
      'These endpoints hear from jobhooks when the account’s webhooks fail, are archived or stop answering, ' +
        'signed and retried like every delivery. Nothing is sent about an operational endpoint itself.',
    ),
    endpoints.length === 0
      ? h('p', { class: 'empty' }, 'No operational endpoint yet.')
      : h(
          'table',
          { 'aria-label': 'Operational endpoints' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'Name'),
              h('th', { scope: 'col' }, 'URL'),
              h('th', { scope: 'col' }, 'Events'),
              h('th', { scope: 'col' }, 'State'),
              h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
            ),
          ),
          h('tbody', {}, ...endpoints.map((endpoint) => row(ctx, endpoint, redraw))),
        ),
    ctx.canWrite ? addForm(ctx, redraw) : null,
  );
}
