// Job-run events: the run details posted to ingestion, the payload delivered to endpoints
// (docs/api-contract.md#12-delivery-payload), and
// the ingestion request and response (docs/api-contract.md#10-event-ingestion).
import { z } from 'zod';
import { EventType, type EventType as EventTypeName } from './vocabulary';

const IsoTimestamp = z.iso.datetime({ offset: false });

/** Run details as ingestion takes them; the per-event-type timestamps are checked by RunEvent. */
export const RunDetails = z
  .object({
    // Digits, because webhooks filter on integer job ids and the payload carries the id as a string.
    jobId: z.string().regex(/^[1-9]\d{0,15}$/, 'jobId must be a positive whole number written as a string'),
    jobName: z.string().max(1024),
    runId: z.string().min(1).max(64),
    environmentId: z.string().max(64),
    environmentName: z.string().max(1024),
    dbtVersion: z.string().max(64),
    projectName: z.string().max(1024),
    projectId: z.string().max(64),
    runStatus: z.string().max(64),
    runStatusCode: z.number().int(),
    runStatusMessage: z.string().max(4096),
    runReason: z.string().max(4096),
    runStartedAt: IsoTimestamp,
    runFinishedAt: IsoTimestamp.optional(),
    runErroredAt: IsoTimestamp.optional(),
  })
  .meta({
    id: 'RunDetails',
    description: 'The job run an event is about; runFinishedAt and runErroredAt are required by one event type each.',
  });
export type RunDetails = z.infer<typeof RunDetails>;

/** The JSON envelope each endpoint receives. `data.test` is present only on deliveries of the test endpoint. */
export const DeliveryPayload = z
  .object({
    accountId: z.number().int().meta({ description: 'The account.' }),
    webhookId: z.string().meta({ description: 'The receiving webhook.' }),
    eventId: z
      .string()
      .meta({ description: 'wev_...; the same for every webhook the event goes to, and on every attempt.' }),
    timestamp: z
      .string()
      .meta({ description: 'When the event was taken in: ISO 8601 UTC with nine fractional digits.' }),
    eventType: EventType,
    webhookName: z.string().meta({ description: "The webhook's name when the event was taken in." }),
    data: RunDetails.extend({
      test: z.literal(true).optional().meta({ description: 'Present, and true, only on sends of the test endpoint.' }),
    }).meta({
      description:
        'The run fields as ingested, but runStatus, the word paired with runStatusCode, and runStartedAt, to the ' +
        'second; runFinishedAt only in job.run.completed, runErroredAt only in job.run.errored.',
    }),
  })
  .meta({
    id: 'DeliveryPayload',
    description: "The JSON body every delivery attempt POSTs to the webhook's client_url, its fields in this order.",
  });
export type DeliveryPayload = z.infer<typeof DeliveryPayload>;

/**
 * What each event type requires of its run (docs/api-contract.md#10-event-ingestion): the timestamp its payload
 * carries, and the run status codes that can be true when it is emitted.
 */
export const EVENT_RULES: Record<
  EventTypeName,
  { timestamp: 'runFinishedAt' | 'runErroredAt' | null; statusCodes: readonly number[] }
> = {
  'job.run.started': { timestamp: null, statusCodes: [2, 3] },
  'job.run.completed': { timestamp: 'runFinishedAt', statusCodes: [10, 20, 30] },
  'job.run.errored': { timestamp: 'runErroredAt', statusCodes: [20] },
};

/**
 * The word a payload's runStatus carries for each run status code an event may have: dbt Cloud's payloads pair
 * 3 Running, 10 Success and 20 Errored, so a receiver may filter on either field; 2 and 30 are the runs' own
 * status names. A delivery carries this word whatever word was posted with the code (docs/api-contract.md).
 */
export const PAYLOAD_RUN_STATUS: Readonly<Record<number, string>> = {
  2: 'Starting',
  3: 'Running',
  10: 'Success',
  20: 'Errored',
  30: 'Cancelled',
};

/** POST /api/v3/accounts/{account_id}/webhooks/events: one job-run event, validated for its type. */
export const IngestEventBody = z
  .object(
    {
      event_type: z.enum(EventType.options, {
        error: () => `event_type must be one of ${EventType.options.join(', ')}`,
      }),
      run: RunDetails,
    },
    { error: 'the request body must be a JSON object with event_type and run' },
  )
  .superRefine((body, context) => {
    const rules = EVENT_RULES[body.event_type];
    if (rules.timestamp !== null && body.run[rules.timestamp] === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['run', rules.timestamp],
        message: `run.${rules.timestamp} is required for ${body.event_type}`,
      });
    }
    if (!rules.statusCodes.includes(body.run.runStatusCode)) {
      context.addIssue({
        code: 'custom',
        path: ['run', 'runStatusCode'],
        message: `run.runStatusCode must be one of ${rules.statusCodes.join(', ')} for ${body.event_type}`,
      });
    }
  })
  .meta({
    id: 'IngestEventBody',
    description: 'One job-run event: its type and the run. Each type requires its own timestamp and run status codes.',
  });
export type IngestEventBody = z.output<typeof IngestEventBody>;

export const IngestedEvent = z
  .object({
    event_id: z.string(),
    /** Deliveries queued for sending. */
    deliveries: z.number().int(),
    /** Deliveries recorded as skipped because their webhook is archived. */
    skipped: z.number().int(),
    /** True when this run and event type were already taken in: nothing new was queued. */
    duplicate: z.boolean(),
  })
  .meta({ id: 'IngestedEvent', description: 'The event taken in, and how many deliveries it queued or skipped.' });
export type IngestedEvent = z.infer<typeof IngestedEvent>;
