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

/** The payload's fields in the order they are sent; `webhookId` and `webhookName` differ per webhook. */
type PayloadField = keyof DeliveryPayload;
const FIELD_ORDER: readonly PayloadField[] = ['accountId', 'webhookId', 'eventId', 'timestamp', 'eventType', 'webhookName', 'data'];

/**
 * The payload bytes for each webhook an event goes to. The event's own fields (its run data above all) are
 * serialized once per event rather than once per webhook; each field is JSON.stringify'd in FIELD_ORDER,
 * so the bytes equal JSON.stringify of the whole payload object.
 */
export function payloadsFor(input: Omit<PayloadInput, 'webhookId' | 'webhookName'>): (webhook: { id: string; name: string }) => Buffer {
  const shared: Omit<DeliveryPayload, 'webhookId' | 'webhookName'> = {
    accountId: input.accountId,
    eventId: input.eventId,
    timestamp: isoTimestampNanos(input.occurredAtNanos),
    eventType: input.eventType,
    data: { ...runDataFor(input.eventType, input.run), ...(input.test ? { test: true as const } : {}) },
  };
  const serialized = new Map<PayloadField, string>(Object.entries(shared).map(([key, value]) => [key as PayloadField, JSON.stringify(value)]));
  return (webhook) => {
    serialized.set('webhookId', JSON.stringify(webhook.id));
    serialized.set('webhookName', JSON.stringify(webhook.name));
    return Buffer.from(`{${FIELD_ORDER.map((field) => `"${field}":${serialized.get(field)!}`).join(',')}}`, 'utf8');
  };
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
