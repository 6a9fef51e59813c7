// What the operational facts of a batch of results write (docs/operational-webhooks.md), decided once for both
// backends from what the transaction read: one event per fact, with its payload, and one delivery per operational
// endpoint of the webhook's account that wants its type, delivered like any job-run event's.
import type { Micros } from '../core/time';
import type { EventTrace } from '../core/trace-context';
import type { IdGenerator } from '../core/ids';
import type { NewDelivery } from '../domain/delivery';
import { plannedState } from '../domain/delivery-lifecycle';
import type { WebhookRecord } from '../domain/webhook';
import type { OperationalEventType } from '@jobhooks/client/contract';
import type { OperationalFact } from './results-plan';

/**
 * What the service hands the store to make operational events with: ids, and the payload of a fact about a webhook
 * (delivery/operational-payload.ts), which names the webhook's page in the web UI.
 */
export interface OperationalEventMaker {
  ids: IdGenerator;
  /**
   * The trace context an operational event keeps, as a job-run event keeps its ingestion's: each of its attempts,
   * retries and redeliveries included, is a child of it, so one event's requests are one trace.
   */
  newTrace(): EventTrace;
  /** The time, in microseconds, of a fact whose own time is not known (a circuit closing). */
  now(): Micros;
  payloadOf(input: { id: string; fact: OperationalFact; subject: WebhookRecord }): Buffer;
}

/** An operational event as the backend writes it: its events row (the whole payload as its tail) and deliveries. */
export interface PlannedOperationalEvent {
  id: string;
  accountId: number;
  eventType: OperationalEventType;
  createdAt: Micros;
  payload: Buffer;
  trace: EventTrace;
  /** Each with an empty head: every endpoint gets the same bytes, kept once, on the event. */
  deliveries: NewDelivery[];
}

/** Whether an operational endpoint wants events of this type. */
function wants(endpoint: WebhookRecord, type: OperationalEventType): boolean {
  return endpoint.kind === 'operational' && endpoint.eventTypes.includes(type);
}

/**
 * One event per fact whose webhook still exists and whose account has an operational endpoint that wants it; a fact
 * no endpoint wants writes nothing. `subjects`: the facts' webhooks by id; `endpointsOf`: each account's
 * operational endpoints.
 */
export function planOperationalEvents(
  facts: readonly OperationalFact[],
  subjects: ReadonlyMap<string, WebhookRecord>,
  endpointsOf: (accountId: number) => readonly WebhookRecord[],
  maker: OperationalEventMaker,
): PlannedOperationalEvent[] {
  const empty = Buffer.alloc(0);
  return facts.flatMap((fact) => {
    const subject = subjects.get(fact.webhookId);
    if (subject === undefined || subject.kind === 'operational') return [];
    const deliveries = endpointsOf(subject.accountId).flatMap((endpoint) => {
      const state = wants(endpoint, fact.type) ? plannedState(endpoint) : null;
      return state === null
        ? []
        : [{ id: maker.ids.next('delivery'), webhookId: endpoint.id, state, payloadHead: empty }];
    });
    if (deliveries.length === 0) return [];
    const id = maker.ids.next('event');
    const payload = maker.payloadOf({ id, fact, subject });
    const trace = maker.newTrace();
    return [{ id, accountId: subject.accountId, eventType: fact.type, createdAt: fact.at, payload, trace, deliveries }];
  });
}
