// The delivery log of a webhook, manual redelivery (docs/api-contract.md#11-delivery-log-and-redelivery) and recovery
// (docs/api-contract.md#16-recovering-failed-deliveries).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  COMMON_ERROR_RESPONSES,
  dataEnvelope,
  DeliveryAttemptView,
  DELIVERY_RULES,
  durationText,
  DeliveryDetail,
  DeliveryPathParams,
  ErrorEnvelope,
  listEnvelope,
  pagedList,
  DeliveryLogQuery,
  RecoverDeliveriesBody,
  RecoveredDeliveries,
  WebhookPathParams,
} from '@jobhooks/client/contract';
import type { DeliveryLogService } from '../../delivery/delivery-log-service';
import { principalOf } from '../access-control';

const DELIVERIES = '/api/v3/accounts/:account_id/webhooks/subscription/:webhook_id/deliveries';
const TAGS = ['deliveries'];

export const deliveryRoutes: FastifyPluginAsyncZod<{ deliveryLog: DeliveryLogService }> = async (
  app,
  { deliveryLog },
) => {
  app.get(DELIVERIES, {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      operationId: 'listDeliveries',
      summary: `List the delivery attempts of the last ${durationText(DELIVERY_RULES.logRetentionDays * 86_400)}, newest first`,
      params: WebhookPathParams,
      querystring: DeliveryLogQuery,
      response: { 200: listEnvelope(DeliveryAttemptView), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const { items, total } = await deliveryLog.list(
        principalOf(request).account.id,
        request.params.webhook_id,
        request.query,
      );
      return pagedList(items, total, request.query);
    },
  });

  app.get(`${DELIVERIES}/:delivery_id`, {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      operationId: 'getDelivery',
      summary: "A delivery as sent, with every attempt and what the endpoint answered (jobhooks' own)",
      params: DeliveryPathParams,
      response: { 200: dataEnvelope(DeliveryDetail), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const { webhook_id, delivery_id } = request.params;
      return {
        data: await deliveryLog.detail(principalOf(request).account.id, webhook_id, delivery_id),
        status: { code: 200 },
      };
    },
  });

  app.post(`${DELIVERIES}/:delivery_id/retry`, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'retryDelivery',
      summary: 'Send a finished delivery again, once, now',
      params: DeliveryPathParams,
      response: { 200: dataEnvelope(DeliveryAttemptView), 409: ErrorEnvelope, ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const { webhook_id, delivery_id } = request.params;
      return {
        data: await deliveryLog.redeliver(principalOf(request).account.id, webhook_id, delivery_id),
        status: { code: 200 },
      };
    },
  });

  app.post(`${DELIVERIES}/recover`, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'recoverDeliveries',
      summary: "Send every failed delivery of a time window once more, in order (jobhooks' own)",
      params: WebhookPathParams,
      body: RecoverDeliveriesBody,
      response: { 202: dataEnvelope(RecoveredDeliveries), 409: ErrorEnvelope, ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request, reply) => {
      const data = await deliveryLog.recover(principalOf(request).account.id, request.params.webhook_id, request.body);
      return reply.code(202).send({ data, status: { code: 202 } });
    },
  });
};
