// Job-run events: the run details posted to ingestion and the payload delivered to endpoints (spec 2.2).
import { z } from 'zod';
import { EventType } from './vocabulary';

const IsoTimestamp = z.iso.datetime({ offset: false });

/** Run details as ingestion takes them; the per-event-type timestamps are checked by RunEvent. */
export const RunDetails = z.object({
  jobId: z.string().min(1).max(64),
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
});
export type RunDetails = z.infer<typeof RunDetails>;

/** The JSON envelope each endpoint receives. `data.test` is present only on deliveries of the test endpoint. */
export const DeliveryPayload = z.object({
  accountId: z.number().int(),
  webhookId: z.string(),
  eventId: z.string(),
  timestamp: z.string(),
  eventType: EventType,
  webhookName: z.string(),
  data: RunDetails.extend({ test: z.literal(true).optional() }),
});
export type DeliveryPayload = z.infer<typeof DeliveryPayload>;
