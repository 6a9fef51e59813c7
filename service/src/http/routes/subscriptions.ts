// Routes of the webhooks management API (docs/api-contract.md#3-endpoints). Handlers only translate HTTP to service calls.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AccountPathParams,
  COMMON_ERROR_RESPONSES,
  CreatedSubscription,
  CreateSubscriptionBody,
  dataEnvelope,
  DeletedSubscription,
  ErrorEnvelope,
  listEnvelope,
  pagedList,
  PageQuery,
  SubscriptionDetail,
  SubscriptionSummary,
  TestResult,
  UpdateSubscriptionBody,
  WebhookPathParams,
} from '@jobhooks/client/contract';
import type { SubscriptionService } from '../../subscriptions/subscription-service';
import { principalOf } from '../access-control';
import { okEnvelopeOf } from '../frozen-body';

const COLLECTION = '/api/v3/accounts/:account_id/webhooks/subscriptions';
const SINGLE = '/api/v3/accounts/:account_id/webhooks/subscription/:webhook_id';
const TAGS = ['webhooks'];

export const subscriptionRoutes: FastifyPluginAsyncZod<{ subscriptions: SubscriptionService }> = async (app, { subscriptions }) => {
  app.get(COLLECTION, {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      summary: 'List subscriptions',
      params: AccountPathParams,
      querystring: PageQuery,
      response: { 200: listEnvelope(SubscriptionDetail), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      const { items, total } = await subscriptions.list(principalOf(request).account.id, request.query);
      return pagedList(items, total, request.query);
    },
  });

  app.post(COLLECTION, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Create a subscription',
      description: 'Send an Idempotency-Key header to make a retried create return the same webhook for 24 hours.',
      params: AccountPathParams,
      body: CreateSubscriptionBody,
      response: { 201: dataEnvelope(CreatedSubscription), 409: ErrorEnvelope, ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request, reply) => {
      const key = request.headers['idempotency-key'];
      const { subscription, replayed } = await subscriptions.create(
        principalOf(request).account,
        request.body,
        Array.isArray(key) ? key.join(',') : key,
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send({ data: subscription, status: { code: 201 } });
    },
  });

  app.get(SINGLE, {
    config: { access: 'read' },
    schema: {
      tags: TAGS,
      summary: 'Get a subscription',
      params: WebhookPathParams,
      response: { 200: dataEnvelope(SubscriptionDetail), ...COMMON_ERROR_RESPONSES },
    },
    // The same webhook, unchanged, is the same frozen body: its JSON is written once (response-serializer.ts).
    handler: async (request) => okEnvelopeOf(await subscriptions.get(principalOf(request).account.id, request.params.webhook_id)),
  });

  app.put(SINGLE, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Update a subscription (full replacement)',
      params: WebhookPathParams,
      body: UpdateSubscriptionBody,
      response: { 200: dataEnvelope(SubscriptionSummary), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => ({
      data: await subscriptions.update(principalOf(request).account.id, request.params.webhook_id, request.body),
      status: { code: 200 },
    }),
  });

  app.get(`${SINGLE}/test`, {
    // The spec makes this GET send a delivery; a HEAD must not, so it gets no HEAD twin.
    exposeHeadRoute: false,
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Send a signed test event to the subscription',
      params: WebhookPathParams,
      response: { 200: dataEnvelope(TestResult), ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => ({
      data: await subscriptions.test(principalOf(request).account.id, request.params.webhook_id),
      status: { code: 200 },
    }),
  });

  app.delete(SINGLE, {
    config: { access: 'write' },
    schema: {
      tags: TAGS,
      summary: 'Delete a subscription',
      params: WebhookPathParams,
      response: { 200: DeletedSubscription, ...COMMON_ERROR_RESPONSES },
    },
    handler: async (request) => {
      await subscriptions.remove(principalOf(request).account.id, request.params.webhook_id);
      return { data: { id: request.params.webhook_id }, status: { code: 200, is_success: true as const } };
    },
  });
};
