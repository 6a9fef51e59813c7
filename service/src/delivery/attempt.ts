// One attempt of a delivery, made the same way by the dispatcher, a manual redelivery and the test endpoint:
// sign (dbt's signature and this attempt's Standard Webhooks signature, with both secrets during a rotation),
// build the request, send it, and turn what happened
// into its delivery-log row and, for a delivery, the result the store records
// (docs/life-of-a-delivery.md#5-sign).
import { type Micros, millisFromMicros, type Seconds, secondsFromMicros } from '../core/time';
import type { DeliveredEventType } from '@jobhooks/client/contract';
import { type Clock, nowMicros } from '../core/clock';
import type { EventTrace } from '../core/trace-context';
import type { Tracing } from '../core/tracing';
import type { AttemptLogEntry, AttemptResult } from '../domain/attempt';
import { afterRedelivery, afterScheduledAttempt } from '../domain/delivery-lifecycle';
import type { EndpointHealthChange, EndpointHealthRegistry } from './endpoint-health';
import { signedRequest } from './outgoing-request';
import { errorTextOf, outcomeLabel, planNextStep, statusCodeOf, verdictOf } from './retry-policy';
import type { Send, SendOutcome } from './sender';
import { signPayload, standardWebhooksSignature } from './signer';
import type { SigningSecrets } from './signing-secrets';

/** The outcome of an attempt whose webhook secret cannot be opened: nothing was sent. */
export const UNSIGNABLE: SendOutcome = {
  kind: 'no_response',
  error:
    "not sent: the webhook's secret cannot be decrypted with this service's key (JOBHOOKS_SECRET_KEY or secret.key)",
  durationMs: 0,
};

/** What the log row of an attempt names. */
export interface AttemptTarget {
  deliveryId: string | null;
  webhookId: string;
  eventId: string;
  eventType: DeliveredEventType;
  /** 1 for the first attempt of a delivery. */
  attempt: number;
}

/**
 * The Standard Webhooks message id (`webhook-id`) of an attempt: its delivery's id, unique per event and webhook
 * and the same on every retry and redelivery; a test send, which belongs to no delivery, has an event of its own.
 */
export function messageIdOf(target: AttemptTarget): string {
  return target.deliveryId ?? target.eventId;
}

export interface AttemptPlan {
  target: AttemptTarget;
  url: string;
  /** The exact bytes to sign and send. */
  body: Buffer;
  /** The event's trace context, which the attempt continues; null for a test send or an event from before traces. */
  trace: EventTrace | null;
  /**
   * The secrets that sign this attempt (signing-secrets.ts), opened for each attempt: taken at the attempt's time,
   * `requestedAt` in microseconds. It throws when this service's key cannot open them.
   */
  secrets: (requestedAt: Micros) => SigningSecrets;
  /** A test endpoint send: logged, but it changes no delivery and no webhook state. */
  isTest?: boolean;
  /** Asked for by a person (a redelivery or a test): it goes out whatever the circuit, and can only close it. */
  byPerson?: boolean;
  /**
   * The start slot a rate-limited webhook's store granted (start-slots.ts): the attempt's requested_at, so the log
   * records exactly the starts the rate let through. Without one, the clock is read as the attempt begins.
   */
  startedAt?: Micros;
}

export interface AttemptMade {
  outcome: SendOutcome;
  /** When the request started, in microseconds since the epoch. */
  requestedAt: Micros;
  /** False when the secret could not be opened: nothing was sent. */
  signed: boolean;
  log: AttemptLogEntry;
  /** What the answer does to the endpoint's health that is still to be written with the result (see record()). */
  healthChange?: EndpointHealthChange | null;
  /** The URL the request went to. */
  sentTo: string;
}

export interface AttemptDeps {
  send: Send;
  clock: Clock;
  /** Told what the endpoint answered, which sets how many requests it may have next. */
  health: EndpointHealthRegistry;
  /** Gives each attempt its `traceparent`, and its span when traces are exported. */
  tracing: Tracing;
}

interface Signatures {
  /** dbt's, over the body only; during a rotation's overlap, with the replaced secret (what dbt receivers hold). */
  authorization: string;
  /** Standard Webhooks': over this attempt's timestamp too; during an overlap, one per secret, new first. */
  standard: string;
  timestampSeconds: Seconds;
}

/**
 * Null when the secret cannot be opened: the attempt is then recorded as failed, with no request made (a request
 * with only one of the two signatures would fail the receivers that check the other).
 */
function signaturesFor(plan: AttemptPlan, requestedAt: Micros): Signatures | null {
  let secrets: SigningSecrets;
  try {
    secrets = plan.secrets(requestedAt);
  } catch {
    return null;
  }
  const timestampSeconds = secondsFromMicros(requestedAt);
  const signWith = (secret: string) =>
    standardWebhooksSignature(secret, messageIdOf(plan.target), timestampSeconds, plan.body);
  const all = secrets.previous === null ? [secrets.current] : [secrets.current, secrets.previous];
  return {
    authorization: signPayload(secrets.previous ?? secrets.current, plan.body),
    standard: all.map(signWith).join(' '),
    timestampSeconds,
  };
}

/**
 * Built field by field, not spread from `target` (targets come in several shapes, and V8 copies a spread of mixed
 * shapes the slow way): one shape for every attempt's row (docs/performance.md#measurements-behind-choices-in-the-code).
 */
export function logEntryOf(
  target: AttemptTarget,
  outcome: SendOutcome,
  requestedAt: Micros,
  isTest: boolean,
): AttemptLogEntry {
  return {
    deliveryId: target.deliveryId,
    webhookId: target.webhookId,
    eventId: target.eventId,
    eventType: target.eventType,
    attempt: target.attempt,
    requestedAt,
    durationMs: outcome.durationMs,
    statusCode: statusCodeOf(outcome),
    error: errorTextOf(outcome),
    success: verdictOf(outcome) === 'succeeded',
    responseExcerpt: outcome.kind === 'response' ? outcome.bodyExcerpt : '',
    responseHeaders: outcome.kind === 'response' ? (outcome.headers ?? {}) : {},
    isTest,
  };
}

export async function makeAttempt(deps: AttemptDeps, plan: AttemptPlan): Promise<AttemptMade> {
  const { target } = plan;
  const requestedAt = plan.startedAt ?? nowMicros(deps.clock);
  // The span begins at the recorded start: for a rate-limited webhook, the slot the store granted.
  const span = deps.tracing.attempt(plan, requestedAt);
  const signatures = signaturesFor(plan, requestedAt);
  const outcome =
    signatures === null
      ? UNSIGNABLE
      : await deps.send(
          signedRequest({
            url: plan.url,
            body: plan.body,
            ...signatures,
            messageId: messageIdOf(target),
            eventId: target.eventId,
            attempt: target.attempt,
            traceparent: span.traceparent,
            tracestate: span.tracestate,
          }),
        );
  // Without exported traces there is no span to end: nothing is computed for it.
  if (deps.tracing.exporting) {
    span.end({
      status: outcome.kind === 'response' ? outcome.status : null,
      outcome: outcomeLabel(outcome),
      error: errorTextOf(outcome),
      durationMs: outcome.durationMs,
    });
  }
  const signed = signatures !== null;
  // Nothing was sent without a signature: the endpoint said nothing about its health. With several instances
  // a change of the health is written for all of them before the caller frees the request's slot
  // (endpoint-health.ts).
  let healthChange: EndpointHealthChange | null = null;
  if (signed) {
    const at = { sentAt: requestedAt, now: nowMicros(deps.clock) };
    healthChange = await deps.health.answered(target.webhookId, outcome, at, plan.byPerson ?? false);
  }
  const log = logEntryOf(target, outcome, requestedAt, plan.isTest ?? false);
  return { outcome, requestedAt, signed, log, healthChange, sentTo: plan.url };
}

export interface ScheduledAttemptRules {
  retryDelaysSeconds: readonly number[];
  /** A uniform number in [0, 1) that stretches the retry delay. */
  jitter: number;
  /** The lease the delivery was claimed under: a result from a lease that ran out is not applied. */
  lease: string;
  /** When the outcome arrived, in microseconds. */
  finishedAt: Micros;
  /** A recovered delivery's one attempt more: a failure ends it rather than scheduling a retry. */
  lastAttempt?: boolean;
}

/**
 * What an attempt the dispatcher made does: its delivery is retried (at a time the retry policy picks),
 * succeeds, or fails for good; the archive rules then see the facts.
 */
export function scheduledResult(deliveryId: string, made: AttemptMade, rules: ScheduledAttemptRules): AttemptResult {
  const { outcome, requestedAt } = made;
  const step = planNextStep({
    outcome,
    attempt: made.log.attempt,
    delaysSeconds: rules.lastAttempt ? [] : rules.retryDelaysSeconds,
    jitter: rules.jitter,
    nowMillis: millisFromMicros(rules.finishedAt),
  });
  const delivery = afterScheduledAttempt(
    step.kind === 'retry' ? { kind: 'retry', dueAt: rules.finishedAt + step.delayMicros } : step,
  );
  const facts = {
    requestedAt,
    statusCode: made.log.statusCode,
    verdict: verdictOf(outcome),
    exhausted: step.kind === 'exhausted',
    manual: false,
  };
  return {
    log: { ...made.log, deliveryId },
    facts,
    delivery,
    lease: rules.lease,
    endpointHealthChange: made.healthChange ?? null,
    sentTo: made.sentTo,
  };
}

/**
 * What a redelivery a user asked for does: a success marks the delivery succeeded and clears the webhook's
 * failures; a failure leaves the delivery as it was and counts toward archiving only when it is a 410.
 */
export function manualResult(deliveryId: string, made: AttemptMade): AttemptResult {
  const verdict = verdictOf(made.outcome);
  return {
    log: { ...made.log, deliveryId },
    facts: { requestedAt: made.requestedAt, statusCode: made.log.statusCode, verdict, exhausted: false, manual: true },
    delivery: afterRedelivery(verdict === 'succeeded'),
    lease: null,
    endpointHealthChange: made.healthChange ?? null,
    sentTo: made.sentTo,
  };
}
