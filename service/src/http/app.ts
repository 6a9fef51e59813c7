// Builds the Fastify app (never listens): JSON parsing, error envelope, OpenAPI, access control, routes and the web UI.
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { AccountService } from '../accounts/account-service';
import type { RateLimiter } from '../accounts/rate-limit-policy';
import type { SignInThrottle } from '../accounts/sign-in-throttle';
import { LIMITS } from '@jobhooks/client/contract';
import type { Registry } from 'prom-client';
import type { DeliveryLogService } from '../delivery/delivery-log-service';
import type { IngestionService } from '../events/ingestion-service';
import type { Store } from '../store/store';
import type { OperationalEndpointService } from '../webhooks/operational-endpoint-service';
import type { StatisticsService } from '../webhooks/statistics-service';
import type { WebhookService } from '../webhooks/webhook-service';
import { accessControlPlugin } from './access-control';
import { answerUnreadableRequest, refuseUnmetExpectations } from './unreadable-request';
import { frameworkErrorHandler, registerErrorEnvelope } from './error-envelope';
import { registerJsonBodyParser } from './json-body';
import { OPENAPI_OPTIONS } from './openapi';
import { responseSerializerCompiler } from './response-serializer';
import { accountRoutes } from './routes/accounts';
import { deliveryRoutes } from './routes/deliveries';
import { operationalEndpointRoutes } from './routes/operational-endpoints';
import { eventRoutes } from './routes/events';
import { operationsRoutes } from './routes/operations';
import { statisticsRoutes } from './routes/statistics';
import { webhookRoutes } from './routes/webhooks';
import { webUiRoutes } from './web-ui';
import type { StorageHealth } from '../observability/storage-failures';
import { BUILT_UI_DIRECTORY } from '../core/package-files';

export interface AppDeps {
  store: Store;
  accounts: AccountService;
  webhooks: WebhookService;
  ingestion: IngestionService;
  deliveryLog: DeliveryLogService;
  operational: OperationalEndpointService;
  statistics: StatisticsService;
  metrics: Registry;
  rateLimiter: RateLimiter;
  signInThrottle: SignInThrottle;
  /** Which proxies' X-Forwarded-For to believe for the client address (Fastify's trustProxy); none by default. */
  trustProxy?: boolean | string;
  /** Storage failures seen by requests, for the 503 answers, their log lines and /readyz. */
  storageHealth: StorageHealth;
  logger: FastifyServerOptions['logger'];
  /** Protections the configuration turns off, for /readyz (config-warnings.ts); none when omitted. */
  warnings?: readonly string[];
  /** The built web UI; dist/ui of this package unless a test says otherwise. */
  uiDirectory?: string;
}

/** Secrets that must never reach a log line, whatever a future log call includes. */
export const REDACTED_LOG_PATHS = [
  'req.headers.authorization',
  'req.headers["idempotency-key"]',
  'hmac_secret',
  '*.hmac_secret',
  'data.hmac_secret',
];

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger,
    bodyLimit: LIMITS.bodyMaxBytes,
    // The Terraform provider calls /api/v2/accounts/ with a trailing slash.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    return503OnClosing: true,
    trustProxy: deps.trustProxy ?? false,
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler: answerUnreadableRequest,
  });
  refuseUnmetExpectations(app.server);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler);
  registerJsonBodyParser(app, LIMITS.bodyMaxBytes);
  registerErrorEnvelope(app, {
    storageHealth: deps.storageHealth,
    onServerError: (request) => {
      if (request.rateAdmission !== null) deps.rateLimiter.refund(request.rateAdmission);
    },
  });

  await app.register(fastifySwagger, OPENAPI_OPTIONS);
  await app.register(accessControlPlugin, {
    accounts: deps.accounts,
    rateLimiter: deps.rateLimiter,
    signInThrottle: deps.signInThrottle,
  });
  await app.register(operationsRoutes, {
    store: deps.store,
    metrics: deps.metrics,
    storageHealth: deps.storageHealth,
    warnings: deps.warnings ?? [],
  });
  await app.register(accountRoutes);
  await app.register(webhookRoutes, { webhooks: deps.webhooks });
  await app.register(eventRoutes, { ingestion: deps.ingestion });
  await app.register(deliveryRoutes, { deliveryLog: deps.deliveryLog });
  await app.register(operationalEndpointRoutes, { endpoints: deps.operational, deliveryLog: deps.deliveryLog });
  await app.register(statisticsRoutes, { statistics: deps.statistics });
  await app.register(webUiRoutes, { directory: deps.uiDirectory ?? BUILT_UI_DIRECTORY });
  await app.ready();
  return app;
}
