// The lifecycle of a jobhooks webhook for Pulumi (check, diff, create, read, update, delete), over the typed
// client and the service's own schemas. Loaded by the serialized shell in webhook.ts inside the provider host.
import type * as pulumi from '@pulumi/pulumi';
import {
  createWebhooksClient,
  hostUrlProblem,
  updateWebhook,
  urlChangeWhileInactive,
  type WebhookInput,
  webhookProblems,
  type WebhooksClient,
} from '@jobhooks/client';
import { WEBHOOK_DEFAULTS, type WebhookDetail, type WebhookSummary } from '@jobhooks/client/contract';
import { checkedConnection, type ConfigSource, type Connection, resolveConnection } from './connection';

/** The API a resource talks to when it does not use the stack's: one program can manage several accounts. */
export interface WebhookConnection {
  /** The API base URL, ending in /api. */
  hostUrl: string;
  accountId: number;
  token: string;
}

/** What a program declares, in Pulumi's camelCase (the public pulumi-dbtcloud Webhook's inputs). */
export interface WebhookInputs {
  name: string;
  clientUrl: string;
  eventTypes: string[];
  description?: string;
  jobIds?: number[];
  active?: boolean;
  /** Take over an existing webhook by id instead of creating one (`pulumi import` does not work for dynamic providers). */
  adoptWebhookId?: string;
  /** This resource's own API connection (kept as a secret); the stack config's when omitted. */
  connection?: WebhookConnection;
}

export interface WebhookOutputs extends Required<Omit<WebhookInputs, 'adoptWebhookId' | 'connection'>> {
  adoptWebhookId?: string;
  connection?: WebhookConnection;
  webhookId: string;
  /** Known only when this stack created the webhook: the API shows a secret once. */
  hmacSecret: string;
  httpStatusCode: string;
  accountIdentifier: string;
  archived: boolean;
}

/** The value Pulumi's host puts where an input is not known yet (a preview). */
const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

const UPDATABLE: ReadonlyArray<keyof WebhookInputs> = [
  'name',
  'clientUrl',
  'eventTypes',
  'description',
  'jobIds',
  'active',
];

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

/** What an output keeps of the inputs besides the webhook itself: where it lives and how it was adopted. */
type Origin = Pick<WebhookInputs, 'adoptWebhookId' | 'connection'>;

function outputsFrom(webhook: WebhookSummary | WebhookDetail, hmacSecret: string, origin: Origin): WebhookOutputs {
  return {
    name: webhook.name,
    clientUrl: webhook.client_url,
    eventTypes: webhook.event_types,
    description: webhook.description,
    jobIds: webhook.job_ids.map(Number),
    active: webhook.active,
    ...(origin.adoptWebhookId ? { adoptWebhookId: origin.adoptWebhookId } : {}),
    ...(origin.connection ? { connection: origin.connection } : {}),
    webhookId: webhook.id,
    hmacSecret,
    httpStatusCode: webhook.http_status_code,
    accountIdentifier: webhook.account_identifier,
    archived: webhook.archived === true,
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const DEFAULTS: Partial<WebhookInputs> = {
  description: WEBHOOK_DEFAULTS.description,
  jobIds: [...WEBHOOK_DEFAULTS.job_ids],
  active: WEBHOOK_DEFAULTS.active,
};
const defaulted = (inputs: Partial<WebhookInputs>, key: keyof WebhookInputs) => inputs[key] ?? DEFAULTS[key];
/** Which webhook store a connection points at; another one holds other webhooks, so moving means replacing. */
const place = (connection: WebhookConnection | undefined) =>
  connection ? `${connection.hostUrl.replace(/\/+$/, '')}#${connection.accountId}` : null;

/** What is wrong with a resource's own connection, if it has one. */
function connectionProblems(connection: unknown): pulumi.dynamic.CheckFailure[] {
  if (connection === undefined || connection === null) return [];
  const given = connection as Partial<Record<keyof WebhookConnection, unknown>>;
  const missing = (['hostUrl', 'accountId', 'token'] as const).filter(
    (key) => given[key] === undefined || given[key] === '',
  );
  if (missing.length > 0) return [{ property: 'connection', reason: `connection needs ${missing.join(', ')}` }];
  const badUrl = hostUrlProblem(String(given.hostUrl));
  if (badUrl !== null) return [{ property: 'connection', reason: `connection.${badUrl}` }];
  try {
    checkedConnection(given as WebhookConnection, 'connection.accountId');
    return [];
  } catch (error) {
    return [{ property: 'connection', reason: (error as Error).message }];
  }
}

export function createWebhookProvider(env: NodeJS.ProcessEnv = process.env): pulumi.dynamic.ResourceProvider {
  let config: ConfigSource | undefined;
  // Built when first needed: the stack's from the config the host passed to configure(), one per own connection.
  const clients = new Map<string, WebhooksClient>();
  const api = (own: WebhookConnection | undefined): WebhooksClient => {
    const key = own ? JSON.stringify([own.hostUrl, own.accountId, own.token]) : '';
    let client = clients.get(key);
    if (client === undefined) {
      const connection: Connection = own
        ? checkedConnection(own, 'connection.accountId')
        : resolveConnection(config, env);
      client = createWebhooksClient(connection);
      clients.set(key, client);
    }
    return client;
  };

  return {
    async configure(request) {
      config = request.config;
      clients.clear();
    },

    /** Every failure by property, with the service's own messages; known values only during a preview. */
    async check(olds: Partial<WebhookOutputs>, news: WebhookInputs) {
      const known = (value: unknown) => !JSON.stringify(value ?? null).includes(UNKNOWN);
      const failures: pulumi.dynamic.CheckFailure[] = [
        ...webhookProblems(news, known),
        ...(known(news.connection) ? connectionProblems(news.connection) : []),
      ];
      if (olds.clientUrl !== undefined && known(news.clientUrl) && urlChangeWhileInactive(olds, news)) {
        failures.push({
          property: 'clientUrl',
          reason:
            'Cannot change clientUrl while active is false: the service reactivates a webhook whose URL changes. Set active: true in the same change.',
        });
      }
      return { inputs: news, failures };
    },

    /**
     * Everything is updated in place, a new token included; adopting a different webhook, or another API or
     * account, replaces the resource.
     */
    async diff(_id, olds: WebhookOutputs, news: WebhookInputs) {
      const changed = UPDATABLE.filter((key) => !same(defaulted(olds, key), defaulted(news, key)));
      if (!same(olds.connection ?? null, news.connection ?? null)) changed.push('connection');
      const replaces: string[] = [];
      if ((olds.adoptWebhookId ?? null) !== (news.adoptWebhookId ?? null) && news.adoptWebhookId !== undefined)
        replaces.push('adoptWebhookId');
      if (place(olds.connection) !== place(news.connection)) replaces.push('connection');
      return { changes: changed.length + replaces.length > 0, replaces, deleteBeforeReplace: false };
    },

    async create(inputs: WebhookInputs) {
      const client = api(inputs.connection);
      if (inputs.adoptWebhookId) {
        const existing = await client.get(inputs.adoptWebhookId);
        if (!existing)
          throw new Error(`Cannot adopt webhook ${inputs.adoptWebhookId}: it does not exist in this account.`);
        const updated = await client.update(existing.id, toApiInput(inputs));
        return { id: updated.id, outs: outputsFrom(updated, '', inputs) };
      }
      const created = await client.create(toApiInput(inputs));
      return { id: created.id, outs: outputsFrom(created, created.hmac_secret, { connection: inputs.connection }) };
    },

    /** Refresh: drift and archiving show as changed outputs; a webhook deleted elsewhere reads as gone (empty id). */
    async read(id, props?: Partial<WebhookOutputs>) {
      const webhook = await api(props?.connection).get(id);
      if (!webhook) return { id: '' };
      const outs = outputsFrom(webhook, props?.hmacSecret ?? '', {
        adoptWebhookId: props?.adoptWebhookId,
        connection: props?.connection,
      });
      const {
        webhookId: _w,
        hmacSecret: _h,
        httpStatusCode: _s,
        accountIdentifier: _a,
        archived: _r,
        ...inputs
      } = outs;
      return { id, props: outs, inputs };
    },

    async update(id, olds: WebhookOutputs, news: WebhookInputs) {
      const updated = await updateWebhook(api(news.connection), id, olds.clientUrl, toApiInput(news));
      return { outs: outputsFrom(updated, olds.hmacSecret ?? '', news) };
    },

    async delete(id, props: Partial<WebhookOutputs>) {
      await api(props?.connection).delete(id);
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
