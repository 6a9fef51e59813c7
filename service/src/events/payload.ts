// Builds the exact bytes of a delivery payload: fixed once, then signed and sent unchanged on every attempt.
import type { DeliveryPayload, EventType, RunDetails } from '../contract';

const NANOS_PER_SECOND = 1_000_000_000n;
const NANOS_PER_MILLI = 1_000_000n;

/** ISO 8601 UTC with nine fractional digits, as spec 2.2 shows (`2023-01-31T21:15:20.419714619Z`). */
export function isoTimestampNanos(nanos: bigint): string {
  const secondsPart = new Date(Number(nanos / NANOS_PER_MILLI)).toISOString().slice(0, 19);
  return `${secondsPart}.${(nanos % NANOS_PER_SECOND).toString().padStart(9, '0')}Z`;
}

export interface PayloadInput {
  accountId: number;
  webhookId: string;
  webhookName: string;
  eventId: string;
  eventType: EventType;
  occurredAtNanos: bigint;
  run: RunDetails;
  test?: boolean;
}

/** Only the completed and errored events carry their own finishing timestamp (spec 2.2). */
function runDataFor(eventType: EventType, run: RunDetails): RunDetails {
  const { runFinishedAt, runErroredAt, ...common } = run;
  if (eventType === 'job.run.completed' && runFinishedAt !== undefined) return { ...common, runFinishedAt };
  if (eventType === 'job.run.errored' && runErroredAt !== undefined) return { ...common, runErroredAt };
  return common;
}

/** The fields before `data`, in the order they are sent (spec 2.2); `webhookId` and `webhookName` differ per webhook. */
type HeadField = Exclude<keyof DeliveryPayload, 'data'>;
const HEAD_ORDER: readonly HeadField[] = ['accountId', 'webhookId', 'eventId', 'timestamp', 'eventType', 'webhookName'];

/**
 * An event's payload bytes in two parts, whose concatenation is JSON.stringify of the whole payload object.
 * `data` is the last field, so everything from its value on is the same for every webhook of the event: the
 * store keeps that tail once per event, and each delivery keeps only its head.
 */
export interface PayloadParts {
  /** The `data` value and the closing brace, shared by every webhook of the event. */
  tail: Buffer;
  /** `{` and the fields before `data`, ending in `"data":`. */
  headFor(webhook: { id: string; name: string }): Buffer;
}

/** The event's own fields (its run data above all) are serialized once per event, not once per webhook. */
export function payloadPartsFor(input: Omit<PayloadInput, 'webhookId' | 'webhookName'>): PayloadParts {
  const serialized = new Map<HeadField, string>([
    ['accountId', JSON.stringify(input.accountId)],
    ['eventId', JSON.stringify(input.eventId)],
    ['timestamp', JSON.stringify(isoTimestampNanos(input.occurredAtNanos))],
    ['eventType', JSON.stringify(input.eventType)],
  ]);
  const data: DeliveryPayload['data'] = { ...runDataFor(input.eventType, input.run), ...(input.test ? { test: true as const } : {}) };
  return {
    tail: Buffer.from(`${JSON.stringify(data)}}`, 'utf8'),
    headFor: (webhook) => {
      serialized.set('webhookId', JSON.stringify(webhook.id));
      serialized.set('webhookName', JSON.stringify(webhook.name));
      return Buffer.from(`{${HEAD_ORDER.map((field) => `"${field}":${serialized.get(field)!}`).join(',')},"data":`, 'utf8');
    },
  };
}

/** The whole payload bytes for each webhook an event goes to. */
export function payloadsFor(input: Omit<PayloadInput, 'webhookId' | 'webhookName'>): (webhook: { id: string; name: string }) => Buffer {
  const parts = payloadPartsFor(input);
  return (webhook) => Buffer.concat([parts.headFor(webhook), parts.tail]);
}

export function buildPayload(input: PayloadInput): Buffer {
  return payloadsFor(input)({ id: input.webhookId, name: input.webhookName });
}

/** The run that the test endpoint reports: a successful completed run, marked `test` in the payload. */
export function sampleCompletedRun(nanos: bigint): RunDetails {
  const finished = new Date(Number(nanos / NANOS_PER_MILLI));
  const started = new Date(finished.getTime() - 60_000);
  const seconds = (date: Date) => `${date.toISOString().slice(0, 19)}Z`;
  return {
    jobId: '0',
    jobName: 'Test webhook',
    runId: '0',
    environmentId: '0',
    environmentName: 'Test',
    dbtVersion: 'latest',
    projectName: 'Test',
    projectId: '0',
    runStatus: 'Success',
    runStatusCode: 10,
    runStatusMessage: 'None',
    runReason: 'Webhook test from jobhooks',
    runStartedAt: seconds(started),
    runFinishedAt: seconds(finished),
  };
}
