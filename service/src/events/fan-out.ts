// Which webhooks an event goes to (docs/life-of-a-delivery.md#3-fan-out), and the delivery each one gets.
import type { EventType, RunDetails } from '@jobhooks/client/contract';
import type { IdGenerator } from '../core/ids';
import type { PlannedDeliveries } from '../domain/delivery';
import { plannedState } from '../domain/delivery-lifecycle';
import type { FanOutWebhook } from '../domain/webhook';
import { payloadPartsFor } from './payload';

/** Subscribed to the event type, and to the job (an empty job list means every job). */
export function wantsEvent(
  webhook: Pick<FanOutWebhook, 'eventTypes' | 'jobIds'>,
  eventType: EventType,
  jobId: string,
): boolean {
  return webhook.eventTypes.includes(eventType) && (webhook.jobIds.length === 0 || webhook.jobIds.includes(jobId));
}

export interface FanOutInput {
  accountId: number;
  eventId: string;
  eventType: EventType;
  occurredAtNanos: bigint;
  run: RunDetails;
  ids: IdGenerator;
}

/**
 * One delivery per interested webhook, with its payload bytes fixed now: the part every webhook shares
 * once, and each delivery's own head. An inactive webhook gets nothing; an archived one gets a `skipped`
 * delivery, so the log shows what it missed.
 */
export function planDeliveries(webhooks: readonly FanOutWebhook[], input: FanOutInput): PlannedDeliveries {
  const payload = payloadPartsFor({
    accountId: input.accountId,
    eventId: input.eventId,
    eventType: input.eventType,
    occurredAtNanos: input.occurredAtNanos,
    run: input.run,
  });
  const deliveries = webhooks.flatMap((webhook) => {
    const state = wantsEvent(webhook, input.eventType, input.run.jobId) ? plannedState(webhook) : null;
    if (state === null) return [];
    return [
      {
        id: input.ids.next('delivery'),
        webhookId: webhook.id,
        state,
        payloadHead: payload.headFor({ id: webhook.id, name: webhook.name }),
      },
    ];
  });
  return { payloadTail: payload.tail, deliveries };
}
