// The lifecycle of a jobhooks webhook for Pulumi (check, diff, create, read, update, delete), over the typed
// client and the service's own schemas, with jobhooks' own delivery rate (`maxRequestsPerSecond`) and secret rotation (a new `secretRotation` value rotates
// `hmacSecret` in place). Loaded by the serialized shell in webhook.ts inside the provider host.
import type * as pulumi from '@pulumi/pulumi';
import {
  createWebhooksClient,
  hostUrlProblem,
  outputTime,
  updateWebhook,
  urlChangeWhileInactive,
  type WebhookInput,
  webhookProblems,
  type WebhooksClient,
} from '@jobhooks/client';
import { RotateSecretBody, WEBHOOK_DEFAULTS, type WebhookDetail, type WebhookSummary } from '@jobhooks/client/contract';
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
  /**
   * jobhooks' own (dbt Cloud has no such field): the most requests per second sent to `clientUrl`, over all
   * instances, 1 to 100; omitted or null: no limit (and outputs hold null).
   */
  maxRequestsPerSecond?: number | null;
  /** Take over an existing webhook by id instead of creating one (`pulumi import` does not work for dynamic providers). */
  adoptWebhookId?: string;
  /** This resource's own API connection (kept as a secret); the stack config's when omitted. */
  connection?: WebhookConnection;
  /**
   * jobhooks' own (dbt Cloud has no rotation): change it to any new value (e.g. '2026-11') to rotate `hmacSecret`
   * in place. Set at create, or removed, it rotates nothing.
   */
  secretRotation?: string;
  /** jobhooks' own: how long a rotation's replaced secret keeps signing, 0 to 604800 s; a day when omitted. */
  secretOverlapSeconds?: number;
}

/** The inputs that are jobhooks' own and the server knows nothing of: outputs keep them as given. */
type OwnInputs = 'adoptWebhookId' | 'connection' | 'secretRotation' | 'secretOverlapSeconds';

export interface WebhookOutputs extends Required<Omit<WebhookInputs, OwnInputs>>, Pick<WebhookInputs, OwnInputs> {
  webhookId: string;
  /** Known when this stack created the webhook or rotated its secret: the API shows a secret once. */
  hmacSecret: string;
  /** While a rotation's overlap lasts, when the replaced secret stops signing (RFC 3339, UTC); null otherwise. */
  previousSecretExpiresAt: string | null;
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
  'maxRequestsPerSecond',
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
    max_requests_per_second: inputs.maxRequestsPerSecond,
  };
}

/** What an output keeps of the inputs besides the webhook itself: where it lives, how it was adopted, rotation. */
type Origin = Pick<WebhookInputs, OwnInputs>;

/** The secret as this stack knows it, and its overlap. */
interface Secret {
  hmacSecret: string;
  previousSecretExpiresAt: string | null;
}

const isSet = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/** Only the inputs that are set: Pulumi's structs take no undefined. */
const ownInputs = (origin: Origin): Origin => ({
  ...(origin.adoptWebhookId ? { adoptWebhookId: origin.adoptWebhookId } : {}),
  ...(origin.connection ? { connection: origin.connection } : {}),
  ...(isSet(origin.secretRotation) ? { secretRotation: origin.secretRotation } : {}),
  ...(isSet(origin.secretOverlapSeconds) ? { secretOverlapSeconds: origin.secretOverlapSeconds } : {}),
});

function outputsFrom(webhook: WebhookSummary | WebhookDetail, secret: Secret, origin: Origin): WebhookOutputs {
  return {
    name: webhook.name,
    clientUrl: webhook.client_url,
    eventTypes: webhook.event_types,
    description: webhook.description,
    jobIds: webhook.job_ids.map(Number),
    active: webhook.active,
    // The API leaves the field out of a webhook that has no rate.
    maxRequestsPerSecond: webhook.max_requests_per_second ?? null,
    ...ownInputs(origin),
    webhookId: webhook.id,
    hmacSecret: secret.hmacSecret,
    previousSecretExpiresAt: outputTime(secret.previousSecretExpiresAt),
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
  maxRequestsPerSecond: WEBHOOK_DEFAULTS.max_requests_per_second,
};
const defaulted = (inputs: Partial<WebhookInputs>, key: keyof WebhookInputs) => inputs[key] ?? DEFAULTS[key];
/** Which webhook store a connection points at; another one holds other webhooks, so moving means replacing. */
const place = (connection: WebhookConnection | undefined) =>
  connection ? `${connection.hostUrl.replace(/\/+$/, '')}#${connection.accountId}` : null;

/** Whether an update rotates the secret: secretRotation set to a value other than the old one (from unset too). */
const rotates = (olds: Partial<WebhookOutputs>, news: WebhookInputs) =>
  isSet(news.secretRotation) && !same(olds.secretRotation ?? null, news.secretRotation);

/** secretOverlapSeconds by the rotation endpoint's own body schema, in its words. */
function overlapProblems(overlap: unknown): pulumi.dynamic.CheckFailure[] {
  if (!isSet(overlap)) return [];
  const parsed = RotateSecretBody.safeParse({ overlap_seconds: overlap });
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({ property: 'secretOverlapSeconds', reason: issue.message }));
}

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
        ...(known(news.secretOverlapSeconds) ? overlapProblems(news.secretOverlapSeconds) : []),
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
     * Everything is updated in place, a new token and a secret rotation included; adopting a different webhook,
     * or another API or account, replaces the resource.
     */
    async diff(_id, olds: WebhookOutputs, news: WebhookInputs) {
      const changed = UPDATABLE.filter((key) => !same(defaulted(olds, key), defaulted(news, key)));
      for (const key of ['connection', 'secretRotation', 'secretOverlapSeconds'] as const)
        if (!same(olds[key] ?? null, news[key] ?? null)) changed.push(key);
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
        const secret = { hmacSecret: '', previousSecretExpiresAt: existing.previous_secret_expires_at ?? null };
        return { id: updated.id, outs: outputsFrom(updated, secret, inputs) };
      }
      // A secretRotation given at create rotates nothing: the secret is new.
      const created = await client.create(toApiInput(inputs));
      const secret = { hmacSecret: created.hmac_secret, previousSecretExpiresAt: null };
      return { id: created.id, outs: outputsFrom(created, secret, inputs) };
    },

    /** Refresh: drift and archiving show as changed outputs; a webhook deleted elsewhere reads as gone (empty id). */
    async read(id, props?: Partial<WebhookOutputs>) {
      const webhook = await api(props?.connection).get(id);
      if (!webhook) return { id: '' };
      const secret = {
        hmacSecret: props?.hmacSecret ?? '',
        previousSecretExpiresAt: webhook.previous_secret_expires_at ?? null,
      };
      const outs = outputsFrom(webhook, secret, props ?? {});
      const {
        webhookId: _w,
        hmacSecret: _h,
        previousSecretExpiresAt: _p,
        httpStatusCode: _s,
        accountIdentifier: _a,
        archived: _r,
        ...inputs
      } = outs;
      return { id, props: outs, inputs };
    },

    /**
     * A PUT when a field of the API or the connection changed, then a rotation when secretRotation changed.
     * A change of secretOverlapSeconds alone (or the removal of secretRotation) only records the new input.
     */
    async update(id, olds: WebhookOutputs, news: WebhookInputs) {
      const client = api(news.connection);
      const secret = {
        hmacSecret: olds.hmacSecret ?? '',
        // RFC 3339 (a state an earlier version wrote may hold microsecond digits).
        previousSecretExpiresAt: outputTime(olds.previousSecretExpiresAt),
      };
      const apiChanged =
        UPDATABLE.some((key) => !same(defaulted(olds, key), defaulted(news, key))) ||
        !same(olds.connection ?? null, news.connection ?? null);
      let outs: WebhookOutputs;
      if (apiChanged) {
        outs = outputsFrom(await updateWebhook(client, id, olds.clientUrl, toApiInput(news)), secret, news);
      } else {
        const { adoptWebhookId: _a, connection: _c, secretRotation: _r, secretOverlapSeconds: _o, ...kept } = olds;
        outs = { ...kept, ...ownInputs(news), ...secret };
      }
      if (rotates(olds, news)) {
        const rotated = await client.rotateSecret(id, news.secretOverlapSeconds ?? undefined);
        outs = {
          ...outs,
          hmacSecret: rotated.hmac_secret,
          previousSecretExpiresAt: outputTime(rotated.previous_secret_expires_at),
        };
      }
      return { outs };
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
