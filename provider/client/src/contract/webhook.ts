// Webhooks: the request bodies of create and update, and the response shapes of
// docs/api-contract.md#6-responses-of-each-operation.
import { z } from 'zod';
import { ClientUrl } from './client-url';
import { durationText } from './delivery-rules';
import { LIMITS } from './limits';
import { EventType } from './vocabulary';

/** "name is required" for a missing field, "name must be a string" for a wrong type. */
function typeError(field: string, expected: string) {
  return {
    error: (issue: { input: unknown }) =>
      issue.input === undefined ? `${field} is required` : `${field} must be ${expected}`,
  };
}

export function hasNoDuplicates<T>(values: readonly T[]): boolean {
  return new Set(values).size === values.length;
}

export const Name = z
  .string(typeError('name', 'a string'))
  .max(LIMITS.nameMaxChars, `name must be at most ${LIMITS.nameMaxChars} characters`)
  .refine((value) => value.trim().length > 0, 'name must not be blank')
  .meta({ description: 'A name for the webhook, shown in lists.' });

const EventTypes = z
  .array(
    z.enum(EventType.options, { error: () => `event_types may contain only ${EventType.options.join(', ')}` }),
    typeError('event_types', 'an array of event types'),
  )
  .min(1, 'event_types needs at least one event type')
  .refine(hasNoDuplicates, 'event_types must not repeat an event type')
  .meta({ description: 'The event types to send.' });

/** What an omitted optional field means, on create and on update (a full replacement) alike. */
export const WEBHOOK_DEFAULTS = {
  description: '',
  job_ids: [] as number[],
  active: true,
  max_requests_per_second: null,
} as const;

const JobId = z
  .number({ error: 'job ids must be numbers' })
  .int('job ids must be whole numbers')
  .positive('job ids must be positive')
  .max(Number.MAX_SAFE_INTEGER, 'job id is too large');

// Optional fields accept null as "omitted": some clients marshal an empty list or string as null.
const JobIds = z
  .array(JobId, { error: 'job_ids must be an array of job ids' })
  .max(LIMITS.jobIdsMaxEntries, `job_ids must have at most ${LIMITS.jobIdsMaxEntries} entries`)
  .refine(hasNoDuplicates, 'job_ids must not repeat a job id')
  .nullish()
  .transform((value) => value ?? [...WEBHOOK_DEFAULTS.job_ids])
  .meta({ description: 'The jobs whose runs are sent; empty or omitted sends the runs of every job.' });

export const Description = z
  .string({ error: 'description must be a string' })
  .max(LIMITS.descriptionMaxChars, `description must be at most ${LIMITS.descriptionMaxChars} characters`)
  .nullish()
  .transform((value) => value ?? WEBHOOK_DEFAULTS.description)
  .meta({ description: 'Free text about the webhook; empty when omitted.' });

export const Active = z
  .boolean({ error: 'active must be true or false' })
  .nullish()
  .transform((value) => value ?? WEBHOOK_DEFAULTS.active)
  .meta({ description: 'Whether events are sent; true when omitted.' });

const MAX_RATE = LIMITS.maxRequestsPerSecondMax;
const RATE_ERROR = `max_requests_per_second must be a whole number from 1 to ${MAX_RATE}, or null for no limit`;

// jobhooks' own (dbt Cloud has no such field): a client that does not know it omits it, which means no limit.
const MaxRequestsPerSecond = z
  .number({ error: RATE_ERROR })
  .int(RATE_ERROR)
  .min(1, RATE_ERROR)
  .max(MAX_RATE, RATE_ERROR)
  .nullish()
  .transform((value) => value ?? WEBHOOK_DEFAULTS.max_requests_per_second)
  .meta({
    description:
      `jobhooks only: the most requests per second sent to the endpoint, over all instances (1 to ${MAX_RATE}); ` +
      'null or omitted for no limit. Deliveries beyond it wait their turn without using an attempt.',
  });

/**
 * The writable fields, shared by create and update. PUT is a full replacement
 * (docs/decisions.md#2-required-fields-and-defaults), so an
 * omitted optional field takes the same default on both. Unknown fields are ignored rather than refused:
 * real clients send read-only fields back (the Terraform provider sends `id`).
 */
const WebhookFields = z.object({
  name: Name,
  description: Description,
  client_url: ClientUrl,
  event_types: EventTypes,
  job_ids: JobIds,
  active: Active,
  max_requests_per_second: MaxRequestsPerSecond,
});

const BODY_MUST_BE_OBJECT = { error: 'the request body must be a JSON object with the webhook fields' };

export const CreateWebhookBody = z
  .object(
    {
      ...WebhookFields.shape,
      id: z.string().max(0, 'id is assigned by the server: omit it or send an empty string').nullish(),
    },
    BODY_MUST_BE_OBJECT,
  )
  .meta({
    id: 'CreateWebhookBody',
    description: 'A new webhook: its name, endpoint and event types, and optionally a description, job ids and active.',
  });
export type CreateWebhookBody = z.output<typeof CreateWebhookBody>;

export const UpdateWebhookBody = z
  .object(
    {
      ...WebhookFields.shape,
      // Checked against the path by the service: it may be empty or repeat the webhook's own id.
      id: z.string().max(64, 'id does not name this webhook').nullish(),
    },
    BODY_MUST_BE_OBJECT,
  )
  .meta({
    id: 'UpdateWebhookBody',
    description: 'A full replacement of the webhook: an omitted optional field takes its default, as on create.',
  });
export type UpdateWebhookBody = z.output<typeof UpdateWebhookBody>;

/** What create and update store; the same for both once defaults are applied. */
export type WebhookValues = z.output<typeof WebhookFields>;

const Digits = z.string().regex(/^\d+$/);

/** Fields every webhook response carries (the update response is exactly these). */
export const WebhookSummary = z
  .object({
    id: z.string(),
    account_identifier: z.string(),
    name: z.string(),
    description: z.string(),
    job_ids: z.array(z.string()),
    event_types: z.array(EventType),
    client_url: z.string(),
    active: z.boolean(),
    created_at: Digits,
    updated_at: Digits,
    http_status_code: z.string(),
    account_id: z.string(),
    // jobhooks' own, like archived_at and archived_reason (docs/decisions.md#5-archived-state-in-the-api): dbt Cloud
    // sends none of them, and a client must still read its webhooks.
    archived: z.boolean().optional(),
    archived_at: Digits.optional(),
    archived_reason: z.string().optional(),
    // jobhooks' own too, and only present when set: a webhook without a rate reads exactly as dbt Cloud's.
    max_requests_per_second: z.number().int().optional(),
  })
  .meta({
    id: 'WebhookSummary',
    description: 'A webhook as every response shows it; the update response is exactly this.',
  });
export type WebhookSummary = z.infer<typeof WebhookSummary>;

/** How the webhook's endpoint has been answering this service: closed (sending), open (holding back), probing. */
export const DeliveryCircuit = z.enum(['closed', 'open', 'probing']);
export type DeliveryCircuit = z.infer<typeof DeliveryCircuit>;

/**
 * Get and list add `dispatched_at`, present once a dispatch has happened, and the endpoint's circuit
 * (docs/decisions.md#19-delivery-concurrency-and-leases): `delivery_circuit`, with `delivery_circuit_open_until`
 * (microseconds) while it is open. Both are jobhooks' own, like `archived`; optional for other servers.
 */
export const WebhookDetail = WebhookSummary.extend({
  dispatched_at: Digits.optional(),
  // A string, not the enum: a client built today must still read a webhook from a server with more states.
  delivery_circuit: z.string().optional(),
  delivery_circuit_open_until: Digits.optional(),
  // While a rotation's overlap lasts: when the replaced secret stops signing (docs/api-contract.md#15-secret-rotation).
  previous_secret_expires_at: Digits.optional(),
}).meta({
  id: 'WebhookDetail',
  description: 'A webhook as get and list show it: the summary, with its dispatch state and circuit.',
});
export type WebhookDetail = z.infer<typeof WebhookDetail>;

/** Only the create response carries the secret. */
export const CreatedWebhook = WebhookSummary.extend({ hmac_secret: z.string() }).meta({
  id: 'CreatedWebhook',
  description: 'The created webhook with its hmac_secret, which no other response shows.',
});
export type CreatedWebhook = z.infer<typeof CreatedWebhook>;

export const DeletedWebhook = z
  .object({
    data: z.object({ id: z.string() }),
    status: z.object({ code: z.number().int(), is_success: z.literal(true) }),
  })
  .meta({ id: 'DeletedWebhook', description: 'The answer to a delete: the id of the webhook that was deleted.' });

/** The result of the test endpoint (docs/decisions.md#10-the-test-endpoint). */
export const TestResult = z
  .object({
    verification_error: z.string().nullable(),
    verification_status_code: z.string(),
  })
  .meta({ id: 'TestResult', description: "What the webhook's endpoint answered to the test send." });
export type TestResult = z.infer<typeof TestResult>;

export const AccountPathParams = z.object({ account_id: z.string() });
export const WebhookPathParams = z.object({ account_id: z.string(), webhook_id: z.string() });

// In limits.ts, which has no zod, so that the web UI can read them without bundling the schema library.
export const MAX_SECRET_OVERLAP_SECONDS = LIMITS.secretOverlapMaxSeconds;
export const DEFAULT_SECRET_OVERLAP_SECONDS = LIMITS.secretOverlapDefaultSeconds;

/**
 * The body of a secret rotation (jobhooks' own endpoint, docs/api-contract.md#15-secret-rotation): how long the
 * replaced secret keeps signing beside the new one. 0 ends it at once. An empty body takes the default.
 */
export const RotateSecretBody = z
  .object(
    {
      overlap_seconds: z
        .number({ error: 'overlap_seconds must be a number of seconds' })
        .int('overlap_seconds must be a whole number of seconds')
        .min(0, 'overlap_seconds must not be negative')
        .max(
          MAX_SECRET_OVERLAP_SECONDS,
          `overlap_seconds must be at most ${MAX_SECRET_OVERLAP_SECONDS} (${durationText(MAX_SECRET_OVERLAP_SECONDS)})`,
        )
        .nullish()
        .transform((value) => value ?? DEFAULT_SECRET_OVERLAP_SECONDS),
    },
    { error: 'the request body must be a JSON object' },
  )
  .nullish()
  .transform((value) => value ?? { overlap_seconds: DEFAULT_SECRET_OVERLAP_SECONDS })
  .meta({
    id: 'RotateSecretBody',
    description: 'How long the replaced secret keeps signing beside the new one; an empty body takes a day.',
  });

/** A rotation's answer: the new secret (shown this once) and when the replaced one stops signing. */
export const RotatedSecret = z
  .object({
    id: z.string(),
    hmac_secret: z.string(),
    previous_secret_expires_at: Digits.nullable(),
  })
  .meta({
    id: 'RotatedSecret',
    description: 'The new secret, shown this once, and when the replaced one stops signing (null: it already has).',
  });
export type RotatedSecret = z.infer<typeof RotatedSecret>;

/** The answer to ending an overlap early: the replaced secret no longer signs anything. */
export const EndedSecretOverlap = z
  .object({ id: z.string(), previous_secret_expires_at: z.null() })
  .meta({ id: 'EndedSecretOverlap', description: 'The overlap has ended: only the new secret signs.' });
export type EndedSecretOverlap = z.infer<typeof EndedSecretOverlap>;
