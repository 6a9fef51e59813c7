// Routes for operators and tooling: health check, Prometheus metrics, and the OpenAPI document generated
// from the zod schemas. Metrics carry no account data, only service-wide counts, so they need no token.
import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
import type { Store } from '../../store/store';

export const operationsRoutes: FastifyPluginAsync<{ store: Store; metrics: Registry }> = async (app, { store, metrics }) => {
  app.get('/healthz', { schema: { hide: true } }, async (request, reply) => {
    try {
      await store.ping();
      return { status: 'ok' };
    } catch (error) {
      request.log.error({ err: error }, 'health check failed');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(metrics.contentType).send(await metrics.metrics()),
  );
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
