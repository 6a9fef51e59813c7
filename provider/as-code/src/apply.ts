// Makes a plan's changes, in its order, through the API client. Each created webhook's secret goes to the sink
// at once, before the next request, so a failure later in the run loses no secret.
import { updateWebhook, type WebhooksClient } from '@jobhooks/client';
import type { PlannedChange } from './plan';

export interface ApplyProgress {
  /** Called with each created webhook's secret, the only time the API returns it. */
  secretCreated(key: string, secret: string): void;
  /** Called after each change, with a line for the user (never a secret). */
  changed(line: string): void;
}

export type ApplyClient = Pick<WebhooksClient, 'create' | 'update' | 'delete'>;

export async function applyChanges(
  api: ApplyClient,
  changes: readonly PlannedChange[],
  progress: ApplyProgress,
): Promise<void> {
  for (const change of changes) {
    switch (change.action) {
      case 'create': {
        const created = await api.create(change.values);
        progress.secretCreated(change.key, created.hmac_secret);
        progress.changed(`created ${change.key} (${created.id})`);
        break;
      }
      case 'update':
        // Moving the URL of a webhook that is to be inactive takes two requests: see updateWebhook.
        await updateWebhook(api, change.webhookId, change.currentUrl, change.values);
        progress.changed(
          `updated ${change.key} (${change.webhookId}): ${change.fields.map((field) => field.field).join(', ')}`,
        );
        break;
      case 'reactivate':
        // A PUT with active: true clears the archive and the failure counters.
        await api.update(change.webhookId, change.values);
        progress.changed(`reactivated ${change.key} (${change.webhookId})`);
        break;
      case 'delete':
        // False when it was deleted meanwhile: the result is the one asked for either way.
        await api.delete(change.webhookId);
        progress.changed(`deleted ${change.key} (${change.webhookId})`);
        break;
    }
  }
}
