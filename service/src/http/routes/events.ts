// POST /api/v3/accounts/{account_id}/webhooks/events: takes in one job-run event
// (docs/api-contract.md#10-event-ingestion).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AccountPathParams,
  COMMON_ERROR_RESPONSES,
  dataEnvelope,
  IngestedEvent,
  IngestEventBody,
} from '@jobhooks/client/contract';
import type { IngestionService } from '../../events/ingestion-service';
import { principalOf } from '../access-control';

export const eventRoutes: FastifyPluginAsyncZod<{ ingestion: IngestionService }> = async (app, { ingestion }) => {
  app.post('/api/v3/accounts/:account_id/webhooks/events', {
    config: { access: 'ingest' },
    schema: {
      tags: ['events'],
      operationId: 'ingestEvent',
      summary: 'Take in a job-run event and queue a delivery to every matching webhook',
      description:
        "Idempotent on (account, run.runId, event_type): a repeat returns the first event id, queues nothing, and carries Idempotent-Replayed: true. A valid W3C traceparent header (with tracestate) makes the event part of the caller's trace: every delivery attempt carries a traceparent of that trace; an invalid one is ignored.",
      params: AccountPathParams,
      body: IngestEventBody,
      response: { 202: dataEnvelope(IngestedEvent), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request, reply) => {
      const { traceparent, tracestate } = request.headers;
      const result = await ingestion.ingest(principalOf(request).account, request.body, { traceparent, tracestate });
      if (result.duplicate) reply.header('idempotent-replayed', 'true');
      return reply.code(202).send({ data: result, status: { code: 202 } });
    },
  });
};
