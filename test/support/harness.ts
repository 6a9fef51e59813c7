// Starts a real service for a test, with a known admin token: on a real SQLite file in a temporary folder, or,
// in the postgres jest projects, on a new database of the suite's PostgreSQL cluster (test/support/postgres.ts).
// In the "postgres, two instances" project a second service runs on the same database and the requests of
// `call` alternate between the two, as a load balancer would send them: the API must answer the same.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyServerOptions } from 'fastify';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig } from '../../service/src/config';
import { type Clock, createSystemClock } from '../../service/src/core/clock';
import { createService, type Service } from '../../service/src/wiring';
import { type DatabaseInspector, inspectDatabase } from './db-inspect';
import { createTestDatabase, INSTANCES_ENV, TEST_SECRET_KEY, testBackend } from './postgres';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
export const ACCOUNT_ID = 1;

export interface Harness {
  service: Service;
  dir: string;
  /** The SQLite file; unused on PostgreSQL. */
  dbPath: string;
  /** The PostgreSQL database's URL, or null on SQLite. */
  databaseUrl: string | null;
  /** The service's database, read (and set up by hand) in SQL that both backends run. */
  db: DatabaseInspector;
  call(method: string, url: string, options?: CallOptions): Promise<LightMyRequestResponse>;
  /** How many calls each service answered (two services in the "postgres, two instances" project). */
  answeredBy: number[];
  /** The services `call` sends to in turn: `service`, then its peer on the same database when there is one. */
  services: Service[];
  /** Listens on 127.0.0.1 on a free port and returns the API base URL, ending in /api. */
  listen(): Promise<string>;
  /** Makes a token with this permission set on `accountId` (the account is created when missing). */
  token(
    permissionSet: Parameters<Service['accounts']['createToken']>[0]['permissionSet'],
    accountId?: number,
  ): Promise<string>;
  close(): Promise<void>;
}

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** A folder to keep the database in across harnesses (kept on close); a new temporary one otherwise. */
  dir?: string;
  /** On PostgreSQL, a database to keep across harnesses (a new one otherwise). */
  databaseUrl?: string;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
  /** How long closing lets HTTP responses in flight finish (the service's own default otherwise). */
  httpCloseGraceMs?: number;
}

/** How many services the harness runs on one database: 2 in the "postgres, two instances" jest project. */
export const servicesPerHarness = (): number => (process.env[INSTANCES_ENV] === '2' ? 2 : 1);

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'jobhooks-test-'));
  const dbPath = join(dir, 'jobhooks.db');
  const databaseUrl = testBackend() === 'postgres' ? (options.databaseUrl ?? (await createTestDatabase())) : null;
  const config = loadConfig({
    JOBHOOKS_DB: dbPath,
    ...(databaseUrl === null ? {} : { JOBHOOKS_DATABASE_URL: databaseUrl, JOBHOOKS_SECRET_KEY: TEST_SECRET_KEY }),
    JOBHOOKS_BOOTSTRAP_ACCOUNT_ID: String(ACCOUNT_ID),
    JOBHOOKS_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
    JOBHOOKS_ALLOW_PRIVATE_URLS: '1',
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const overrides = {
    // One clock for both instances of a harness: each system clock reads the wall clock once, so two could be up
    // to a millisecond apart, and a write on one could seem older than a write just before it on the other.
    clock: options.clock ?? createSystemClock(),
    logger: options.logger ?? false,
    httpCloseGraceMs: options.httpCloseGraceMs,
  };
  const service = await createService(config, overrides);
  const peer = databaseUrl !== null && servicesPerHarness() === 2 ? await createService(config, overrides) : null;
  /** The services `call` sends to in turn. */
  const answering = peer === null ? [service] : [service, peer];
  let calls = 0;
  const answeredBy = answering.map(() => 0);
  const db = inspectDatabase({ dbPath, databaseUrl });
  return {
    service,
    dir,
    dbPath,
    databaseUrl,
    db,
    answeredBy,
    services: answering,
    call: (method, url, { token = ADMIN_TOKEN, body, rawBody, headers = {} } = {}) => {
      const turn = calls++ % answering.length;
      answeredBy[turn]! += 1;
      return answering[turn]!.app.inject({
        method: method as 'GET',
        url,
        headers: {
          ...(token === null ? {} : { authorization: `Token ${token}` }),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(rawBody !== undefined ? { payload: rawBody } : body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
    },
    listen: async () => `${await service.app.listen({ host: '127.0.0.1', port: 0 })}/api`,
    token: async (permissionSet, accountId = ACCOUNT_ID) => {
      if (!(await service.store.accounts.get(accountId))) await service.accounts.createAccount({ id: accountId });
      return (await service.accounts.createToken({ accountId, permissionSet })).token;
    },
    close: async () => {
      await db.close();
      await Promise.all(answering.map((s) => s.close()));
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const webhooksPath = (accountId = ACCOUNT_ID) => `/api/v3/accounts/${accountId}/webhooks/subscriptions`;
export const webhookPath = (id: string, accountId = ACCOUNT_ID) =>
  `/api/v3/accounts/${accountId}/webhooks/subscription/${id}`;

export const validCreateBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Notify the data team',
  description: 'Posts run results',
  client_url: 'https://hooks.example.com/dbt',
  event_types: ['job.run.completed', 'job.run.started'],
  job_ids: [42, 7],
  active: true,
  ...overrides,
});

/** Creates a webhook through the API and returns the create response's data. */
export async function createWebhook(h: Harness, overrides: Record<string, unknown> = {}) {
  const response = await h.call('POST', webhooksPath(), { body: validCreateBody(overrides) });
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.statusCode} ${response.body}`);
  return response.json().data as Record<string, unknown> & { id: string; hmac_secret: string };
}
