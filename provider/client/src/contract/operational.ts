// Operational endpoints (jobhooks' own, docs/operational-webhooks.md): where an account hears about its webhooks'
// health, and the payload each operational event carries.
import { z } from 'zod';
import { ClientUrl } from './client-url';
import { OperationalEventType } from './vocabulary';
import { Active, Description, hasNoDuplicates, Name } from './webhook';

const Digits = z.string().regex(/^\d+$/);

const OperationalEventTypes = z
  .array(
    z.enum(OperationalEventType.options, {
      error: () => `event_types may contain only ${OperationalEventType.options.join(', ')}`,
    }),
    { error: (issue) => (issue.input === undefined ? 'event_types is required' : 'event_types must be an array') },
  )
  .min(1, 'event_types needs at least one event type')
  .refine(hasNoDuplicates, 'event_types must not repeat an event type')
  .meta({ description: 'The operational event types to send.' });

/** The writable fields, on create and on update (a full replacement, as for webhooks). */
export const OperationalEndpointBody = z
  .object(
    {
      name: Name,
      description: Description,
      client_url: ClientUrl,
      event_types: OperationalEventTypes,
      active: Active,
    },
    { error: 'the request body must be a JSON object with the operational endpoint fields' },
  )
  .meta({
    id: 'OperationalEndpointBody',
    description: 'An operational endpoint: its name, URL and operational event types; optionally description, active.',
  });
export type OperationalEndpointBody = z.output<typeof OperationalEndpointBody>;

export const OperationalEndpoint = z
  .object({
    id: z.string(),
    account_id: z.string(),
    name: z.string(),
    description: z.string(),
    client_url: z.string(),
    event_types: z.array(OperationalEventType),
    active: z.boolean(),
    created_at: Digits,
    updated_at: Digits,
    http_status_code: z.string(),
    archived: z.boolean(),
    archived_at: Digits.optional(),
    archived_reason: z.string().optional(),
    delivery_circuit: z.string(),
    previous_secret_expires_at: Digits.optional(),
  })
  .meta({ id: 'OperationalEndpoint', description: "An account's operational endpoint as every response shows it." });
export type OperationalEndpoint = z.infer<typeof OperationalEndpoint>;

export const CreatedOperationalEndpoint = OperationalEndpoint.extend({ hmac_secret: z.string() }).meta({
  id: 'CreatedOperationalEndpoint',
  description: 'The created operational endpoint with its hmac_secret, which no other response shows.',
});
export type CreatedOperationalEndpoint = z.infer<typeof CreatedOperationalEndpoint>;

export const OperationalEndpointPathParams = z.object({ account_id: z.string(), endpoint_id: z.string() });
export const OperationalDeliveryPathParams = OperationalEndpointPathParams.extend({ delivery_id: z.string() });

/** Which archive rule fired. */
export const ArchiveRule = z.enum(['failed_deliveries', 'failing_days', 'gone']);
export type ArchiveRule = z.infer<typeof ArchiveRule>;

/** The webhook an operational event is about, with the fields its owner knows it by and its page in the web UI. */
export const OperationalSubject = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  client_url: z.string(),
  account_identifier: z.string(),
  /** The webhook's page in the web UI: absolute when JOBHOOKS_PUBLIC_URL is set, else a path on the service. */
  ui_url: z.string(),
});
export type OperationalSubject = z.infer<typeof OperationalSubject>;

/** The JSON body of every operational delivery. */
export const OperationalEventPayload = z
  .object({
    /** The event's own id (an event id, like a job-run event's). */
    id: z.string(),
    type: OperationalEventType,
    /** When the fact became true: ISO 8601 UTC. */
    timestamp: z.string(),
    account_id: z.number().int(),
    data: z.object({
      webhook: OperationalSubject,
      /** webhook.archived: the rule that archived it, and the reason the API shows. */
      rule: ArchiveRule.optional(),
      reason: z.string().optional(),
      /** webhook.failing: the percentage of the archive threshold crossed, and the consecutive failed deliveries. */
      threshold_percent: z.number().int().optional(),
      consecutive_failures: z.number().int().optional(),
      /** webhook.circuit_opened: the sick answers in a row that opened it, and when it is first probed (microseconds). */
      sick_in_a_row: z.number().int().optional(),
      open_until: Digits.optional(),
      /** delivery.exhausted: the delivery that failed for good, its event and its attempts. */
      delivery_id: z.string().optional(),
      event_id: z.string().optional(),
      event_type: z.string().optional(),
      attempts: z.number().int().optional(),
    }),
  })
  .meta({ id: 'OperationalEventPayload', description: 'The JSON envelope an operational endpoint receives.' });
export type OperationalEventPayload = z.infer<typeof OperationalEventPayload>;
