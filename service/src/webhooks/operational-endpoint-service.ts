// An account's operational endpoints (docs/operational-webhooks.md): webhooks of the 'operational' kind, created,
// read and changed through the webhook use cases, and shown as jobhooks' own API shows them.
import {
  type CreatedOperationalEndpoint,
  isOperationalEventType,
  type OperationalEndpoint,
  type OperationalEndpointBody,
} from '@jobhooks/client/contract';
import { type Clock, nowMicros } from '../core/clock';
import { circuitAt } from '../delivery/endpoint-health';
import type { AccountRecord } from '../domain/account';
import type { WebhookRecord, WebhookWritable } from '../domain/webhook';
import type { Store } from '../store/store';
import type { WebhookService } from './webhook-service';
import { secretOverlapUntil } from './webhook-view';

const KIND = 'operational';

function toWritable(body: OperationalEndpointBody): WebhookWritable {
  return {
    name: body.name,
    description: body.description,
    clientUrl: body.client_url,
    eventTypes: body.event_types,
    jobIds: [],
    active: body.active,
    // Operational events are few: an endpoint has no delivery rate of its own.
    maxRequestsPerSecond: null,
  };
}

export function toOperationalView(record: WebhookRecord, now: number): OperationalEndpoint {
  const archived = record.archivedAt !== null;
  const overlapUntil = secretOverlapUntil(record, now);
  return {
    id: record.id,
    account_id: String(record.accountId),
    name: record.name,
    description: record.description,
    client_url: record.clientUrl,
    event_types: record.eventTypes.filter(isOperationalEventType),
    active: record.active && !archived,
    created_at: String(record.createdAt),
    updated_at: String(record.updatedAt),
    http_status_code: record.httpStatusCode,
    archived,
    ...(archived ? { archived_at: String(record.archivedAt), archived_reason: record.archivedReason ?? '' } : {}),
    delivery_circuit: circuitAt(record.endpointHealth, now).state,
    ...(overlapUntil !== null ? { previous_secret_expires_at: String(overlapUntil) } : {}),
  };
}

export type OperationalEndpointService = ReturnType<typeof createOperationalEndpointService>;

export function createOperationalEndpointService(deps: { webhooks: WebhookService; store: Store; clock: Clock }) {
  const { webhooks, store, clock } = deps;
  const view = (record: WebhookRecord) => toOperationalView(record, nowMicros(clock));
  return {
    create: async (
      account: AccountRecord,
      body: OperationalEndpointBody,
      idempotencyKey?: string,
    ): Promise<{ endpoint: CreatedOperationalEndpoint; replayed: boolean }> => {
      const created = await webhooks.createRecord(account, toWritable(body), KIND, idempotencyKey);
      return { endpoint: { ...view(created.record), hmac_secret: created.hmacSecret }, replayed: created.replayed };
    },
    get: async (accountId: number, id: string) => view(await webhooks.find(accountId, id, KIND)),
    list: async (accountId: number, page: { offset: number; limit: number }) => {
      const { items, total } = await store.webhooks.list(accountId, page, KIND);
      return { items: items.map(view), total };
    },
    update: async (accountId: number, id: string, body: OperationalEndpointBody) =>
      view(await webhooks.updateRecord(accountId, id, toWritable(body), KIND)),
    remove: (accountId: number, id: string) => webhooks.remove(accountId, id, KIND),
    rotateSecret: (accountId: number, id: string, overlapSeconds: number, idempotencyKey?: string) =>
      webhooks.rotateSecret(accountId, id, overlapSeconds, KIND, idempotencyKey),
  };
}
