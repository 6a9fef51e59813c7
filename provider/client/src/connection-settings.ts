// Which server and account a command-line tool talks to, and with which token: the flags, then jobhooks' variables,
// then the ones terraform-provider-dbtcloud reads, so a CI already set up for dbt Cloud needs nothing new. The token
// comes only from the environment, never from a flag (flags end up in shell history and process lists).
import { CliError } from './cli-error';
import { ApiError, InvalidRequest, UnexpectedAnswer } from './client';
import { hostUrlProblem } from './host-url';
import { tokenProblem } from './api-token';

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

/** The environment variables of each setting, first one set wins. */
export const CONNECTION_VARIABLES = {
  hostUrl: ['JOBHOOKS_HOST_URL', 'DBT_CLOUD_HOST_URL'],
  accountId: ['JOBHOOKS_ACCOUNT_ID', 'DBT_CLOUD_ACCOUNT_ID'],
  token: ['JOBHOOKS_TOKEN', 'DBT_CLOUD_TOKEN'],
} as const;

/** The connection part of a command's --help, in the two columns every jobhooks command-line tool uses. */
export const CONNECTION_HELP = [
  `  --host-url URL              or ${CONNECTION_VARIABLES.hostUrl.join(', or ')}: the API base URL, ending in /api`,
  `  --account-id ID             or ${CONNECTION_VARIABLES.accountId.join(', or ')}`,
  `                              the token only from ${CONNECTION_VARIABLES.token.join(', or ')}`,
].join('\n');

/** A connection setting that is missing or wrong, as one sentence naming the setting: a CliError, exit code 1. */
export class ConnectionProblem extends CliError {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionProblem';
  }
}

/** The first of `names` set to a non-empty value, and its name. */
export function fromEnvironment(
  names: readonly string[],
  env: NodeJS.ProcessEnv,
): { value: string; source: string } | null {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return { value, source: name };
  }
  return null;
}

/** The connection the flags and the environment give; a ConnectionProblem names what is missing or wrong. */
export function connectionFrom(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Connection {
  const host =
    flags.hostUrl !== undefined
      ? { value: flags.hostUrl, source: '--host-url' }
      : fromEnvironment(CONNECTION_VARIABLES.hostUrl, env);
  if (host === null)
    throw new ConnectionProblem(
      `No server: set JOBHOOKS_HOST_URL (or DBT_CLOUD_HOST_URL), or pass --host-url, to the API base URL ending in /api.`,
    );
  const hostProblem = hostUrlProblem(host.value);
  if (hostProblem !== null) throw new ConnectionProblem(`${host.source}: ${hostProblem}`);
  const account =
    flags.accountId !== undefined
      ? { value: flags.accountId, source: '--account-id' }
      : fromEnvironment(CONNECTION_VARIABLES.accountId, env);
  if (account === null)
    throw new ConnectionProblem('No account: set JOBHOOKS_ACCOUNT_ID (or DBT_CLOUD_ACCOUNT_ID), or pass --account-id.');
  if (!/^[1-9]\d*$/.test(account.value) || !Number.isSafeInteger(Number(account.value)))
    throw new ConnectionProblem(
      `${account.source} must be an account id (a positive whole number), not "${account.value}".`,
    );
  const token = fromEnvironment(CONNECTION_VARIABLES.token, env);
  if (token === null)
    throw new ConnectionProblem('No token: set JOBHOOKS_TOKEN (or DBT_CLOUD_TOKEN) to an API token of the account.');
  const badToken = tokenProblem(token.value);
  if (badToken !== null) throw new ConnectionProblem(`${token.source}: ${badToken}`);
  return {
    hostUrl: host.value,
    accountId: Number(account.value),
    token: token.value,
    tokenVariable: token.source,
    accountIdSource: account.source,
  };
}

/** `text` ended as a sentence: a full stop added unless it already ends in one, or in a question or exclamation mark. */
const asSentence = (text: string): string => (/[.?!]$/.test(text.trimEnd()) ? text.trimEnd() : `${text.trimEnd()}.`);

/** A failed API call as one sentence that says what to check, ending in its full stop (or question mark). */
export function describeApiFailure(error: unknown, connection: Connection): string {
  // Only an answer of the server's that is not the API's JSON points at the host URL; a request this side
  // refused (InvalidRequest) says which field broke the contract.
  if (error instanceof UnexpectedAnswer)
    return `The server at ${connection.hostUrl} did not answer as the webhooks API does: is the host URL right?`;
  if (error instanceof InvalidRequest) return error.message;
  if (!(error instanceof ApiError)) return asSentence((error as Error).message);
  // One line, whatever the server wrote (an HTML error page has many).
  const said = `HTTP ${error.status}: ${error.userMessage.replace(/\s+/g, ' ').trim().replace(/\.$/, '')}`;
  switch (error.status) {
    case 401:
      return `The server at ${connection.hostUrl} refused the token in ${connection.tokenVariable} (${said}).`;
    case 403:
      return `The token in ${connection.tokenVariable} may not do this on account ${connection.accountId} (${said}).`;
    case 404:
      // The account's own collections (its webhooks, its events) are not found only when the account is not.
      return error.operation === 'List webhooks' || /^Post job\.run\.\w+ of run /.test(error.operation)
        ? `Account ${connection.accountId} (${connection.accountIdSource}) was not found at ${connection.hostUrl} (${said}).`
        : `${error.operation} failed: not found (${said}).`;
    case 429:
      return `${error.operation} was still rate limited after several waits (${said}); run it again later.`;
    default:
      return `${error.operation} failed (${said}).`;
  }
}
