// Which server and account a command talks to: the rules shared by every command-line tool (@jobhooks/client's
// connection settings), their problems as this tool's errors, and the client it talks through.
import {
  type Connection,
  ConnectionProblem,
  connectionFrom as settingsFrom,
  type ConnectionFlags,
  createWebhooksClient,
  type WebhooksClient,
} from '@jobhooks/client';
import { CliError } from './cli-error';

export { type Connection, type ConnectionFlags, describeApiFailure } from '@jobhooks/client';

export function connectionFrom(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Connection {
  try {
    return settingsFrom(flags, env);
  } catch (error) {
    if (error instanceof ConnectionProblem) throw new CliError(error.message);
    throw error;
  }
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
