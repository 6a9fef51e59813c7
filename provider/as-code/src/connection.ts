// Which server and account a command talks to: the rules shared by every command-line tool (@jobhooks/client's
// connection settings, whose problems are CliErrors), and the client it talks through.
import { type Connection, createWebhooksClient, type WebhooksClient } from '@jobhooks/client';

export { type Connection, connectionFrom, type ConnectionFlags, describeApiFailure } from '@jobhooks/client';

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
