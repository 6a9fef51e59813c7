// The buttons that act on one webhook: on its page, active switch, reactivate, edit, send test, rotate secret (and
// end its overlap while one lasts), delete; in the webhooks table, the switch, edit and delete. None is drawn for a
// token that cannot write.
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import { fieldsOf } from './api';
import type { UiContext } from './context';
import { confirmAction } from './dialogs';
import { busy, h } from './dom';
import { endOverlapButton, rotateSecretButton } from './secret-actions';
import { shownName } from './managed-as-code';

/** A PUT of the webhook as read with `changes`, then a message and a redraw. */
function onClickUpdate(
  ctx: UiContext,
  button: HTMLButtonElement,
  webhook: WebhookDetail,
  changes: { active: boolean },
  done: string,
  changed: () => void,
): HTMLButtonElement {
  button.addEventListener('click', () =>
    busy(button, async () => {
      try {
        await ctx.api.update(webhook.id, fieldsOf(webhook, changes));
        ctx.notify(done);
        changed();
      } catch (error) {
        ctx.fail(error);
      }
    }),
  );
  return button;
}

function activeSwitch(ctx: UiContext, webhook: WebhookDetail, changed: () => void): HTMLButtonElement {
  const button = h(
    'button',
    {
      type: 'button',
      role: 'switch',
      class: 'switch',
      'aria-checked': String(webhook.active),
      'aria-label': `Active: ${shownName(webhook.name)}`,
    },
    webhook.active ? 'Active' : 'Inactive',
  );
  return onClickUpdate(
    ctx,
    button,
    webhook,
    { active: !webhook.active },
    `${shownName(webhook.name)} is now ${webhook.active ? 'inactive' : 'active'}.`,
    changed,
  );
}

/** `active: true` on an archived webhook reactivates it (docs/decisions.md#5-archived-state-in-the-api). */
function reactivateButton(ctx: UiContext, webhook: WebhookDetail, changed: () => void): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'primary' }, 'Reactivate');
  return onClickUpdate(
    ctx,
    button,
    webhook,
    { active: true },
    `${shownName(webhook.name)} is reactivated: new events will be sent to it again.`,
    changed,
  );
}

function testButton(ctx: UiContext, webhook: WebhookDetail, result: HTMLElement): HTMLButtonElement {
  const button = h('button', { type: 'button' }, 'Send test');
  button.addEventListener('click', () =>
    busy(button, async () => {
      result.textContent = 'Sending a test event…';
      result.className = 'test-result';
      try {
        const outcome = await ctx.api.test(webhook.id);
        const failed = outcome.verification_error !== null;
        result.textContent = failed
          ? `Test failed (HTTP ${outcome.verification_status_code}): ${outcome.verification_error ?? ''}`
          : `Test delivered: the endpoint answered HTTP ${outcome.verification_status_code}.`;
        result.className = `test-result ${failed ? 'failure' : 'success'}`;
      } catch (error) {
        result.textContent = '';
        ctx.fail(error);
      }
    }),
  );
  return button;
}

function deleteButton(ctx: UiContext, webhook: WebhookDetail, deleted: () => void): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'danger' }, 'Delete');
  button.addEventListener('click', () =>
    busy(button, async () => {
      const sure = await confirmAction(
        `Delete ${shownName(webhook.name)}?`,
        `No more events will be sent to ${webhook.client_url}, and its delivery log is deleted with it. This cannot be undone.`,
        'Delete webhook',
      );
      if (!sure) return;
      try {
        await ctx.api.remove(webhook.id);
        ctx.notify(`${shownName(webhook.name)} is deleted.`);
        deleted();
      } catch (error) {
        ctx.fail(error);
      }
    }),
  );
  return button;
}

export interface WebhookActionHandlers {
  changed(): void;
  deleted(): void;
}

/**
 * A row of the webhooks table: switch (or Reactivate), Edit and Delete. A test send and the secret's rotation are on
 * the webhook's own page: a table of 1,000 rows with six buttons each took a third of a second more to lay out.
 */
export function rowActions(ctx: UiContext, webhook: WebhookDetail, handlers: WebhookActionHandlers): HTMLElement[] {
  if (!ctx.canWrite) return [];
  return [
    h(
      'div',
      { class: 'actions', role: 'group', 'aria-label': `Actions for ${shownName(webhook.name)}` },
      webhook.archived
        ? reactivateButton(ctx, webhook, handlers.changed)
        : activeSwitch(ctx, webhook, handlers.changed),
      h('a', { class: 'button', href: `#/webhooks/${encodeURIComponent(webhook.id)}/edit` }, 'Edit'),
      deleteButton(ctx, webhook, handlers.deleted),
    ),
  ];
}

/** The action bar and the line where a test's result appears. */
export function webhookActions(ctx: UiContext, webhook: WebhookDetail, handlers: WebhookActionHandlers): HTMLElement[] {
  if (!ctx.canWrite) return [];
  const result = h('p', { class: 'test-result', role: 'status' });
  const bar = h(
    'div',
    { class: 'actions', role: 'group', 'aria-label': `Actions for ${shownName(webhook.name)}` },
    webhook.archived ? reactivateButton(ctx, webhook, handlers.changed) : activeSwitch(ctx, webhook, handlers.changed),
    h('a', { class: 'button', href: `#/webhooks/${encodeURIComponent(webhook.id)}/edit` }, 'Edit'),
    testButton(ctx, webhook, result),
    rotateSecretButton(ctx, ctx.api.webhookOwner(webhook), handlers.changed),
    webhook.previous_secret_expires_at !== undefined && endOverlapButton(ctx, webhook, handlers.changed),
    deleteButton(ctx, webhook, handlers.deleted),
  );
  return [bar, result];
}
