// The one place that wires the service's parts together from the configuration.
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { dirname, join } from 'node:path';
import { createAccountService, type AccountService } from './accounts/account-service';
import { createRateLimiter } from './accounts/rate-limit-policy';
import type { Config } from './config';
import { type Clock, createSystemClock } from './core/clock';
import { createIdGenerator } from './core/ids';
import { cryptoRandomBytes, type RandomBytes } from './core/random';
import { createHttpSender, type HttpSender } from './delivery/sender';
import type { LookupAll } from './delivery/guarded-lookup';
import { buildApp, REDACTED_LOG_PATHS } from './http/app';
import { createSecretBox, loadSecretKey } from './security/secret-box';
import { createSqliteStore } from './store/sqlite-store';
import { createSubscriptionService } from './subscriptions/subscription-service';
import type { Store } from './store/store';

export interface ServiceOverrides {
  clock?: Clock;
  random?: RandomBytes;
  resolve?: LookupAll;
  /** Pino options or a logger destination, e.g. a stream a test reads. */
  logger?: FastifyServerOptions['logger'];
}

export interface Service {
  app: FastifyInstance;
  store: Store;
  accounts: AccountService;
  close(): Promise<void>;
}

export async function createService(config: Config, overrides: ServiceOverrides = {}): Promise<Service> {
  const clock = overrides.clock ?? createSystemClock();
  const random = overrides.random ?? cryptoRandomBytes;
  const ids = createIdGenerator(clock, random);
  const secretKey = loadSecretKey({
    envValue: config.secretKey,
    keyFile: join(dirname(config.databasePath), 'secret.key'),
    random,
  });
  const store = createSqliteStore(config.databasePath);
  const sender: HttpSender = createHttpSender({ allowPrivateUrls: config.allowPrivateUrls, resolve: overrides.resolve });
  try {
    const accounts = createAccountService({ store, clock, ids, random });
    if (config.bootstrap) await accounts.ensureBootstrapToken(config.bootstrap.accountId, config.bootstrap.token);
    const subscriptions = createSubscriptionService({
      store,
      clock,
      ids,
      random,
      secretBox: createSecretBox(secretKey, random),
      send: sender.send,
      maxSubscriptionsPerAccount: config.maxSubscriptionsPerAccount,
      allowPrivateUrls: config.allowPrivateUrls,
    });
    const app = await buildApp({
      store,
      accounts,
      subscriptions,
      rateLimiter: createRateLimiter(clock, config.rateLimitPerMinute),
      logger: overrides.logger ?? { level: config.logLevel, redact: REDACTED_LOG_PATHS },
    });
    let closing: Promise<void> | null = null;
    return {
      app,
      store,
      accounts,
      // Idempotent: a signal handler and a test teardown may both ask.
      close: () =>
        (closing ??= (async () => {
          await app.close();
          await sender.close();
          await store.close();
        })()),
    };
  } catch (error) {
    await sender.close();
    await store.close();
    throw error;
  }
}
