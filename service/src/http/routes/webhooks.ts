// Routes of the webhooks management API (docs/api-contract.md#3-endpoints). Handlers only translate HTTP to service
// calls.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AccountPathParams,
  COMMON_ERROR_RESPONSES,
  CreatedWebhook,
  CreateWebhookBody,
  dataEnvelope,
  DeletedWebhook,
  durationText,
  LIMITS,
  EndedSecretOverlap,
  RotateSecretBody,
  RotatedSecret,
  ErrorEnvelope,
  listEnvelope,
  pagedList,
  PageQuery,
  WebhookDetail,
  WebhookSummary,
  TestResult,
  UpdateWebhookBody,
  WebhookPathParams,
} from '@jobhooks/client/contract';
import type { WebhookService } from '../../webhooks/webhook-service';
import { principalOf } from '../access-control';
import { okEnvelopeOf } from '../frozen-body';
import { createIdempotency, idempotencyKeyOf, ROTATE_IDEMPOTENCY } from '../idempotency-key';

const COLLECTION = '/api/v3/accounts/:account_id/webhooks/subscriptions';
const SINGLE = '/api/v3/accounts/:account_id/webhooks/subscription/:webhook_id';
const TAGS = ['webhooks'];

export const webhookRoutes: FastifyPluginAsyncZod<{ webhooks: WebhookService }> = async (app, { webhooks }) => {
  app.get(COLLECTION, {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      operationId: 'listWebhooks',
      summary: 'List subscriptions',
      params: AccountPathParams,
      querystring: PageQuery,
      response: { 200: listEnvelope(WebhookDetail), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const { items, total } = await webhooks.list(principalOf(request).account.id, request.query);
      return pagedList(items, total, request.query);
    },
  });

  app.post(COLLECTION, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'createWebhook',
      summary: 'Create a subscription',
      description: createIdempotency('webhook'),
      params: AccountPathParams,
      body: CreateWebhookBody,
      response: { 201: dataEnvelope(CreatedWebhook), 409: ErrorEnvelope, ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request, reply) => {
      const { webhook, replayed } = await webhooks.create(
        principalOf(request).account,
        request.body,
        idempotencyKeyOf(request),
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send({ data: webhook, status: { code: 201 } });
    },
  });

  app.get(SINGLE, {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      operationId: 'getWebhook',
      summary: 'Get a subscription',
      params: WebhookPathParams,
      response: { 200: dataEnvelope(WebhookDetail), ...COMMON_ERROR_RESPONSES },
    },
    // The same webhook, unchanged, is the same frozen body: its JSON is written once (response-serializer.ts).
    handler: async (request) =>
      okEnvelopeOf(await webhooks.get(principalOf(request).account.id, request.params.webhook_id)),
  });

  app.put(SINGLE, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'updateWebhook',
      summary: 'Update a subscription (full replacement)',
      params: WebhookPathParams,
      body: UpdateWebhookBody,
      response: { 200: dataEnvelope(WebhookSummary), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => ({
      data: await webhooks.update(principalOf(request).account.id, request.params.webhook_id, request.body),
      status: { code: 200 },
    }),
  });

  app.get(`${SINGLE}/test`, {
    // The API contract makes this GET send a delivery (docs/api-contract.md); a HEAD must not, so it gets no HEAD twin.
    exposeHeadRoute: false,
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'testWebhook',
      summary: 'Send a signed test event to the subscription',
      params: WebhookPathParams,
      response: { 200: dataEnvelope(TestResult), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => ({
      data: await webhooks.test(principalOf(request).account.id, request.params.webhook_id),
      status: { code: 200 },
    }),
  });

  app.post(`${SINGLE}/secret/rotate`, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'rotateWebhookSecret',
      summary: "Rotate the subscription's secret, keeping the old one signing for an overlap (jobhooks' own)",
      description: ROTATE_IDEMPOTENCY,
      params: WebhookPathParams,
      body: RotateSecretBody,
      response: { 200: dataEnvelope(RotatedSecret), 409: ErrorEnvelope, ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => ({
      data: await webhooks.rotateSecret(
        principalOf(request).account.id,
        request.params.webhook_id,
        request.body.overlap_seconds,
        'job',
        idempotencyKeyOf(request),
      ),
      status: { code: 200 },
    }),
  });

  app.delete(`${SINGLE}/secret/previous`, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'endWebhookSecretOverlap',
      summary: "End a rotation's overlap now: only the new secret signs (jobhooks' own)",
      params: WebhookPathParams,
      response: { 200: dataEnvelope(EndedSecretOverlap), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => ({
      data: await webhooks.endSecretOverlap(principalOf(request).account.id, request.params.webhook_id),
      status: { code: 200 },
    }),
  });

  app.delete(SINGLE, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      operationId: 'deleteWebhook',
      summary: 'Delete a subscription',
      params: WebhookPathParams,
      response: { 200: DeletedWebhook, ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      await webhooks.remove(principalOf(request).account.id, request.params.webhook_id);
      return { data: { id: request.params.webhook_id }, status: { code: 200, is_success: true as const } };
    },
  });
};
