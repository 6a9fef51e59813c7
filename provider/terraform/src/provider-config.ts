// The provider block (or DBT_CLOUD_* variables) to a configured API client, the way the public provider
// reads it: configuration first, environment second; then, unless skip_credentials_validation, a check
// that the token can see the account (GET /api/v2/accounts/), so a wrong token fails at plan, not mid-apply.
import {
  type ClientOptions,
  createWebhooksClient,
  DEFAULT_RETRYABLE_STATUSES,
  hostUrlProblem,
  tokenProblem,
  type WebhooksClient,
} from '@jobhooks/client';
import { type Diagnostic, diagnosticsOf, errorAt } from './diagnostics';
import { conform, PROVIDER_SCHEMA } from './schema';
import { asNumber, type TfObject, type TfValue, Unknown } from './values';

const DEFAULT_HOST_URL = 'https://cloud.getdbt.com/api';
const DEFAULT_MAX_RETRIES = 3;
/** The public provider's default: a request that hangs fails a plan rather than holding it forever. */
const DEFAULT_TIMEOUT_SECONDS = 30;
/** As the public provider checks each of retriable_status_codes. */
const STATUS_CODE = /^[1-5][0-9][0-9]$/;

export interface ProviderSettings {
  client: ClientOptions;
  skipCredentialsValidation: boolean;
}

const ENV = { account_id: 'DBT_CLOUD_ACCOUNT_ID', token: 'DBT_CLOUD_TOKEN', host_url: 'DBT_CLOUD_HOST_URL' } as const;

function known(config: TfObject, name: string): TfValue {
  return config[name] ?? null;
}

/** Problems of the values given in the block itself (validation runs before any variable is known). */
export function validateProviderConfig(value: TfValue): Diagnostic[] {
  const config = conform(PROVIDER_SCHEMA, value);
  if (config === null) return [];
  const problems: Diagnostic[] = [];
  const accountId = known(config, 'account_id');
  if (accountId !== null && !(accountId instanceof Unknown)) {
    const id = asNumber(accountId);
    if (id === null || !Number.isSafeInteger(id) || id <= 0)
      problems.push(errorAt('account_id', 'Invalid account_id', 'account_id must be a positive whole number.'));
  }
  const hostUrl = known(config, 'host_url');
  const problem = typeof hostUrl === 'string' ? hostUrlProblem(hostUrl) : null;
  if (problem !== null) problems.push(errorAt('host_url', 'Invalid host_url', problem));
  const statuses = known(config, 'retriable_status_codes');
  for (const status of Array.isArray(statuses) ? statuses : []) {
    if (typeof status === 'string' && !STATUS_CODE.test(status))
      problems.push(
        errorAt(
          'retriable_status_codes',
          'Invalid retriable_status_codes',
          `${JSON.stringify(status)} is not an HTTP status code: each must be a valid HTTP status code (100-599).`,
        ),
      );
  }
  const timeout = asNumber(known(config, 'timeout_seconds'));
  if (timeout !== null && !(timeout >= 0))
    problems.push(
      errorAt('timeout_seconds', 'Invalid timeout_seconds', 'timeout_seconds must be 0 (no limit) or more.'),
    );
  return problems;
}

/** The settings, or diagnostics naming each missing or unknown setting and how to give it. */
export function resolveProviderSettings(
  value: TfValue,
  env: NodeJS.ProcessEnv,
): { settings: ProviderSettings | null; diagnostics: Diagnostic[] } {
  const config = conform(PROVIDER_SCHEMA, value) ?? conform(PROVIDER_SCHEMA, {})!;
  const diagnostics: Diagnostic[] = [];
  for (const name of ['account_id', 'token', 'host_url'] as const) {
    if (config[name] instanceof Unknown) {
      diagnostics.push(
        errorAt(
          name,
          `Unknown ${name}`,
          `${name} depends on a value known only after apply; the provider needs it to plan.`,
        ),
      );
    }
  }
  if (diagnostics.length > 0) return { settings: null, diagnostics };

  const accountId = asNumber(known(config, 'account_id')) ?? (env[ENV.account_id] ? Number(env[ENV.account_id]) : null);
  const token = (known(config, 'token') as string | null) ?? env[ENV.token] ?? '';
  const hostUrl = (known(config, 'host_url') as string | null) ?? (env[ENV.host_url] || DEFAULT_HOST_URL);
  if (accountId === null || !Number.isSafeInteger(accountId) || accountId <= 0) {
    diagnostics.push(
      errorAt(
        'account_id',
        'Missing dbt Cloud account identifier',
        `Set account_id in the provider block or ${ENV.account_id} to a positive whole number.`,
      ),
    );
  }
  const badToken = token === '' ? null : tokenProblem(token);
  if (token === '')
    diagnostics.push(errorAt('token', 'Missing dbt Cloud token', `Set token in the provider block or ${ENV.token}.`));
  else if (badToken !== null) diagnostics.push(errorAt('token', 'Invalid token', `token: ${badToken}`));
  const hostUrlIssue = hostUrlProblem(hostUrl);
  if (hostUrlIssue !== null) diagnostics.push(errorAt('host_url', 'Invalid host_url', hostUrlIssue));
  if (diagnostics.length > 0) return { settings: null, diagnostics };

  const disableRetry = known(config, 'disable_retry') === true;
  const maxRetries = asNumber(known(config, 'max_retries')) ?? DEFAULT_MAX_RETRIES;
  const interval = asNumber(known(config, 'retry_interval_seconds'));
  const timeout = asNumber(known(config, 'timeout_seconds'));
  const statuses = known(config, 'retriable_status_codes');
  return {
    settings: {
      client: {
        hostUrl,
        accountId: accountId!,
        token,
        maxAttempts: disableRetry ? 1 : Math.max(0, maxRetries) + 1,
        ...(interval !== null ? { firstRetryDelayMs: interval * 1000 } : {}),
        timeoutMs: (timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
        // Retried besides the defaults, as by the public provider: listing 409 does not stop 429 being retried.
        ...(Array.isArray(statuses)
          ? { retryableStatuses: [...new Set([...DEFAULT_RETRYABLE_STATUSES, ...statuses.map(Number)])] }
          : {}),
      },
      skipCredentialsValidation: known(config, 'skip_credentials_validation') === true,
    },
    diagnostics: [],
  };
}

/** A client for the settings, after checking (unless skipped) that the token sees the account. */
export async function connect(
  settings: ProviderSettings,
): Promise<{ client: WebhooksClient | null; diagnostics: Diagnostic[] }> {
  const client = createWebhooksClient(settings.client);
  if (settings.skipCredentialsValidation) return { client, diagnostics: [] };
  try {
    const accounts = await client.accounts();
    if (!accounts.some((account) => Number(account.id) === settings.client.accountId)) {
      const detail = `The token does not give access to account ${settings.client.accountId} at ${settings.client.hostUrl}.`;
      return { client: null, diagnostics: [errorAt('account_id', 'Account not accessible', detail)] };
    }
    return { client, diagnostics: [] };
  } catch (error) {
    return { client: null, diagnostics: diagnosticsOf(error, `Unable to connect to ${settings.client.hostUrl}`) };
  }
}
