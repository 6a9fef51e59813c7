// What a write of a webhook does, decided once for both backends from what the transaction read: whether a create
// is a replay or over the account's limit, and what an update or a new secret changes besides the row.
import { endpointRenewed, type SecretChange, type WebhookChange, type WebhookRecord } from '../domain/webhook';
import type { CreateWebhookOutcome } from './store';

/** An Idempotency-Key recorded by an earlier create, as the transaction found it. */
export interface RecordedKey {
  requestHash: string;
  webhookId: string;
}

/**
 * A create whose key was used before is a replay of that create; one that would take the account past its limit
 * is refused; any other is made (and its key recorded). The caller holds the account against other creates.
 */
export function createDecision(
  recorded: RecordedKey | null,
  webhooksOfAccount: number,
  maxPerAccount: number,
): CreateWebhookOutcome {
  if (recorded !== null) return { kind: 'replayed', ...recorded };
  if (webhooksOfAccount >= maxPerAccount) return { kind: 'limit_reached', limit: maxPerAccount };
  return { kind: 'created' };
}

/**
 * A secret change under an Idempotency-Key: a key recorded before (and not expired) is a replay of that change, and
 * nothing changes; any other makes the change and records the key. The caller holds the webhook.
 */
export function keyedSecretChangeDecision(recorded: RecordedKey | null): { replay: RecordedKey } | { change: true } {
  return recorded === null ? { change: true } : { replay: recorded };
}

/** An update: the row's new fields, and whether its endpoint's health starts over (a new URL, a reactivation). */
export function updatePlan(
  current: WebhookRecord,
  change: (current: WebhookRecord) => WebhookChange,
): { next: WebhookChange; endpointRenewed: boolean } {
  const next = change(current);
  return { next, endpointRenewed: endpointRenewed(current, next) };
}

/**
 * A secret change: the new secret columns, and whether creates replayed by their Idempotency-Key must stop showing
 * the secret they made (it was rotated).
 */
export function secretChangePlan(
  current: WebhookRecord,
  change: (current: WebhookRecord) => SecretChange,
): { next: SecretChange; rotated: boolean } {
  const next = change(current);
  return { next, rotated: next.sealedSecret !== current.sealedSecret };
}
