// What a batch of job-run events writes, decided once for both backends from what the transaction read (the
// events of the same runs already recorded, and each account's webhooks): which events are new, the deliveries
// each new one fans out to, and which are duplicates of an event recorded before or earlier in the batch.
import type { PlannedDeliveries } from '../domain/delivery';
import type { EventRecord } from '../domain/event';
import type { FanOutWebhook } from '../domain/webhook';
import type { IngestOutcome } from './store';

/** An event as the caller hands it in: the fan-out plans its deliveries from the account's webhooks. */
export interface EventToRecord {
  event: EventRecord;
  fanOut: (webhooks: readonly FanOutWebhook[]) => PlannedDeliveries;
}

/** What makes two events the same: one account's run and event type (a repeat is a duplicate). */
export const runKeyOf = (e: { accountId: number; runId: string; eventType: string }): string =>
  `${e.accountId}\u0000${e.runId}\u0000${e.eventType}`;

export interface EventsPlan<T extends EventToRecord> {
  /** The new events, in order, each with the deliveries it fans out to. */
  fresh: Array<{ item: T; planned: PlannedDeliveries }>;
  /** The others, each with the id of the event it repeats. */
  duplicateOf: Map<T, string>;
}

/**
 * `recorded` holds the ids of the batch's runs already recorded, by runKeyOf; the first of the batch's events
 * with a new key is new, a later one duplicates it.
 */
export function planEvents<T extends EventToRecord>(
  batch: readonly T[],
  recorded: ReadonlyMap<string, string>,
  webhooksOf: (accountId: number) => readonly FanOutWebhook[],
): EventsPlan<T> {
  const fresh: EventsPlan<T>['fresh'] = [];
  const duplicateOf = new Map<T, string>();
  const firstOfKey = new Map(recorded);
  for (const item of batch) {
    const key = runKeyOf(item.event);
    const previous = firstOfKey.get(key);
    if (previous !== undefined) {
      duplicateOf.set(item, previous);
      continue;
    }
    firstOfKey.set(key, item.event.id);
    fresh.push({ item, planned: item.fanOut(webhooksOf(item.event.accountId)) });
  }
  return { fresh, duplicateOf };
}

/** How many deliveries a new event queued, and how many it recorded as skipped (archived webhooks). */
export function recordedOutcome(planned: PlannedDeliveries): IngestOutcome {
  const queued = planned.deliveries.filter((d) => d.state === 'pending').length;
  return { kind: 'recorded', queued, skipped: planned.deliveries.length - queued };
}

/** An event no webhook wants is kept only to detect duplicates: it needs no payload. */
export function storedPayloadTail(planned: PlannedDeliveries): Buffer | null {
  return planned.deliveries.length > 0 ? planned.payloadTail : null;
}
