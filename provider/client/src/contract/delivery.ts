// The delivery log as the API shows it: one record per attempt (docs/api-contract.md#11-delivery-log-and-redelivery).
import { z } from 'zod';
import { EventType } from './vocabulary';

const Digits = z.string().regex(/^\d+$/);

export const DeliveryAttemptView = z.object({
  /** The attempt's own id, digits as a string. */
  id: z.string(),
  /** The event x webhook delivery this attempt belongs to; null for test-endpoint sends. */
  delivery_id: z.string().nullable(),
  event_id: z.string(),
  event_type: EventType,
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
  test: z.boolean(),
});
export type DeliveryAttemptView = z.infer<typeof DeliveryAttemptView>;

export const DeliveryPathParams = z.object({ account_id: z.string(), webhook_id: z.string(), delivery_id: z.string() });
