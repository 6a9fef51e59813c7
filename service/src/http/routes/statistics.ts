// Delivery statistics of a webhook and of the account (docs/api-contract.md#17-delivery-statistics): jobhooks' own
// read-only endpoints beside the dbt-compatible ones, for the web UI's charts and for any dashboard.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AccountPathParams,
  AccountStatistics,
  COMMON_ERROR_RESPONSES,
  dataEnvelope,
  StatisticsQuery,
  WebhookPathParams,
  WebhookStatistics,
} from '@jobhooks/client/contract';
import type { StatisticsService } from '../../webhooks/statistics-service';
import { principalOf } from '../access-control';

const TAGS = ['statistics'];

export const statisticsRoutes: FastifyPluginAsyncZod<{ statistics: StatisticsService }> = async (
  app,
  { statistics },
) => {
  app.get('/api/v3/accounts/:account_id/webhooks/statistics', {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      operationId: 'getAccountStatistics',
      summary: "The account's attempts and deliveries per hour, and each webhook's summary (jobhooks' own)",
      params: AccountPathParams,
      querystring: StatisticsQuery,
      response: { 200: dataEnvelope(AccountStatistics), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => ({
      data: await statistics.account(principalOf(request).account.id, request.query.window),
      status: { code: 200 },
    }),
  });

  app.get('/api/v3/accounts/:account_id/webhooks/subscription/:webhook_id/statistics', {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      operationId: 'getWebhookStatistics',
      summary:
        "A webhook's attempts and deliveries per hour, response times, and its circuit and archive (jobhooks' own)",
      params: WebhookPathParams,
      querystring: StatisticsQuery,
      response: { 200: dataEnvelope(WebhookStatistics), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => ({
      data: await statistics.webhook(principalOf(request).account.id, request.params.webhook_id, request.query.window),
      status: { code: 200 },
    }),
  });
};
