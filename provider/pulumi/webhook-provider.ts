// The lifecycle of a jobhooks webhook for Pulumi (check, diff, create, read, update, delete), over the typed
// client and the service's own schemas. Loaded by the serialized shell in webhook.ts inside the provider host.
import type * as pulumi from '@pulumi/pulumi';
import { SUBSCRIPTION_DEFAULTS, type SubscriptionDetail, type SubscriptionSummary } from '../../service/src/contract';
import { createWebhooksClient, type WebhookInput, type WebhooksClient } from '../client';
import { webhookProblems } from '../webhook-problems';
import { updateWebhook, urlChangeWhileInactive } from '../webhook-updates';
import { type ConfigSource, resolveConnection } from './connection';

/** What a program declares (design section 5), in Pulumi's camelCase. */
export interface WebhookInputs {
  name: string;
  clientUrl: string;
  eventTypes: string[];
  description?: string;
  jobIds?: number[];
  active?: boolean;
  /** Take over an existing webhook by id instead of creating one (`pulumi import` does not work for dynamic providers). */
  adoptWebhookId?: string;
}

export interface WebhookOutputs extends Required<Omit<WebhookInputs, 'adoptWebhookId'>> {
  adoptWebhookId?: string;
  webhookId: string;
  /** Known only when this stack created the webhook: the API shows a secret once. */
  hmacSecret: string;
  httpStatusCode: string;
  accountIdentifier: string;
  archived: boolean;
}

/** The value Pulumi's host puts where an input is not known yet (a preview). */
const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

const UPDATABLE: ReadonlyArray<keyof WebhookInputs> = ['name', 'clientUrl', 'eventTypes', 'description', 'jobIds', 'active'];

function toApiInput(inputs: WebhookInputs): WebhookInput {
  return {
    name: inputs.name,
    client_url: inputs.clientUrl,
    event_types: inputs.eventTypes as WebhookInput['event_types'],
    // Omitted stays omitted: the schema gives it the API's default.
    description: inputs.description,
    job_ids: inputs.jobIds,
    active: inputs.active,
  };
}

function outputsFrom(webhook: SubscriptionSummary | SubscriptionDetail, hmacSecret: string, adoptWebhookId: string | undefined): WebhookOutputs {
  return {
    name: webhook.name,
    clientUrl: webhook.client_url,
    eventTypes: webhook.event_types,
    description: webhook.description,
    jobIds: webhook.job_ids.map(Number),
    active: webhook.active,
    ...(adoptWebhookId ? { adoptWebhookId } : {}),
    webhookId: webhook.id,
    hmacSecret,
    httpStatusCode: webhook.http_status_code,
    accountIdentifier: webhook.account_identifier,
    archived: webhook.archived,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const DEFAULTS: Partial<WebhookInputs> = {
  description: SUBSCRIPTION_DEFAULTS.description,
  jobIds: [...SUBSCRIPTION_DEFAULTS.job_ids],
  active: SUBSCRIPTION_DEFAULTS.active,
};
const defaulted = (inputs: Partial<WebhookInputs>, key: keyof WebhookInputs) => inputs[key] ?? DEFAULTS[key];

export function createWebhookProvider(env: NodeJS.ProcessEnv = process.env): pulumi.dynamic.ResourceProvider {
  let config: ConfigSource | undefined;
  // Built when first needed, from the stack config the host passed to configure().
  let client: WebhooksClient | undefined;
  const api = () => (client ??= createWebhooksClient(resolveConnection(config, env)));

  return {
    async configure(request) {
      config = request.config;
      client = undefined;
    },

    /** Every failure by property, with the service's own messages; known values only during a preview. */
    async check(olds: Partial<WebhookOutputs>, news: WebhookInputs) {
      const known = (value: unknown) => !JSON.stringify(value ?? null).includes(UNKNOWN);
      const failures: pulumi.dynamic.CheckFailure[] = webhookProblems(news, known);
      if (olds.clientUrl !== undefined && known(news.clientUrl) && urlChangeWhileInactive(olds, news)) {
        failures.push({
          property: 'clientUrl',
          reason: 'Cannot change clientUrl while active is false: the service reactivates a webhook whose URL changes. Set active: true in the same change.',
        });
      }
      return { inputs: news, failures };
    },

    /** Everything is updated in place; only adopting a different webhook replaces the resource. */
    async diff(_id, olds: WebhookOutputs, news: WebhookInputs) {
      const changed = UPDATABLE.filter((key) => !same(defaulted(olds, key), defaulted(news, key)));
      const replaces = (olds.adoptWebhookId ?? null) !== (news.adoptWebhookId ?? null) && news.adoptWebhookId !== undefined ? ['adoptWebhookId'] : [];
      return { changes: changed.length + replaces.length > 0, replaces, deleteBeforeReplace: false };
    },

    async create(inputs: WebhookInputs) {
      if (inputs.adoptWebhookId) {
        const existing = await api().get(inputs.adoptWebhookId);
        if (!existing) throw new Error(`Cannot adopt webhook ${inputs.adoptWebhookId}: it does not exist in this account.`);
        const updated = await api().update(existing.id, toApiInput(inputs));
        return { id: updated.id, outs: outputsFrom(updated, '', inputs.adoptWebhookId) };
      }
      const created = await api().create(toApiInput(inputs));
      return { id: created.id, outs: outputsFrom(created, created.hmac_secret, undefined) };
    },

    /** Refresh: drift and archiving show as changed outputs; a webhook deleted elsewhere reads as gone (empty id). */
    async read(id, props?: Partial<WebhookOutputs>) {
      const webhook = await api().get(id);
      if (!webhook) return { id: '' };
      const outs = outputsFrom(webhook, props?.hmacSecret ?? '', props?.adoptWebhookId);
      const { webhookId: _w, hmacSecret: _h, httpStatusCode: _s, accountIdentifier: _a, archived: _r, ...inputs } = outs;
      return { id, props: outs, inputs };
    },

    async update(id, olds: WebhookOutputs, news: WebhookInputs) {
      const updated = await updateWebhook(api(), id, olds.clientUrl, toApiInput(news));
      return { outs: outputsFrom(updated, olds.hmacSecret ?? '', news.adoptWebhookId) };
    },

    async delete(id) {
      await api().delete(id);
    },
  };
}

let shared: pulumi.dynamic.ResourceProvider | undefined;

/**
 * The one provider of this process, for the serialized shell: Pulumi serializes captured variables by value,
 * so a cache kept in the shell's closure would not survive between calls; the module cache does.
 */
export function sharedWebhookProvider(): pulumi.dynamic.ResourceProvider {
  return (shared ??= createWebhookProvider());
}
