// Which server and account a command talks to: the rules shared by every command-line tool (@jobhooks/client's
// connection settings, whose problems are CliErrors), and the client it talks through, which says on stderr what
// it waits for whenever it waits.
import { type Connection, createWebhooksClient, type RetryWait, type WebhooksClient } from '@jobhooks/client';

export { type Connection, connectionFrom, type ConnectionFlags, describeApiFailure } from '@jobhooks/client';

/** A wait as a person reads it: whole seconds from 10 s up, tenths below. */
function seconds(ms: number): string {
  const s = ms / 1000;
  return `${s >= 10 ? Math.round(s) : Math.round(s * 10) / 10} s`;
}

/** One line for stderr at the start of a wait before a retry: what for, how long, and which attempt follows. */
export function retryWaitNotice(wait: RetryWait, connection: Pick<Connection, 'hostUrl'>): string {
  const { cause } = wait;
  let why: string;
  if (cause.kind === 'unreachable') why = `${connection.hostUrl} could not be reached (${cause.error})`;
  else if (cause.status === 429)
    why = `the server is limiting this account's requests (HTTP 429${cause.retryAfter === null ? '' : `, Retry-After: ${cause.retryAfter}`})`;
  else why = `the server answered HTTP ${cause.status}`;
  return `Waiting ${seconds(wait.waitMs)} before attempt ${wait.nextAttempt} of ${wait.maxAttempts} (${wait.operation}): ${why}.\n`;
}

/**
 * The API client of a connection: retries 429 (Retry-After, or a growing backoff), 5xx and connection failures a
 * bounded number of times, and tells `notify` at the start of every wait.
 */
export function clientOf(connection: Connection, notify: (line: string) => void): WebhooksClient {
  // Five attempts, each wait at most the 300 s a jobhooks account's rate limit lasts: a CI run waits out a
  // rate limit rather than fail, but does not wait forever.
  return createWebhooksClient({
    hostUrl: connection.hostUrl,
    accountId: connection.accountId,
    token: connection.token,
    maxAttempts: 5,
    maxRetryDelayMs: 300_000,
    onRetryWait: (wait) => notify(retryWaitNotice(wait, connection)),
  });
}
