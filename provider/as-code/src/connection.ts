// Which server and account a command talks to, and with which token: the flags, then jobhooks' variables, then
// the ones terraform-provider-dbtcloud reads, so a CI already set up for dbt Cloud needs nothing new. The token
// comes only from the environment, never from a flag (flags end up in shell history and process lists).
import { ApiError, createWebhooksClient, hostUrlProblem, type WebhooksClient } from '@jobhooks/client';
import { ZodError } from 'zod';
import { CliError } from './cli-error';

export interface ConnectionFlags {
  hostUrl?: string;
  accountId?: string;
}

export interface Connection {
  hostUrl: string;
  accountId: number;
  token: string;
  /** Where the token came from, to name it in an error. */
  tokenVariable: string;
  accountIdSource: string;
}

const VARIABLES = {
  hostUrl: ['JOBHOOKS_HOST_URL', 'DBT_CLOUD_HOST_URL'],
  accountId: ['JOBHOOKS_ACCOUNT_ID', 'DBT_CLOUD_ACCOUNT_ID'],
  token: ['JOBHOOKS_TOKEN', 'DBT_CLOUD_TOKEN'],
} as const;

function fromEnvironment(names: readonly string[], env: NodeJS.ProcessEnv): { value: string; source: string } | null {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return { value, source: name };
  }
  return null;
}

export function connectionFrom(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Connection {
  const host =
    flags.hostUrl !== undefined
      ? { value: flags.hostUrl, source: '--host-url' }
      : fromEnvironment(VARIABLES.hostUrl, env);
  if (host === null)
    throw new CliError(
      `No server: set JOBHOOKS_HOST_URL (or DBT_CLOUD_HOST_URL), or pass --host-url, to the API base URL ending in /api.`,
    );
  const hostProblem = hostUrlProblem(host.value);
  if (hostProblem !== null) throw new CliError(`${host.source}: ${hostProblem}`);
  const account =
    flags.accountId !== undefined
      ? { value: flags.accountId, source: '--account-id' }
      : fromEnvironment(VARIABLES.accountId, env);
  if (account === null)
    throw new CliError('No account: set JOBHOOKS_ACCOUNT_ID (or DBT_CLOUD_ACCOUNT_ID), or pass --account-id.');
  if (!/^[1-9]\d*$/.test(account.value) || !Number.isSafeInteger(Number(account.value)))
    throw new CliError(`${account.source} must be an account id (a positive whole number), not "${account.value}".`);
  const token = fromEnvironment(VARIABLES.token, env);
  if (token === null)
    throw new CliError('No token: set JOBHOOKS_TOKEN (or DBT_CLOUD_TOKEN) to an API token of the account.');
  return {
    hostUrl: host.value,
    accountId: Number(account.value),
    token: token.value,
    tokenVariable: token.source,
    accountIdSource: account.source,
  };
}

/** The API client of a connection: retries 429 (Retry-After, or a growing backoff) and 5xx a bounded number of times. */
export function clientOf(connection: Connection): WebhooksClient {
  // Five attempts, each wait at most the 300 s a jobhooks account's rate limit lasts: a CI run waits out a
  // rate limit rather than fail, but does not wait forever.
  return createWebhooksClient({
    hostUrl: connection.hostUrl,
    accountId: connection.accountId,
    token: connection.token,
    maxAttempts: 5,
    maxRetryDelayMs: 300_000,
  });
}

/** A failed API call as one sentence that says what to check. */
export function describeApiFailure(error: unknown, connection: Connection): string {
  // An answer that is not the API's JSON (a web page, another service's JSON): most likely the wrong host URL.
  if (error instanceof SyntaxError || error instanceof ZodError)
    return `The server at ${connection.hostUrl} did not answer as the webhooks API does: is the host URL right?`;
  if (!(error instanceof ApiError)) return (error as Error).message;
  // One line, whatever the server wrote (an HTML error page has many).
  const said = `HTTP ${error.status}: ${error.userMessage.replace(/\s+/g, ' ').trim().replace(/\.$/, '')}`;
  switch (error.status) {
    case 401:
      return `The server at ${connection.hostUrl} refused the token in ${connection.tokenVariable} (${said}).`;
    case 403:
      return `The token in ${connection.tokenVariable} may not do this on account ${connection.accountId} (${said}).`;
    case 404:
      return error.operation === 'List webhooks'
        ? `Account ${connection.accountId} (${connection.accountIdSource}) was not found at ${connection.hostUrl} (${said}).`
        : `${error.operation} failed: not found (${said}).`;
    case 429:
      return `${error.operation} was still rate limited after several waits (${said}); run it again later.`;
    default:
      return `${error.operation} failed (${said}).`;
  }
}
