// Turns the outcome of one send into its delivery-log row, the same way for deliveries, redeliveries and tests.
import type { EventType } from '@jobhooks/client/contract';
import type { AttemptLogEntry } from '../domain/attempt';
import { errorTextOf, statusCodeOf, verdictOf } from './retry-policy';
import type { SendOutcome } from './sender';

export interface AttemptTarget {
  deliveryId: string | null;
  webhookId: string;
  eventId: string;
  eventType: EventType;
  attempt: number;
}

export function attemptLogEntry(target: AttemptTarget, outcome: SendOutcome, requestedAt: number, isTest = false): AttemptLogEntry {
  return {
    ...target,
    requestedAt,
    durationMs: outcome.durationMs,
    statusCode: statusCodeOf(outcome),
    error: errorTextOf(outcome),
    success: verdictOf(outcome) === 'succeeded',
    responseExcerpt: outcome.kind === 'response' ? outcome.bodyExcerpt : '',
    isTest,
  };
}
