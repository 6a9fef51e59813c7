// Builds the exact bytes of a delivery payload: fixed once, then signed and sent unchanged on every attempt.
import { type DeliveryPayload, type EventType, PAYLOAD_RUN_STATUS, type RunDetails } from '@jobhooks/client/contract';

const NANOS_PER_SECOND = 1_000_000_000n;
const NANOS_PER_MILLI = 1_000_000n;

/** ISO 8601 UTC with nine fractional digits, as the payload shows it (docs/api-contract.md#12-delivery-payload) (`2023-01-31T21:15:20.419714619Z`). */
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

/**
 * The run as dbt Cloud's payloads show it (docs/api-contract.md#12-delivery-payload): runStatus is the word paired
 * with runStatusCode and runStartedAt is to the second, whatever was posted; only the completed and errored events
 * carry their own finishing timestamp. Fields keep the order they were taken in with.
 */
function runDataFor(eventType: EventType, run: RunDetails): RunDetails {
  const { runFinishedAt, runErroredAt, ...posted } = run;
  const common = {
    ...posted,
    runStatus: PAYLOAD_RUN_STATUS[run.runStatusCode] ?? run.runStatus,
    // The contract takes only timestamps with seconds ("YYYY-MM-DDTHH:MM:SS", then a fraction or "Z").
    runStartedAt: `${run.runStartedAt.slice(0, 19)}Z`,
  };
  if (eventType === 'job.run.completed' && runFinishedAt !== undefined) return { ...common, runFinishedAt };
  if (eventType === 'job.run.errored' && runErroredAt !== undefined) return { ...common, runErroredAt };
  return common;
}

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

/**
 * The event's own fields (its run data above all) are serialized once per event, not once per webhook. The head
 * keeps the payload's field order (accountId, webhookId, eventId, timestamp, eventType, webhookName, data); only
 * webhookId and webhookName differ per webhook, so the text around them is built once.
 */
export function payloadPartsFor(input: Omit<PayloadInput, 'webhookId' | 'webhookName'>): PayloadParts {
  const beforeWebhookId = `{"accountId":${JSON.stringify(input.accountId)},"webhookId":`;
  const beforeWebhookName =
    `,"eventId":${JSON.stringify(input.eventId)},"timestamp":${JSON.stringify(isoTimestampNanos(input.occurredAtNanos))}` +
    `,"eventType":${JSON.stringify(input.eventType)},"webhookName":`;
  const data: DeliveryPayload['data'] = {
    ...runDataFor(input.eventType, input.run),
    ...(input.test ? { test: true as const } : {}),
  };
  return {
    tail: Buffer.from(`${JSON.stringify(data)}}`, 'utf8'),
    headFor: (webhook) =>
      Buffer.from(
        `${beforeWebhookId}${JSON.stringify(webhook.id)}${beforeWebhookName}${JSON.stringify(webhook.name)},"data":`,
        'utf8',
      ),
  };
}

/** The whole payload bytes for each webhook an event goes to. */
export function payloadsFor(
  input: Omit<PayloadInput, 'webhookId' | 'webhookName'>,
): (webhook: { id: string; name: string }) => Buffer {
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
