// Routes of an account's operational endpoints (jobhooks' own, docs/operational-webhooks.md): create, read, list,
// update, delete, secret rotation, and their delivery log and redelivery, answered by the same services as webhooks'.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AccountPathParams,
  COMMON_ERROR_RESPONSES,
  CreatedOperationalEndpoint,
  dataEnvelope,
  DeliveryAttemptView,
  DeliveryDetail,
  DeliveryLogQuery,
  ErrorEnvelope,
  listEnvelope,
  OperationalDeliveryPathParams,
  OperationalEndpoint,
  OperationalEndpointBody,
  OperationalEndpointPathParams,
  pagedList,
  PageQuery,
  RotatedSecret,
  RotateSecretBody,
} from '@jobhooks/client/contract';
import { z } from 'zod';
import type { DeliveryLogService } from '../../delivery/delivery-log-service';
import type { OperationalEndpointService } from '../../webhooks/operational-endpoint-service';
import { principalOf } from '../access-control';
import { createIdempotency, idempotencyKeyOf, ROTATE_IDEMPOTENCY } from '../idempotency-key';

const COLLECTION = '/api/v3/accounts/:account_id/operational-endpoints';
const SINGLE = `${COLLECTION}/:endpoint_id`;
const TAGS = ['operational'];
const KIND = 'operational';

const DeletedEndpoint = z
  .object({ data: z.object({ id: z.string() }), status: z.object({ code: z.number().int() }) })
  .meta({ id: 'DeletedOperationalEndpoint', description: 'The id of the operational endpoint that was deleted.' });

export const operationalEndpointRoutes: FastifyPluginAsyncZod<{
  endpoints: OperationalEndpointService;
  deliveryLog: DeliveryLogService;
}> = async (app, { endpoints, deliveryLog }) => {
  app.get(COLLECTION, {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      operationId: 'listOperationalEndpoints',
      summary: "List the account's operational endpoints",
      params: AccountPathParams,
      querystring: PageQuery,
      response: { 200: listEnvelope(OperationalEndpoint), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const { items, total } = await endpoints.list(principalOf(request).account.id, request.query);
      return pagedList(items, total, request.query);
    },
  });

  app.post(COLLECTION, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'createOperationalEndpoint',
      summary: 'Create an operational endpoint: it receives operational events about the account’s webhooks',
      description: createIdempotency('endpoint'),
      params: AccountPathParams,
      body: OperationalEndpointBody,
      response: { 201: dataEnvelope(CreatedOperationalEndpoint), 409: ErrorEnvelope, ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request, reply) => {
      const { endpoint, replayed } = await endpoints.create(
        principalOf(request).account,
        request.body,
        idempotencyKeyOf(request),
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send({ data: endpoint, status: { code: 201 } });
    },
  });

  app.get(SINGLE, {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      operationId: 'getOperationalEndpoint',
      summary: 'Get an operational endpoint',
      params: OperationalEndpointPathParams,
      response: { 200: dataEnvelope(OperationalEndpoint), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => ({
      data: await endpoints.get(principalOf(request).account.id, request.params.endpoint_id),
      status: { code: 200 },
    }),
  });

  app.put(SINGLE, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'updateOperationalEndpoint',
      summary: 'Update an operational endpoint (full replacement)',
      params: OperationalEndpointPathParams,
      body: OperationalEndpointBody,
      response: { 200: dataEnvelope(OperationalEndpoint), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => ({
      data: await endpoints.update(principalOf(request).account.id, request.params.endpoint_id, request.body),
      status: { code: 200 },
    }),
  });

  app.delete(SINGLE, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'deleteOperationalEndpoint',
      summary: 'Delete an operational endpoint',
      params: OperationalEndpointPathParams,
      response: { 200: DeletedEndpoint, ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      await endpoints.remove(principalOf(request).account.id, request.params.endpoint_id);
      return { data: { id: request.params.endpoint_id }, status: { code: 200 } };
    },
  });

  app.post(`${SINGLE}/secret/rotate`, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'rotateOperationalEndpointSecret',
      summary: "Rotate the operational endpoint's secret, keeping the old one signing for an overlap",
      description: ROTATE_IDEMPOTENCY,
      params: OperationalEndpointPathParams,
      body: RotateSecretBody,
      response: { 200: dataEnvelope(RotatedSecret), 409: ErrorEnvelope, ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => ({
      data: await endpoints.rotateSecret(
        principalOf(request).account.id,
        request.params.endpoint_id,
        request.body.overlap_seconds,
        idempotencyKeyOf(request),
      ),
      status: { code: 200 },
    }),
  });

  app.get(`${SINGLE}/deliveries`, {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      operationId: 'listOperationalDeliveries',
      summary: "List the operational endpoint's delivery attempts, newest first",
      params: OperationalEndpointPathParams,
      querystring: DeliveryLogQuery,
      response: { 200: listEnvelope(DeliveryAttemptView), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const accountId = principalOf(request).account.id;
      const { items, total } = await deliveryLog.list(accountId, request.params.endpoint_id, request.query, KIND);
      return pagedList(items, total, request.query);
    },
  });

  app.get(`${SINGLE}/deliveries/:delivery_id`, {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      operationId: 'getOperationalDelivery',
      summary: 'An operational delivery as sent, with every attempt and what the endpoint answered',
      params: OperationalDeliveryPathParams,
      response: { 200: dataEnvelope(DeliveryDetail), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const { endpoint_id, delivery_id } = request.params;
      return {
        data: await deliveryLog.detail(principalOf(request).account.id, endpoint_id, delivery_id, KIND),
        status: { code: 200 },
      };
    },
  });

  app.post(`${SINGLE}/deliveries/:delivery_id/retry`, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'retryOperationalDelivery',
      summary: 'Send a finished operational delivery again, once, now',
      params: OperationalDeliveryPathParams,
      response: { 200: dataEnvelope(DeliveryAttemptView), 409: ErrorEnvelope, ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const { endpoint_id, delivery_id } = request.params;
      return {
        data: await deliveryLog.redeliver(principalOf(request).account.id, endpoint_id, delivery_id, KIND),
        status: { code: 200 },
      };
    },
  });
};
