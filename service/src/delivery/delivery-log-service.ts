// The delivery log as users see it: the attempts of one webhook, newest first, and a manual redelivery.
import type { DeliveryAttemptView } from '@jobhooks/client/contract';
import type { Clock } from '../core/clock';
import { ConflictError, NotFoundError } from '../core/errors';
import { isIdOf } from '../core/ids';
import type { SecretBox } from '../security/secret-box';
import type { LoggedAttempt } from '../domain/attempt';
import type { Store } from '../store/store';
import { findWebhook, webhookNotFound } from '../store/find-webhook';
import { nextDispatchState } from './archive-policy';
import { makeAttempt, manualResult } from './attempt';
import type { EndpointHealthRegistry } from './endpoint-health';
import type { Send } from './sender';
import { signingSecrets } from './signing-secrets';

export function toAttemptView(entry: LoggedAttempt): DeliveryAttemptView {
  return {
    id: String(entry.id),
    delivery_id: entry.deliveryId,
    event_id: entry.eventId,
    event_type: entry.eventType,
    attempt: entry.attempt,
    requested_at: String(entry.requestedAt),
    duration_ms: entry.durationMs,
    http_status_code: entry.statusCode,
    success: entry.success,
    error: entry.error,
    response_body: entry.responseExcerpt,
    test: entry.isTest,
  };
}

export interface DeliveryLogServiceDeps {
  store: Store;
  clock: Clock;
  secretBox: SecretBox;
  send: Send;
  /** A redelivery goes out whatever the endpoint's circuit; a healthy answer closes it. */
  health: EndpointHealthRegistry;
}

export type DeliveryLogService = ReturnType<typeof createDeliveryLogService>;

export function createDeliveryLogService(deps: DeliveryLogServiceDeps) {
  const { store } = deps;

  async function list(accountId: number, webhookId: string, page: { offset: number; limit: number }) {
    const webhook = await findWebhook(store, accountId, webhookId);
    const { items, total } = await store.deliveryLog.list(webhook.id, page);
    return { items: items.map(toAttemptView), total };
  }

  /**
   * Sends a finished delivery once more, now, with its original bytes. A success marks it succeeded and
   * clears the webhook's failures; a failure is logged but does not count toward archiving (only a 410 does).
   */
  async function redeliver(accountId: number, webhookId: string, deliveryId: string): Promise<DeliveryAttemptView> {
    const webhook = await findWebhook(store, accountId, webhookId);
    const delivery = isIdOf('delivery', deliveryId) ? await store.deliveries.get(webhook.id, deliveryId) : null;
    if (!delivery) throw new NotFoundError(`No delivery with id "${deliveryId}" for webhook ${webhookId}.`);
    if (delivery.state === 'pending') {
      throw new ConflictError(
        'This delivery is still scheduled for automatic retries; redeliver it once it has finished.',
      );
    }
    if (webhook.archivedAt !== null || !webhook.active) {
      throw new ConflictError('This webhook is archived or inactive: set "active": true with PUT, then redeliver.');
    }
    const made = await makeAttempt(deps, {
      target: {
        deliveryId: delivery.id,
        webhookId: webhook.id,
        eventId: delivery.eventId,
        eventType: delivery.eventType,
        attempt: delivery.attempts + 1,
      },
      url: webhook.clientUrl,
      body: delivery.payload,
      secrets: (now) => signingSecrets(webhook, now, (sealed) => deps.secretBox.open(sealed)),
      byPerson: true,
    });
    const [logged] = await store.deliveries.recordAttempts([manualResult(delivery.id, made)], nextDispatchState);
    if (!logged) throw webhookNotFound(accountId, webhookId);
    return toAttemptView(logged);
  }

  return { list, redeliver };
}
