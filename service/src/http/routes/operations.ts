// Routes for operators and tooling: liveness and readiness, Prometheus metrics, and the OpenAPI document
// generated from the zod schemas. Metrics carry no account data, only service-wide counts, so they need no token.
import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
import type { StorageHealth } from '../../observability/storage-failures';
import type { Store } from '../../store/store';

interface OperationsOptions {
  store: Store;
  metrics: Registry;
  storageHealth: StorageHealth;
  /** Protections the configuration turns off (config-warnings.ts): /readyz lists them while the service runs. */
  warnings: readonly string[];
}

export const operationsRoutes: FastifyPluginAsync<OperationsOptions> = async (
  app,
  { store, metrics, storageHealth, warnings },
) => {
  // Present only when there is something to say, so a service with every protection on answers as before.
  const detail = warnings.length === 0 ? {} : { warnings };
  // Liveness: the process answers. A restart would not mend a full disk, so the database is readiness's business.
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  // Readiness: the database can be read and written now, and no request has just failed on it.
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const recent = storageHealth.recentFailure();
    if (recent !== null) return reply.code(503).send({ status: 'unavailable', reason: recent.reason, ...detail });
    try {
      await store.checkReadiness();
      return { status: 'ready', ...detail };
    } catch (error) {
      const reason = storageHealth.noteError(
        error,
        (line) => request.log.error(line),
        'the database cannot be read or written',
      );
      return reply.code(503).send({ status: 'unavailable', reason, ...detail });
    }
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(metrics.contentType).send(await metrics.metrics()),
  );
  app.get('/api/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send(app.swagger()),
  );
};
