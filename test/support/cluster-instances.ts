// What the suites that run several service processes on one PostgreSQL database share: each instance's settings,
// a statement run on the database from outside the service, and one authenticated read.
import pg from 'pg';
import { request } from 'undici';
import { ADMIN_TOKEN } from './harness';
import { TEST_SECRET_KEY } from './postgres';

/** An instance's environment on the database at `url`. */
export const instanceEnv = (url: string, extra: Record<string, string> = {}): Record<string, string> => ({
  JOBHOOKS_DATABASE_URL: url,
  JOBHOOKS_SECRET_KEY: TEST_SECRET_KEY,
  JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
  JOBHOOKS_RATE_LIMIT_PER_MINUTE: '1000000',
  // The shortest lease allowed, so deliveries a killed instance had claimed come due again soon.
  JOBHOOKS_DELIVERY_LEASE_SECONDS: '15',
  JOBHOOKS_RETRY_SCHEDULE: '1,1,1,1,1',
  ...extra,
});

/** The same, making account 1 with ADMIN_TOKEN if the database has no account yet. */
export const withBootstrap = (url: string, extra: Record<string, string> = {}): Record<string, string> =>
  instanceEnv(url, { JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: '1', JOBHOOKS_BOOTSTRAP_TOKEN: ADMIN_TOKEN, ...extra });

/** Runs one statement on its own connection. */
export async function sqlOn<R extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The status of account 1's webhook list read with `token`. */
export async function statusOf(baseUrl: string, token: string): Promise<number> {
  const response = await request(`${baseUrl}/v3/accounts/1/webhooks/subscriptions`, {
    headers: { authorization: `Token ${token}` },
  });
  await response.body.dump();
  return response.statusCode;
}
