// The delivery log as users see it: the attempts of one webhook, newest first, and a manual redelivery.
import type { Micros } from '../core/time';
import type {
  DeliveryAttemptView,
  DeliveryDetail,
  DeliveryLogQuery,
  RecoveredDeliveries,
} from '@jobhooks/client/contract';
import { type Clock, nowMicros } from '../core/clock';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import { isIdOf } from '../core/ids';
import { childTraceparent, type EventTrace } from '../core/trace-context';
import type { Tracing } from '../core/tracing';
import type { SecretBox } from '../security/secret-box';
import type { LoggedAttempt } from '../domain/attempt';
import { canRedeliver } from '../domain/delivery-lifecycle';
import type { Store } from '../store/store';
import { findWebhook, webhookNotFound } from '../store/find-webhook';
import type { OperationalEventMaker } from '../store/operational-plan';
import type { WebhookKind } from '../domain/webhook';
import { maskedHeaderNames, maskHeaders } from './answer-excerpt';
import { nextDispatchState } from './archive-policy';
import { makeAttempt, manualResult } from './attempt';
import { signedRequest } from './outgoing-request';
import type { EndpointHealthRegistry } from './endpoint-health';
import type { Send } from './sender';
import { signingSecrets } from './signing-secrets';

/**
 * An attempt as the API shows it. Headers are masked again with today's list: a name the operator added since
 * the attempt was logged, and rows logged before masking existed, are masked too.
 */
function toAttemptView(entry: LoggedAttempt, masked: ReadonlySet<string>): DeliveryAttemptView {
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
    response_headers: maskHeaders(entry.responseHeaders, masked),
    test: entry.isTest,
  };
}

/** The `traceparent` of every attempt of a delivery: its event's trace, each attempt's own span id. */
function describedTraceparent(trace: EventTrace | null): string {
  if (trace === null) return "(each attempt's own trace and span ids)";
  return childTraceparent(trace.traceparent, "(each attempt's span id)");
}

export interface DeliveryLogServiceDeps {
  store: Store;
  clock: Clock;
  secretBox: SecretBox;
  send: Send;
  /** A redelivery goes out whatever the endpoint's circuit; a healthy answer closes it. */
  health: EndpointHealthRegistry;
  tracing: Tracing;
  /** Tells the dispatcher that deliveries are due (a recovery). */
  wake: () => void;
  /** Response headers masked besides the credential headers (JOBHOOKS_MASKED_RESPONSE_HEADERS). */
  maskedResponseHeaders?: readonly string[];
  /** Makes the operational events a redelivery makes true (a 410 archives); none when absent. */
  operationalEvents?: OperationalEventMaker;
}

export type DeliveryLogService = ReturnType<typeof createDeliveryLogService>;

export function createDeliveryLogService(deps: DeliveryLogServiceDeps) {
  const { store } = deps;
  const masked = maskedHeaderNames(deps.maskedResponseHeaders);
  const viewOf = (entry: LoggedAttempt) => toAttemptView(entry, masked);

  async function list(accountId: number, webhookId: string, query: DeliveryLogQuery, kind: WebhookKind = 'job') {
    const webhook = await findWebhook(store, accountId, webhookId, kind);
    const filter = {
      succeeded: query.status === undefined ? undefined : query.status === 'succeeded',
      eventType: query.event_type,
      since: query.since,
      until: query.until,
    };
    const { items, total } = await store.deliveryLog.list(webhook.id, query, filter);
    return { items: items.map(viewOf), total };
  }

  /**
   * Sends a finished delivery once more, now, with its original bytes. A success marks it succeeded and
   * clears the webhook's failures; a failure is logged but does not count toward archiving (only a 410 does).
   */
  async function redeliver(
    accountId: number,
    webhookId: string,
    deliveryId: string,
    kind: WebhookKind = 'job',
  ): Promise<DeliveryAttemptView> {
    const webhook = await findWebhook(store, accountId, webhookId, kind);
    const delivery = isIdOf('delivery', deliveryId) ? await store.deliveries.get(webhook.id, deliveryId) : null;
    if (!delivery) throw new NotFoundError(`No delivery with id "${deliveryId}" for webhook ${webhookId}.`);
    if (!canRedeliver(delivery.state)) {
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
      // A redelivery continues the event's trace, as its automatic attempts did.
      trace: delivery.trace,
      secrets: (now) => signingSecrets(webhook, now, (sealed) => deps.secretBox.open(sealed)),
      byPerson: true,
    });
    const [logged] = await store.deliveries.recordAttempts(
      [manualResult(delivery.id, made)],
      nextDispatchState,
      deps.operationalEvents ?? null,
    );
    if (!logged) throw webhookNotFound(accountId, webhookId);
    return viewOf(logged);
  }

  /**
   * Recovery after an outage (docs/api-contract.md#16-recovering-failed-deliveries): every failed delivery of the
   * webhook created in [since, until) is due again, oldest first, for one attempt more. The dispatcher sends them
   * within its usual limits (per endpoint, per account, the endpoint's circuit), as automatic attempts.
   */
  async function recover(
    accountId: number,
    webhookId: string,
    window: { since: Micros; until?: Micros | undefined },
    kind: WebhookKind = 'job',
  ): Promise<RecoveredDeliveries> {
    const webhook = await findWebhook(store, accountId, webhookId, kind);
    if (webhook.archivedAt !== null || !webhook.active) {
      throw new ConflictError('This webhook is archived or inactive: set "active": true with PUT, then recover.');
    }
    const now = nowMicros(deps.clock);
    const until = window.until ?? now;
    if (until <= window.since) throw new ValidationError({ until: ['until must be after since'] });
    const recovered = await store.deliveries.recoverFailed(webhook.id, { since: window.since, until }, now);
    if (recovered > 0) deps.wake();
    return { recovered };
  }

  /** One delivery: the request as sent (signatures described, not shown) and every attempt, oldest first. */
  async function detail(
    accountId: number,
    webhookId: string,
    deliveryId: string,
    kind: WebhookKind = 'job',
  ): Promise<DeliveryDetail> {
    const webhook = await findWebhook(store, accountId, webhookId, kind);
    const delivery = isIdOf('delivery', deliveryId) ? await store.deliveries.get(webhook.id, deliveryId) : null;
    if (!delivery) throw new NotFoundError(`No delivery with id "${deliveryId}" for webhook ${webhookId}.`);
    // The one header builder every attempt uses, with what differs per attempt (or could be replayed) described.
    const { headers } = signedRequest({
      url: webhook.clientUrl,
      body: delivery.payload,
      authorization: '(hex HMAC-SHA256 of the body: not shown)',
      standard: '(v1, base64 HMAC-SHA256 of id.timestamp.body, one per secret: not shown)',
      timestampSeconds: 0,
      messageId: delivery.id,
      eventId: delivery.eventId,
      attempt: 0,
      traceparent: describedTraceparent(delivery.trace),
      tracestate: delivery.trace?.tracestate ?? null,
    });
    const attempts = await store.deliveryLog.attemptsOf(webhook.id, delivery.id);
    return {
      id: delivery.id,
      webhook_id: webhook.id,
      event_id: delivery.eventId,
      event_type: delivery.eventType,
      state: delivery.state,
      attempts: delivery.attempts,
      request: {
        method: 'POST',
        url: webhook.clientUrl,
        headers: {
          ...headers,
          'webhook-timestamp': "(each attempt's time)",
          'x-jobhooks-attempt': "(each attempt's number)",
        },
        body: delivery.payload.toString('utf8'),
      },
      attempt_log: attempts.map(viewOf),
    };
  }

  return { list, redeliver, recover, detail };
}
