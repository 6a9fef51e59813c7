// Makes a plan's changes, in its order, through the API client. Each created webhook's (or operational endpoint's)
// secret goes to the sink at once, before the next request, so a failure later in the run loses no secret.
import { updateWebhook, type WebhooksClient } from '@jobhooks/client';
import type { DeclaredEndpointValues, DeclaredValues } from './declaration';
import { type ChangeOf, type PlannedChange, secretKey, subjectOf } from './plan';

export interface ApplyProgress {
  /** Called with each created webhook's secret, the only time the API returns it (its key: see secretKey). */
  secretCreated(key: string, secret: string): void;
  /** Called when the webhook of a key the files no longer declare was deleted (its key: see secretKey). */
  webhookRemoved(key: string): void;
  /** Called after each change, with a line for the user (never a secret). */
  changed(line: string): void;
}

type Changes = 'create' | 'update' | 'delete';

/** `operationalEndpoints` is needed only by a plan that changes operational endpoints. */
export type ApplyClient = Pick<WebhooksClient, Changes> & {
  operationalEndpoints?: Pick<WebhooksClient['operationalEndpoints'], Changes>;
};

/** A change that failed, with how many were made before it; `cause` is the client's (or the sink's) error. */
export class ChangeFailed extends Error {
  constructor(
    readonly change: PlannedChange,
    readonly made: number,
    override readonly cause: unknown,
  ) {
    super(`${change.action} ${subjectOf(change)} failed`);
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
function applyChange(api: ApplyClient, change: PlannedChange, progress: ApplyProgress): Promise<string> {
  if (change.kind !== 'operational_endpoint') return applyWith<DeclaredValues>(api, change, progress);
  if (api.operationalEndpoints === undefined) throw new Error('this client does not manage operational endpoints');
  return applyWith<DeclaredEndpointValues>(api.operationalEndpoints, change, progress);
}

/** The calls that change one kind of thing. */
interface KindCalls<Values> {
  create(values: Values): Promise<{ id: string; hmac_secret: string }>;
  update(id: string, values: Values): Promise<unknown>;
  delete(id: string): Promise<boolean>;
}

async function applyWith<Values extends { client_url: string; active: boolean }>(
  calls: KindCalls<Values>,
  change: ChangeOf<Values> & Pick<PlannedChange, 'kind'>,
  progress: ApplyProgress,
): Promise<string> {
  const subject = subjectOf(change);
  switch (change.action) {
    case 'create': {
      const created = await calls.create(change.values);
      try {
        progress.secretCreated(secretKey(change), created.hmac_secret);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const noun = change.kind === 'operational_endpoint' ? 'operational endpoint' : 'webhook';
        throw new Error(
          `${subject} was created (${created.id}) but its secret could not be kept (${reason.replace(/\.$/, '')}): ` +
            `delete that ${noun} and apply again, or its deliveries cannot be verified`,
        );
      }
      return `created ${subject} (${created.id})`;
    }
    case 'update':
      // Moving the URL of a webhook (or endpoint) that is to be inactive takes two requests: see updateWebhook.
      await updateWebhook(calls, change.webhookId, change.currentUrl, change.values);
      return `updated ${subject} (${change.webhookId}): ${change.fields.map((field) => field.field).join(', ')}`;
    case 'reactivate':
      // A PUT with active: true clears the archive and the failure counters.
      await calls.update(change.webhookId, change.values);
      return `reactivated ${subject} (${change.webhookId})`;
    case 'delete':
      // False when it was deleted meanwhile: the result is the one asked for either way.
      await calls.delete(change.webhookId);
      // A duplicate's key stays declared: the webhook kept under it keeps its secret.
      if (change.reason === 'removed') progress.webhookRemoved(secretKey(change));
      return `deleted ${subject} (${change.webhookId})`;
  }
}
