// The delivery log as the API shows it: one record per attempt (docs/api-contract.md#11-delivery-log-and-redelivery).
import { z } from 'zod';
import { PageQuery } from './paging';
import { DeliveredEventType } from './vocabulary';

const Digits = z.string().regex(/^\d+$/);

export const DeliveryAttemptView = z
  .object({
    /** The attempt's own id, digits as a string. */
    id: z.string(),
    /** The event x webhook delivery this attempt belongs to; null for test-endpoint sends. */
    delivery_id: z.string().nullable(),
    event_id: z.string(),
    event_type: DeliveredEventType,
    /** 1 for the first attempt, up to 6 after five retries; manual redeliveries continue the count. */
    attempt: z.number().int(),
    /** Microseconds since the Unix epoch, like the other timestamps of the API. */
    requested_at: Digits,
    duration_ms: z.number().int(),
    /** The response status, or "599" when no response came (timeout, refused, DNS, TLS). */
    http_status_code: z.string(),
    success: z.boolean(),
    error: z.string().nullable(),
    /** The first 4 KiB of the response body. */
    response_body: z.string(),
    /** The response's headers (as many as fit in 4 KiB); empty when no response came. jobhooks' own. */
    response_headers: z.record(z.string(), z.string()),
    test: z.boolean(),
  })
  .meta({ id: 'DeliveryAttemptView', description: 'One delivery attempt as the log keeps it.' });
export type DeliveryAttemptView = z.infer<typeof DeliveryAttemptView>;

export const DeliveryPathParams = z.object({ account_id: z.string(), webhook_id: z.string(), delivery_id: z.string() });

const TIME_BOUND_RULE = 'microseconds since the epoch (digits) or an RFC 3339 date-time such as 2026-11-23T09:00:00Z';

/**
 * A moment as a recovery (and the log's filters) take it: microseconds since the epoch as digits, like the API's
 * own timestamps, or an RFC 3339 date-time with its offset. Answers microseconds.
 */
export function timeBound(field: string) {
  return z
    .union([Digits, z.iso.datetime({ offset: true })], {
      error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be ${TIME_BOUND_RULE}`),
    })
    .transform((value) => (/^\d+$/.test(value) ? Number(value) : Date.parse(value) * 1000))
    .refine((micros) => Number.isSafeInteger(micros), `${field} is out of range`);
}

/**
 * The body of a recovery (docs/api-contract.md#16-recovering-failed-deliveries): every failed delivery created
 * in [since, until) is sent once more. `until` defaults to now.
 */
export const RecoverDeliveriesBody = z
  .object(
    { since: timeBound('since'), until: timeBound('until').optional() },
    { error: 'the request body must be a JSON object with since (and optionally until)' },
  )
  .meta({
    id: 'RecoverDeliveriesBody',
    description:
      'The window [since, until) of the failed deliveries to send once more; each bound is microseconds since the ' +
      'epoch as digits or an RFC 3339 date-time. until defaults to now.',
  });

export const RecoveredDeliveries = z
  .object({
    /** How many failed deliveries were put back, each for one attempt more. */
    recovered: z.number().int(),
  })
  .meta({ id: 'RecoveredDeliveries', description: 'How many failed deliveries were put back for one attempt more.' });
export type RecoveredDeliveries = z.infer<typeof RecoveredDeliveries>;

/**
 * The delivery log's query (docs/api-contract.md#11-delivery-log-and-redelivery): the page, and filters on the
 * attempts: `status` (succeeded or failed), `event_type`, and the window `since` <= requested_at < `until`.
 */
export const DeliveryLogQuery = PageQuery.extend({
  status: z.enum(['succeeded', 'failed'], { error: 'status must be succeeded or failed' }).optional(),
  event_type: z
    .enum(DeliveredEventType.options, {
      error: `event_type must be one of ${DeliveredEventType.options.join(', ')}`,
    })
    .optional(),
  since: timeBound('since').optional(),
  until: timeBound('until').optional(),
});
export type DeliveryLogQuery = z.output<typeof DeliveryLogQuery>;

/**
 * One delivery as sent (docs/api-contract.md#11-delivery-log-and-redelivery): the request every attempt made, its
 * signatures and per-attempt headers described rather than shown, and each attempt with what the endpoint answered.
 */
export const DeliveryDetail = z
  .object({
    id: z.string(),
    webhook_id: z.string(),
    event_id: z.string(),
    event_type: DeliveredEventType,
    state: z.enum(['pending', 'succeeded', 'failed', 'skipped']),
    attempts: z.number().int(),
    request: z.object({
      method: z.literal('POST'),
      /** The webhook's URL now (attempts went to the URL of their time). */
      url: z.string(),
      headers: z.record(z.string(), z.string()),
      /** The exact bytes every attempt sent, as UTF-8 text. */
      body: z.string(),
    }),
    /** Oldest first. */
    attempt_log: z.array(DeliveryAttemptView),
  })
  .meta({
    id: 'DeliveryDetail',
    description: 'One delivery: the request every attempt sent (signatures described, not shown) and its attempts.',
  });
export type DeliveryDetail = z.infer<typeof DeliveryDetail>;
