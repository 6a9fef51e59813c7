// What a PUT does to a webhook's state: full replacement of the written fields, plus reactivation.
import type { Micros } from '../core/time';
import type { WebhookChange, WebhookRecord, WebhookWritable } from '../domain/webhook';

/**
 * docs/decisions.md#5-archived-state-in-the-api: `active: true` reactivates an archived webhook, and a new `client_url`
 * makes the webhook active and un-archived whatever `active` says. A new URL also starts its failure
 * record afresh: the failures counted so far were another endpoint's.
 */
export function planUpdate(current: WebhookRecord, input: WebhookWritable, now: Micros): WebhookChange {
  const urlChanged = input.clientUrl !== current.clientUrl;
  const active = urlChanged || input.active;
  const wasArchived = current.archivedAt !== null;
  const reactivated = wasArchived && active;
  const freshStart = reactivated || urlChanged;
  return {
    ...input,
    active,
    updatedAt: now,
    consecutiveFailures: freshStart ? 0 : current.consecutiveFailures,
    failingSince: freshStart ? null : current.failingSince,
    lastFailureAt: freshStart ? null : current.lastFailureAt,
    archivedAt: reactivated ? null : current.archivedAt,
    archivedReason: reactivated ? null : current.archivedReason,
  };
}
