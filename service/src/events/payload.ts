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

export function buildPayload(input: PayloadInput): Buffer {
  const payload: DeliveryPayload = {
    accountId: input.accountId,
    webhookId: input.webhookId,
    eventId: input.eventId,
    timestamp: isoTimestampNanos(input.occurredAtNanos),
    eventType: input.eventType,
    webhookName: input.webhookName,
    data: { ...runDataFor(input.eventType, input.run), ...(input.test ? { test: true as const } : {}) },
  };
  return Buffer.from(JSON.stringify(payload), 'utf8');
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
