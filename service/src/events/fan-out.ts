// Which subscriptions an event goes to (docs/life-of-a-delivery.md#3-fan-out), and the delivery each one gets.
import type { EventType, RunDetails } from '@jobhooks/client/contract';
import type { IdGenerator } from '../core/ids';
import type { PlannedDeliveries, SubscriptionRecord } from '../store/store';
import { payloadPartsFor } from './payload';

/** Subscribed to the event type, and to the job (an empty job list means every job). */
export function wantsEvent(subscription: SubscriptionRecord, eventType: EventType, jobId: string): boolean {
  return subscription.eventTypes.includes(eventType) && (subscription.jobIds.length === 0 || subscription.jobIds.includes(jobId));
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
 * One delivery per interested subscription, with its payload bytes fixed now: the part every webhook shares
 * once, and each delivery's own head. An inactive webhook gets nothing; an archived one gets a `skipped`
 * delivery, so the log shows what it missed.
 */
export function planDeliveries(subscriptions: readonly SubscriptionRecord[], input: FanOutInput): PlannedDeliveries {
  const payload = payloadPartsFor({
    accountId: input.accountId,
    eventId: input.eventId,
    eventType: input.eventType,
    occurredAtNanos: input.occurredAtNanos,
    run: input.run,
  });
  const deliveries = subscriptions
    .filter((subscription) => wantsEvent(subscription, input.eventType, input.run.jobId))
    .filter((subscription) => subscription.active || subscription.archivedAt !== null)
    .map((subscription) => ({
      id: input.ids.next('delivery'),
      subscriptionId: subscription.id,
      state: subscription.archivedAt === null ? ('pending' as const) : ('skipped' as const),
      payloadHead: payload.headFor({ id: subscription.id, name: subscription.name }),
    }));
  return { payloadTail: payload.tail, deliveries };
}
