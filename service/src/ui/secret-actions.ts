// Secret rotation (docs/api-contract.md#15-secret-rotation): Rotate secret asks for the overlap, rotates and shows
// the new secret once, saying until when the old one keeps signing and what each kind of receiver must do; End
// overlap now, offered while an overlap lasts, makes the new secret the only one at once.
import type { WebhookDetail } from '@jobhooks/client/contract/webhook';
import type { DeliveryOwner } from './api';
import type { UiContext } from './context';
import { askToRotate, confirmAction, showSecretOnce } from './dialogs';
import { busy, h } from './dom';
import { timeElement } from './webhook-card';
import { shownName } from './managed-as-code';

/** What the new secret means for the receivers: the documented procedure that loses no verification. */
function rotationExplanation(previousExpiresAt: string | null): Node[] {
  if (previousExpiresAt === null) {
    return [
      h(
        'p',
        {},
        'The old secret no longer signs: from now on every delivery, its Authorization header and its ' +
          'webhook-signature alike, is signed with this secret only. Receivers reject deliveries until they have it.',
      ),
    ];
  }
  return [
    h(
      'p',
      { class: 'secret-overlap' },
      'The old secret keeps signing until ',
      timeElement(previousExpiresAt, true),
      ': until then the Authorization header (dbt’s scheme) is still signed with the old secret, and ' +
        'webhook-signature (Standard Webhooks) carries a signature by each secret.',
    ),
    h(
      'ul',
      { class: 'receiver-steps' },
      h(
        'li',
        {},
        'Standard Webhooks receivers: give them the new secret any time before then; either secret verifies.',
      ),
      h(
        'li',
        {},
        'dbt-scheme receivers (Authorization): before then, make them accept either secret (compute the HMAC with ' +
          'both and accept a match of either), because at that moment Authorization switches to the new secret at once.',
      ),
    ),
    h(
      'p',
      {},
      'Once every receiver has the new secret, choose End overlap now or let the overlap run out, then remove the ' +
        'old secret from the receivers.',
    ),
  ];
}

/** Rotates the secret of `owner`, a webhook or an operational endpoint, with the overlap asked for. */
export function rotateSecretButton(ctx: UiContext, owner: DeliveryOwner, changed: () => void): HTMLButtonElement {
  const button = h('button', { type: 'button' }, 'Rotate secret');
  button.addEventListener('click', () =>
    busy(button, async () => {
      try {
        const name = shownName(owner.name);
        const rotated = await askToRotate(name, (overlapSeconds) => owner.rotateSecret(overlapSeconds));
        if (rotated === null) return;
        await showSecretOnce(name, rotated.hmac_secret, {
          title: `New signing secret of ${name}`,
          storeHint: 'Store it where your receivers can read it.',
          explanation: rotationExplanation(rotated.previous_secret_expires_at),
        });
        ctx.notify(`The secret of ${name} is rotated.`);
        changed();
      } catch (error) {
        ctx.fail(error);
      }
    }),
  );
  return button;
}

export function endOverlapButton(ctx: UiContext, webhook: WebhookDetail, changed: () => void): HTMLButtonElement {
  const button = h('button', { type: 'button' }, 'End overlap now');
  button.addEventListener('click', () =>
    busy(button, async () => {
      const sure = await confirmAction(
        `End the secret overlap of ${shownName(webhook.name)}?`,
        'The old secret stops signing now: from the next delivery on, the Authorization header and webhook-signature ' +
          'are signed with the new secret only. A receiver that does not have the new secret yet rejects them.',
        'End overlap now',
      );
      if (!sure) return;
      try {
        await ctx.api.endSecretOverlap(webhook.id);
        ctx.notify(`The old secret of ${shownName(webhook.name)} no longer signs.`);
        changed();
      } catch (error) {
        ctx.fail(error);
      }
    }),
  );
  return button;
}
