// Routes for operators and tooling: health check and the OpenAPI document generated from the zod schemas.
import type { FastifyPluginAsync } from 'fastify';
import type { Store } from '../../store/store';

export const operationsRoutes: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  app.get('/healthz', { schema: { hide: true } }, async (request, reply) => {
    try {
      await store.ping();
      return { status: 'ok' };
    } catch (error) {
      request.log.error({ err: error }, 'health check failed');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
