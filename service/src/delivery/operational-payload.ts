// The exact bytes of an operational event (docs/operational-webhooks.md#payload), fixed once when the fact is
// written, then signed and sent unchanged on every attempt, like a job-run payload.
import type { OperationalEventPayload } from '@jobhooks/client/contract';
import { archiveRuleOf } from './operational-rules';
import type { WebhookRecord } from '../domain/webhook';
import type { OperationalFact } from '../store/results-plan';
import { isoTimestampNanos } from '../events/payload';
import type { IdGenerator } from '../core/ids';
import { type Clock, nowMicros } from '../core/clock';
import type { RandomBytes } from '../core/random';
import { eventTraceWithoutExport } from '../core/tracing';
import type { OperationalEventMaker } from '../store/operational-plan';

const NANOS_PER_MICRO = 1000n;

/** What each type adds to `data` beside the webhook. */
function detailsOf(fact: OperationalFact): Omit<OperationalEventPayload['data'], 'webhook'> {
  switch (fact.type) {
    case 'webhook.archived': {
      const rule = archiveRuleOf(fact.reason);
      return { ...(rule === null ? {} : { rule }), reason: fact.reason };
    }
    case 'webhook.circuit_opened':
      return { sick_in_a_row: fact.sickInARow, open_until: String(fact.openUntil) };
    case 'webhook.recovered':
      return {};
    case 'webhook.failing':
      return { threshold_percent: fact.thresholdPercent, consecutive_failures: fact.consecutiveFailures };
    case 'delivery.exhausted':
      return {
        delivery_id: fact.deliveryId,
        event_id: fact.eventId,
        event_type: fact.eventType,
        attempts: fact.attempts,
      };
  }
}

export function operationalPayload(input: {
  id: string;
  fact: OperationalFact;
  subject: WebhookRecord;
  uiUrl: string;
}): Buffer {
  const { id, fact, subject, uiUrl } = input;
  const payload: OperationalEventPayload = {
    id,
    type: fact.type,
    timestamp: isoTimestampNanos(BigInt(fact.at) * NANOS_PER_MICRO),
    account_id: subject.accountId,
    data: {
      webhook: {
        id: subject.id,
        name: subject.name,
        description: subject.description,
        client_url: subject.clientUrl,
        account_identifier: subject.accountIdentifier,
        ui_url: uiUrl,
      },
      ...detailsOf(fact),
    },
  };
  return Buffer.from(JSON.stringify(payload), 'utf8');
}

const NO_CALLER = { traceparent: undefined, tracestate: undefined };

/**
 * The maker the store writes operational events with. A webhook's page is `<publicUrl>/ui/#/webhooks/<id>`; without
 * a public URL (JOBHOOKS_PUBLIC_URL) the link is that path alone, for the receiver to put behind the service's address.
 */
export function createOperationalEventMaker(
  ids: IdGenerator,
  clock: Clock,
  random: RandomBytes,
  publicUrl: string | null,
): OperationalEventMaker {
  const base = publicUrl === null ? '' : publicUrl.replace(/\/+$/, '');
  return {
    ids,
    // A trace of the event's own, started by no request: its root span is not exported, its attempts' spans are.
    newTrace: () => eventTraceWithoutExport(NO_CALLER, random),
    now: () => nowMicros(clock),
    payloadOf: ({ id, fact, subject }) =>
      operationalPayload({ id, fact, subject, uiUrl: `${base}/ui/#/webhooks/${encodeURIComponent(subject.id)}` }),
  };
}
