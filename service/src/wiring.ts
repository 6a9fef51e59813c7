// The one place that wires the service's parts together from the configuration.
import { microsFromSeconds, type Millis } from './core/time';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { hostname } from 'node:os';
import { createAccountService, type AccountService } from './accounts/account-service';
import { RATE_COOLDOWN_MS } from './accounts/rate-limit-policy';
import { createRateLimiter } from './accounts/rate-limiter';
import { createSignInThrottle } from './accounts/sign-in-throttle';
import type { Config } from './config';
import { configurationWarnings } from './config-warnings';
import { type Clock, createSystemClock, nowMillis } from './core/clock';
import { createIdGenerator } from './core/ids';
import { cryptoRandomBytes, type RandomBytes, uniformFraction } from './core/random';
import { createHeadersOnlyTracing, type Tracing } from './core/tracing';
import { createDeliveryLogService } from './delivery/delivery-log-service';
import { createDispatcher, type Dispatcher } from './delivery/dispatcher';
import { createOperationalEventMaker } from './delivery/operational-payload';
import { createOperationalEndpointService } from './webhooks/operational-endpoint-service';
import { DEFAULT_HEALTH_RULES, EndpointHealthRegistry } from './delivery/endpoint-health';
import { createRetentionJob, type RetentionJob } from './delivery/log-retention';
import { createThreadedSender, REPLY_DEADLINE_MS } from './delivery/sender-thread';
import { createIngestionService } from './events/ingestion-service';
import type { LogStream } from './observability/held-log-stream';
import { createMetrics } from './observability/metrics';
import { buildApp, REDACTED_LOG_PATHS } from './http/app';
import { closeWithin } from './http/close-within';
import { createStatisticsService } from './webhooks/statistics-service';
import { type SecretBox, secretKeyFileOf } from './security/secret-box';
import { openCheckedSecretBox } from './security/secret-key-check';
import { openStore } from './store/open-store';
import { createWebhookService } from './webhooks/webhook-service';
import type { Store } from './store/store';
import { createStorageHealth } from './observability/storage-failures';

export interface ServiceOverrides {
  clock?: Clock;
  random?: RandomBytes;
  /** Pino options or a logger destination, e.g. a stream a test reads. */
  logger?: FastifyServerOptions['logger'];
  /** Where the configured logger writes its JSON lines instead of stdout (`logger` wins when both are given). */
  logStream?: LogStream;
  /** How long a closing service lets HTTP responses in flight finish before it cuts their connections. */
  httpCloseGraceMs?: Millis;
}

export interface Service {
  app: FastifyInstance;
  store: Store;
  accounts: AccountService;
  dispatcher: Dispatcher;
  retention: RetentionJob;
  /**
   * Stops taking requests and claiming deliveries at once; lets responses in flight finish (up to 5 s) and, at the
   * same time, deliveries in flight, recording their results (up to 13 s, SHUTDOWN_GRACE_MS); then closes the
   * database.
   */
  close(): Promise<void>;
}

/** How often the dispatcher looks for due retries when no ingestion wakes it. */
const DISPATCH_POLL_INTERVAL_MS: Millis = 200;
/** With PostgreSQL, each poll comes up to this fraction of the interval early or late. */
const DISPATCH_POLL_JITTER = 0.2;
/** The most a dispatcher waits after hearing that another instance queued deliveries. */
const NOTIFIED_WAKE_JITTER_MS: Millis = 20;
/**
 * SIGTERM lets attempts in flight run to their own 10 s limit, and records them, before the process exits: the
 * grace is the latest the sender thread answers an attempt and a second to write its result. An attempt that the
 * last claim started as the grace began has all of it.
 */
export const SHUTDOWN_GRACE_MS: Millis = REPLY_DEADLINE_MS + 1_000;
/** Ample for a client that reads: the largest file served, the API reference's script, is about 1 MB. */
const HTTP_CLOSE_GRACE_MS: Millis = 5_000;

/**
 * The OpenTelemetry SDK and its exporters, loaded only when traces are exported: without OTEL_* they are never
 * loaded, and each attempt's `traceparent` is a string of random ids (core/tracing.ts).
 */
function loadOtelTracing(): typeof import('./observability/otel-tracing') {
  return require('./observability/otel-tracing') as typeof import('./observability/otel-tracing');
}

/** Spans exported as OTEL_* says, or only the headers every attempt carries anyway. */
function createTracing(config: Config, clock: Clock, random: RandomBytes, onError: (error: Error) => void): Tracing {
  if (config.tracing === null) return createHeadersOnlyTracing(random);
  return loadOtelTracing().createOtelTracing(config.tracing, {
    clock,
    onExportError: (message) => onError(new Error(message)),
  });
}

export async function createService(config: Config, overrides: ServiceOverrides = {}): Promise<Service> {
  const clock = overrides.clock ?? createSystemClock();
  const random = overrides.random ?? cryptoRandomBytes;
  const ids = createIdGenerator(clock, random);
  // Until the app's logger exists, a background failure of the store goes to stderr.
  let logBackgroundError = (error: unknown, what: string): void => {
    process.stderr.write(`${what}: ${String(error)}\n`);
  };
  const store = await openStore({
    sqlitePath: config.databasePath,
    durability: config.durability,
    postgres: config.postgres,
    onBackgroundError: (error, what) => logBackgroundError(error, what),
  });
  let secretBox: SecretBox;
  try {
    secretBox = await openCheckedSecretBox({
      envValue: config.secretKey,
      keyFile: secretKeyFileOf(config.databasePath),
      store: store.secretKeys,
      random,
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const senderOptions = {
    allowPrivateUrls: config.allowPrivateUrls,
    // The dispatcher caps requests per webhook; a per-origin socket cap equal to that would let a slow
    // webhook block the sockets of other webhooks on the same host, so the pool may grow to the total cap.
    connectionsPerOrigin: config.delivery.maxInFlight,
    maskedResponseHeaders: config.maskedResponseHeaders,
  };
  // Requests go out from a worker thread, so sending uses the second core.
  const sender = createThreadedSender(senderOptions);
  const tracing = createTracing(config, clock, random, (error) => logBackgroundError(error, 'Exporting traces'));
  try {
    const accounts = createAccountService({ store, clock, ids, random });
    const { bootstrap } = config;
    // Instances started at once on one database take turns, so only one of them makes the account.
    if (bootstrap)
      await store.cluster.whileLocked('bootstrap', () =>
        accounts.ensureBootstrapToken(bootstrap.accountId, bootstrap.token),
      );
    // The dispatcher is made after the app (it logs through the app's logger); ingestion wakes it late-bound.
    let dispatcher: Dispatcher | null = null;
    // Each endpoint's capacity and circuit, learned from its answers, as the store keeps them: on the webhook's
    // row for every instance, or in the one SQLite process's memory (endpoint-health.ts).
    // The operational events that results and the circuit make true, written with them (docs/operational-webhooks.md).
    const operationalEvents = createOperationalEventMaker(ids, clock, random, config.publicUrl);
    const health = new EndpointHealthRegistry(
      { ...DEFAULT_HEALTH_RULES, maxInFlight: config.delivery.maxInFlightPerWebhook },
      () => uniformFraction(random),
      {
        store: store.endpointHealth,
        onError: (error) => logBackgroundError(error, "Writing an endpoint's health"),
        operationalEvents,
      },
    );
    const rateBudgets = {
      management: { limitPerMinute: config.rateLimitPerMinute, cooldownMs: RATE_COOLDOWN_MS },
      ingestion: { limitPerMinute: config.ingestRateLimitPerMinute, cooldownMs: 0 },
    };
    const metrics = createMetrics({
      store,
      clock,
      health,
      inFlight: () => dispatcher?.inFlight() ?? 0,
      backlogMaxAgeMs: config.metricsMaxAgeMs,
    });
    const storageHealth = createStorageHealth(() => nowMillis(clock));
    const webhooks = createWebhookService({
      store,
      clock,
      ids,
      random,
      secretBox,
      send: sender.send,
      health,
      tracing,
      maxWebhooksPerAccount: config.maxWebhooksPerAccount,
      allowPrivateUrls: config.allowPrivateUrls,
    });
    const app = await buildApp({
      store,
      accounts,
      webhooks,
      operational: createOperationalEndpointService({ webhooks, store, clock }),
      ingestion: createIngestionService({ store, clock, ids, tracing, onQueued: () => dispatcher?.wake() }),
      deliveryLog: createDeliveryLogService({
        store,
        clock,
        secretBox,
        send: sender.send,
        health,
        tracing,
        wake: () => dispatcher?.wake(),
        maskedResponseHeaders: config.maskedResponseHeaders,
        operationalEvents,
      }),
      statistics: createStatisticsService({ store, clock }),
      metrics: metrics.registry,
      rateLimiter: createRateLimiter(store.rateWindows, clock, rateBudgets, (error) =>
        logBackgroundError(error, 'Refunding a rate-limit admission'),
      ),
      signInThrottle: createSignInThrottle(store.signInWindows, clock, config.failedSignInsPerMinute, (error) =>
        logBackgroundError(error, 'Counting a failed sign-in'),
      ),
      trustProxy: config.trustProxy,
      storageHealth,
      warnings: configurationWarnings(config),
      logger: overrides.logger ?? {
        level: config.logLevel,
        redact: REDACTED_LOG_PATHS,
        ...(overrides.logStream === undefined ? {} : { stream: overrides.logStream }),
      },
    });
    logBackgroundError = (error, what) => app.log.error({ err: error }, `${what} failed`);
    const running: Dispatcher = createDispatcher({
      store,
      clock,
      send: sender.send,
      random,
      secretBox,
      tracing,
      owner: `${hostname()}:${process.pid}:${random(4).toString('hex')}`,
      retryDelaysSeconds: config.retryDelaysSeconds,
      limits: {
        maxInFlight: config.delivery.maxInFlight,
        maxInFlightPerWebhook: config.delivery.maxInFlightPerWebhook,
        leaseMicros: microsFromSeconds(config.delivery.leaseSeconds),
        pollIntervalMs: DISPATCH_POLL_INTERVAL_MS,
        // Several instances on one database poll it at scattered moments; one process polls on the beat.
        pollJitter: store.backend === 'postgres' ? DISPATCH_POLL_JITTER : 0,
      },
      health,
      operationalEvents,
      observer: metrics.observer,
      onError: (error, stage) => {
        // A full disk fails every claim and every result: one line a minute with a count, and /readyz says why.
        if (storageHealth.noteError(error, (line) => app.log.error({ stage }, line)) === null) {
          app.log.error({ err: error, stage }, 'delivery pipeline error');
        }
      },
    });
    dispatcher = running;
    // Another instance queued deliveries (PostgreSQL): look after a short random delay, so the instances that
    // heard it do not all claim at the same moment; the claim's locks make a lost race an empty claim.
    store.cluster.onDeliveriesQueued(() => {
      setTimeout(() => running.wake(), Math.floor(uniformFraction(random) * NOTIFIED_WAKE_JITTER_MS)).unref();
    });
    const retention = createRetentionJob({
      log: store.deliveryLog,
      webhooks: store.webhooks,
      cluster: store.cluster,
      clock,
      onError: (error) => app.log.error({ err: error }, 'delivery log purge failed'),
    });
    running.start();
    retention.start();
    let closing: Promise<void> | null = null;
    return {
      app,
      store,
      accounts,
      dispatcher: running,
      retention,
      // Idempotent: a signal handler and a test teardown may both ask.
      close: () =>
        (closing ??= (async () => {
          // Claims stop now: a retry falling due while API requests finish is left for the next start.
          const deliveriesDone = running.stop(SHUTDOWN_GRACE_MS);
          await closeWithin(app, overrides.httpCloseGraceMs ?? HTTP_CLOSE_GRACE_MS);
          await retention.stop();
          await deliveriesDone;
          await sender.close();
          // The spans of the last attempts are exported before the process goes.
          await tracing.close();
          await store.close();
        })()),
    };
  } catch (error) {
    await sender.close();
    await tracing.close();
    await store.close();
    throw error;
  }
}
