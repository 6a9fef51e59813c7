// Where the Pulumi provider finds the API: a resource's own `connection`, else the stack config (`jobhooks:*` or
// pulumi-dbtcloud's `dbtcloud:*` names), else the public providers' environment variables; and the clients built from it.
import { createWebhooksClient, hostUrlProblem, tokenProblem, type WebhooksClient } from '@jobhooks/client';
export interface Connection {
  hostUrl: string;
  accountId: number;
  token: string;
}

/**
 * Each request's time limit, as the public Terraform provider's default: a server that takes the connection and never
 * answers fails the operation (after the client's retries) instead of holding `pulumi up` for ever.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** A stack configuration as Pulumi's dynamic-provider host hands it over. */
export interface ConfigSource {
  get(key: string): string | undefined;
}

/** Each setting's config keys in the order they are read, then its environment variable. */
const SOURCES = {
  hostUrl: { config: ['jobhooks:baseUrl', 'dbtcloud:hostUrl'], env: 'DBT_CLOUD_HOST_URL' },
  accountId: { config: ['jobhooks:accountId', 'dbtcloud:accountId'], env: 'DBT_CLOUD_ACCOUNT_ID' },
  token: { config: ['jobhooks:token', 'dbtcloud:token'], env: 'DBT_CLOUD_TOKEN' },
} as const;
type Setting = keyof typeof SOURCES;
const SETTINGS = Object.keys(SOURCES) as Setting[];

/** The connection, or an error that names every missing setting and the ways to give it. */
export function resolveConnection(config: ConfigSource | undefined, env: NodeJS.ProcessEnv): Connection {
  const value = (name: Setting) =>
    SOURCES[name].config.map((key) => config?.get(key)).find((found) => found) || env[SOURCES[name].env] || undefined;
  const missing = SETTINGS.filter((name) => value(name) === undefined);
  if (missing.length > 0) {
    const how = missing.map((name) => `${SOURCES[name].config.join(' or ')} (or ${SOURCES[name].env})`).join(', ');
    throw new Error(
      `The jobhooks provider is not configured: set ${how}, or give the resource a connection. Example: pulumi config set --secret jobhooks:token <token>`,
    );
  }
  return checkedConnection(
    { hostUrl: value('hostUrl')!, accountId: value('accountId')!, token: value('token')! },
    'jobhooks:accountId',
    'jobhooks:token',
  );
}

/** A connection given as values (a resource's `connection`, or the config's strings) with its account id checked. */
export function checkedConnection(
  given: { hostUrl: string; accountId: number | string; token: string },
  accountIdName: string,
  tokenName: string,
): Connection {
  const accountId = Number(given.accountId);
  if (!Number.isSafeInteger(accountId) || accountId <= 0) {
    throw new Error(`${accountIdName} must be a positive whole number, not "${given.accountId}"`);
  }
  const badToken = tokenProblem(given.token);
  if (badToken !== null) throw new Error(`${tokenName}: ${badToken}`);
  return { hostUrl: given.hostUrl, accountId, token: given.token };
}

/** A resource's own connection as declared (the `connection` input): kept as a secret, since it holds a token. */
export interface ResourceConnection {
  /** The API base URL, ending in /api. */
  hostUrl: string;
  accountId: number;
  token: string;
}

/** What is wrong with a resource's own connection, if it has one, as one sentence naming the setting. */
export function connectionProblem(connection: unknown): string | null {
  if (connection === undefined || connection === null) return null;
  const given = connection as Partial<Record<keyof ResourceConnection, unknown>>;
  const missing = (['hostUrl', 'accountId', 'token'] as const).filter(
    (key) => given[key] === undefined || given[key] === '',
  );
  if (missing.length > 0) return `connection needs ${missing.join(', ')}`;
  const badUrl = hostUrlProblem(String(given.hostUrl));
  if (badUrl !== null) return `connection.${badUrl}`;
  try {
    checkedConnection(given as ResourceConnection, 'connection.accountId', 'connection.token');
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The typed clients of one provider, built when first needed: the stack's from the config the host passed to
 * configure(), one per resource's own connection.
 */
export function createClients(
  env: NodeJS.ProcessEnv,
  limits: { timeoutMs: number; maxAttempts?: number } = { timeoutMs: REQUEST_TIMEOUT_MS },
) {
  let config: ConfigSource | undefined;
  const clients = new Map<string, WebhooksClient>();
  return {
    configure(next: ConfigSource | undefined): void {
      config = next;
      clients.clear();
    },
    /** The stack's connection (config, then environment), or null when it is not set up. */
    stack(): Connection | null {
      try {
        return resolveConnection(config, env);
      } catch {
        return null;
      }
    },
    of(own: ResourceConnection | undefined): WebhooksClient {
      const key = own ? JSON.stringify([own.hostUrl, own.accountId, own.token]) : '';
      let client = clients.get(key);
      if (client === undefined) {
        const connection = own
          ? checkedConnection(own, 'connection.accountId', 'connection.token')
          : resolveConnection(config, env);
        client = createWebhooksClient({ ...connection, ...limits });
        clients.set(key, client);
      }
      return client;
    },
  };
}
