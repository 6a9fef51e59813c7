// Where the Pulumi provider finds the API: stack config (`jobhooks:baseUrl`, `jobhooks:accountId`,
// `jobhooks:token`) or the public provider's environment variables. Never an input, so the token stays out of state.
export interface Connection {
  hostUrl: string;
  accountId: number;
  token: string;
}

/** A stack configuration as Pulumi's dynamic-provider host hands it over. */
export interface ConfigSource {
  get(key: string): string | undefined;
}

const SOURCES = {
  hostUrl: { config: 'jobhooks:baseUrl', env: 'DBT_CLOUD_HOST_URL' },
  accountId: { config: 'jobhooks:accountId', env: 'DBT_CLOUD_ACCOUNT_ID' },
  token: { config: 'jobhooks:token', env: 'DBT_CLOUD_TOKEN' },
} as const;

/** The connection, or an error that names every missing setting and both ways to give it. */
export function resolveConnection(config: ConfigSource | undefined, env: NodeJS.ProcessEnv): Connection {
  const value = (name: keyof typeof SOURCES) => config?.get(SOURCES[name].config) || env[SOURCES[name].env] || undefined;
  const missing = (Object.keys(SOURCES) as Array<keyof typeof SOURCES>).filter((name) => value(name) === undefined);
  if (missing.length > 0) {
    const how = missing.map((name) => `${SOURCES[name].config} (or ${SOURCES[name].env})`).join(', ');
    throw new Error(`The jobhooks provider is not configured: set ${how}. Example: pulumi config set --secret jobhooks:token <token>`);
  }
  const accountId = Number(value('accountId'));
  if (!Number.isSafeInteger(accountId) || accountId <= 0) {
    throw new Error(`jobhooks:accountId must be a positive whole number, not "${value('accountId')}"`);
  }
  return { hostUrl: value('hostUrl')!, accountId, token: value('token')! };
}
