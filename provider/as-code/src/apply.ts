// Makes a plan's changes, in its order, through the API client. Each created webhook's secret goes to the sink
// at once, before the next request, so a failure later in the run loses no secret.
import { updateWebhook, type WebhooksClient } from '@jobhooks/client';
import type { PlannedChange } from './plan';

export interface ApplyProgress {
  /** Called with each created webhook's secret, the only time the API returns it. */
  secretCreated(key: string, secret: string): void;
  /** Called when the webhook of a key the files no longer declare was deleted. */
  webhookRemoved(key: string): void;
  /** Called after each change, with a line for the user (never a secret). */
  changed(line: string): void;
}

export type ApplyClient = Pick<WebhooksClient, 'create' | 'update' | 'delete'>;

/** A change that failed, with how many were made before it; `cause` is the client's (or the sink's) error. */
export class ChangeFailed extends Error {
  constructor(
    readonly change: PlannedChange,
    readonly made: number,
    override readonly cause: unknown,
  ) {
    super(`${change.action} ${change.key} failed`);
    this.name = 'ChangeFailed';
  }
}

export async function applyChanges(
  api: ApplyClient,
  changes: readonly PlannedChange[],
  progress: ApplyProgress,
): Promise<void> {
  let made = 0;
  for (const change of changes) {
    try {
      progress.changed(await applyChange(api, change, progress));
    } catch (error) {
      throw new ChangeFailed(change, made, error);
    }
    made += 1;
  }
}

/** Makes one change and says what was done. */
async function applyChange(api: ApplyClient, change: PlannedChange, progress: ApplyProgress): Promise<string> {
  switch (change.action) {
    case 'create': {
      const created = await api.create(change.values);
      try {
        progress.secretCreated(change.key, created.hmac_secret);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(
          `${change.key} was created (${created.id}) but its secret could not be kept (${reason.replace(/\.$/, '')}): ` +
            'delete that webhook and apply again, or its deliveries cannot be verified',
        );
      }
      return `created ${change.key} (${created.id})`;
    }
    case 'update':
      // Moving the URL of a webhook that is to be inactive takes two requests: see updateWebhook.
      await updateWebhook(api, change.webhookId, change.currentUrl, change.values);
      return `updated ${change.key} (${change.webhookId}): ${change.fields.map((field) => field.field).join(', ')}`;
    case 'reactivate':
      // A PUT with active: true clears the archive and the failure counters.
      await api.update(change.webhookId, change.values);
      return `reactivated ${change.key} (${change.webhookId})`;
    case 'delete':
      // False when it was deleted meanwhile: the result is the one asked for either way.
      await api.delete(change.webhookId);
      // A duplicate's key stays declared: the webhook kept under it keeps its secret.
      if (change.reason === 'removed') progress.webhookRemoved(change.key);
      return `deleted ${change.key} (${change.webhookId})`;
  }
}
