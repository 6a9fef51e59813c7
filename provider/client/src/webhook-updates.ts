// How the IaC tools change a webhook's URL, shared by the Pulumi provider and the Terraform provider.
// The API makes a webhook active (and un-archived) whenever its client_url changes
// (docs/decisions.md#5-archived-state-in-the-api).
import { createHash } from 'node:crypto';
import type { WebhookInput } from './client';
import type { WebhookSummary } from './contract';

interface UrlAndActive {
  clientUrl?: unknown;
  active?: unknown;
}

/**
 * A new URL for a webhook that is inactive and stays inactive: refused at plan time by both tools, as the
 * public Terraform provider does, because the API would reactivate it. (Deactivating and moving an active
 * webhook in one change is fine: see updateWebhook.)
 */
export function urlChangeWhileInactive(prior: UrlAndActive, next: UrlAndActive): boolean {
  return (
    typeof next.clientUrl === 'string' &&
    next.clientUrl !== prior.clientUrl &&
    prior.active === false &&
    next.active === false
  );
}

/**
 * A full-replacement update that ends in exactly the state asked for. Moving the URL and deactivating in the
 * same change takes two requests: the first (with the new URL) reactivates, the second deactivates. The same holds
 * for an operational endpoint, whose PUT follows the webhook's rule: `api` may be `client.operationalEndpoints`.
 */
export async function updateWebhook<
  Input extends { client_url: string; active?: boolean | null } = WebhookInput,
  Answer = WebhookSummary,
>(
  api: { update(id: string, input: Input): Promise<Answer> },
  id: string,
  currentUrl: string,
  input: Input,
): Promise<Answer> {
  if (input.client_url !== currentUrl && input.active === false) {
    await api.update(id, { ...input, active: true });
    try {
      return await api.update(id, input);
    } catch (error) {
      throw new HalfMadeUpdate(error);
    }
  }
  return api.update(id, input);
}

/**
 * The first of updateWebhook's two requests was made (the webhook is at its new URL, and active), the second (back
 * to inactive) failed: said as such, since the webhook now sends, which neither its old state nor the one asked for
 * did. Making the same change again ends it.
 */
export class HalfMadeUpdate extends Error {
  constructor(override readonly cause: unknown) {
    super(
      `it was moved to its new client_url, which made it active, and then making it inactive failed (${(cause as Error).message}): it stays active, and sends, until the change is made again`,
      { cause },
    );
    this.name = 'HalfMadeUpdate';
  }
}

/**
 * The Idempotency-Key of the rotation a tool makes for a trigger value (Pulumi's `secretRotation`, Terraform's
 * `secret_rotation`) of the secret its state holds (`replacedSecret`, empty when the state has none): the same for
 * every run that asks for that rotation, so a run whose answer was lost, applied again from the same state, gets
 * the secret the service made then instead of rotating again (which would end the overlap of the secret receivers
 * still hold). Once a rotation is in the state, its secret is the one the next replaces: a trigger value used again
 * later is another rotation. Only a hash of the secret goes into the key. The service keeps a key for 24 hours.
 */
export function rotationIdempotencyKey(id: string, trigger: string, replacedSecret: string): string {
  const asked = createHash('sha256')
    .update(JSON.stringify([trigger, replacedSecret]))
    .digest('hex');
  return `rotate-${id}-${asked.slice(0, 32)}`;
}
