// The OpenAPI document of GET /api/openapi.json: @fastify/swagger's options, and the transforms that make it from the
// routes' zod schemas. Contract schemas with an id in zod's registry (`.meta({ id })` in provider/client/src/contract)
// become named components; this file adds what the schemas cannot say: the headers the API reads and sets beside its
// bodies, and the receiver's side, a `jobRunEvent` webhook (docs/api-contract.md#12-delivery-payload,
// docs/api-contract.md#13-delivery-headers-and-signature, docs/api-contract.md#14-retries-and-archiving-for-receivers).
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { createJsonSchemaTransformObject, jsonSchemaTransform } from 'fastify-type-provider-zod';
import { countText, DELIVERY_RULES, durationText, LIMITS, retryDelaysText } from '@jobhooks/client/contract';
import { VERSION } from '../core/version';

type Json = Record<string, unknown>;
type OpenApiDocument = Json & { paths?: Record<string, Record<string, Json>>; components?: Json; webhooks?: Json };

const SCHEMAS = '#/components/schemas/';
const IDEMPOTENCY_WINDOW_HOURS = LIMITS.idempotencyWindowMicros / 3_600_000_000;
const RETENTION_SECONDS = DELIVERY_RULES.logRetentionDays * 86_400;
const RETRY_SPAN_SECONDS = DELIVERY_RULES.retryDelaysSeconds.reduce((sum, wait) => sum + wait, 0);

const DESCRIPTION = [
  "A management API compatible with dbt Cloud's webhooks API (its paths, fields and envelopes), with jobhooks' own",
  'additions marked as such: event ingestion, the delivery log, redelivery, recovery and secret rotation.',
  '',
  'Authenticate with `Authorization: Token <api token>` (or `Bearer`). Every answer is a JSON envelope: `data` and',
  '`status`, and `extra` on paged lists and validation errors (ErrorEnvelope).',
  '',
  "The `jobRunEvent` webhook describes the other direction: the signed POST every webhook's `client_url` receives,",
  "its payload and both signature schemes (dbt Cloud's `Authorization`, and Standard Webhooks).",
].join('\n');

const TAGS = [
  { name: 'webhooks', description: 'Webhook subscriptions: create, read, update, delete, test, and secret rotation.' },
  {
    name: 'deliveries',
    description: `A webhook's delivery log of the last ${durationText(RETENTION_SECONDS)}, redelivery and recovery.`,
  },
  {
    name: 'statistics',
    description: 'Attempts and deliveries per hour, success rates and response times, of a webhook or the account.',
  },
  {
    name: 'operational',
    description:
      "jobhooks' own operational endpoints: where an account hears that its webhooks are failing, archived, or " +
      'that a delivery failed for good, signed and delivered like job-run events.',
  },
  { name: 'events', description: 'Job-run events taken in, each queued for delivery to every matching webhook.' },
  { name: 'accounts', description: 'The accounts a token can see, and its permission set on each.' },
  { name: 'receivers', description: "What a webhook's endpoint receives: the signed delivery of a job-run event." },
];

const SECRET_KEY =
  "keyed with the webhook's `hmac_secret` as UTF-8 text (its 64 characters, not the bytes they encode), computed " +
  'over the raw request body before parsing and compared in constant time';

const SECURITY_SCHEMES = {
  token: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '"Token <api token>" or "Bearer <api token>"',
  },
  dbtSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      "dbt Cloud's signature on a delivery (receivers): `Authorization` is hex(HMAC-SHA256(key, body)), 64 lowercase " +
      `hex characters with no scheme word in front, ${SECRET_KEY}. It covers the body only and is the same on every ` +
      "attempt and redelivery; during a secret rotation's overlap it stays signed with the replaced secret, and " +
      'moves to the new one when the overlap ends.',
  },
  standardWebhooksSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'webhook-signature',
    description:
      'The Standard Webhooks signature on a delivery (receivers): `webhook-signature` is `v1,` followed by ' +
      'base64(HMAC-SHA256(key, webhook-id + "." + webhook-timestamp + "." + body)), ' +
      `${SECRET_KEY}. During a secret rotation's overlap it carries two signatures, space-separated: ` +
      '`v1,<new> v1,<old>`. A Standard Webhooks library takes the secret as `whsec_` + base64 of the key bytes.',
  },
};

/** A header the receiver gets on every attempt, as an OpenAPI parameter. */
function deliveryHeader(name: string, schema: Json, description: string) {
  return { name, in: 'header', required: true, schema, description };
}

const SIGNATURE = 'v1,[A-Za-z0-9+/]{43}=';

/**
 * The receiver's side: what every delivery attempt POSTs to a webhook's client_url
 * (docs/api-contract.md#13-delivery-headers-and-signature).
 */
const JOB_RUN_EVENT = {
  post: {
    operationId: 'receiveJobRunEvent',
    tags: ['receivers'],
    summary: "A job-run event, POSTed to the webhook's client_url on every delivery attempt",
    description: [
      'Each attempt is a `POST` of the DeliveryPayload with `Content-Type: application/json`, signed twice with',
      'the same `hmac_secret` (returned once, by create or a secret rotation). Check the one your scheme knows:',
      '',
      "- **dbt Cloud's scheme** (`dbtSignature`): `Authorization` is hex(HMAC-SHA256(key, body)), 64 lowercase hex",
      "  characters. The same on every attempt (until a rotation's overlap ends): it says the body is genuine, not when",
      '  it was sent.',
      '- **Standard Webhooks** (`standardWebhooksSignature`): `webhook-signature` is `v1,` + base64(HMAC-SHA256(key,',
      '  `webhook-id.webhook-timestamp.body`)). Each attempt signs its own timestamp, so refusing timestamps more than',
      "  a few minutes from your clock refuses a replayed request. During a rotation's overlap it holds two",
      '  signatures, `v1,<new> v1,<old>`: accept a match of either.',
      '',
      `Both are ${SECRET_KEY}.`,
      '',
      'Delivery is at least once and in no guaranteed order: deduplicate on `webhook-id`, which names the message',
      "(this event for this webhook), or on the payload's `webhookId` and `eventId` together.",
    ].join('\n'),
    security: [{ dbtSignature: [] }, { standardWebhooksSignature: [] }],
    parameters: [
      deliveryHeader(
        'webhook-id',
        { type: 'string' },
        "The message id: one per delivery (an event for one webhook: the delivery log's `delivery_id`; a test " +
          "send's own event id), the same on every attempt and redelivery of it, for de-duplication.",
      ),
      deliveryHeader(
        'webhook-timestamp',
        { type: 'string', pattern: '^[0-9]+$' },
        "This attempt's time in whole seconds since the Unix epoch, signed in `webhook-signature`.",
      ),
      deliveryHeader(
        'webhook-signature',
        { type: 'string', pattern: `^${SIGNATURE}( ${SIGNATURE})?$` },
        '`v1,` + base64(HMAC-SHA256(key, webhook-id + "." + webhook-timestamp + "." + body)); two, space-separated ' +
          "(`v1,<new> v1,<old>`), during a secret rotation's overlap.",
      ),
      deliveryHeader('X-Jobhooks-Event-Id', { type: 'string' }, "The payload's `eventId`."),
      deliveryHeader(
        'X-Jobhooks-Attempt',
        { type: 'integer', minimum: 1 },
        'The attempt number, as in the delivery log: 1 to 6 for automatic attempts; a redelivery continues the count.',
      ),
      deliveryHeader('User-Agent', { type: 'string', pattern: '^jobhooks/' }, '`jobhooks/<version>`.'),
    ],
    requestBody: {
      required: true,
      description: 'The exact bytes are fixed when the event is taken in: every attempt and redelivery sends them.',
      content: { 'application/json': { schema: { $ref: `${SCHEMAS}DeliveryPayload` } } },
    },
    responses: {
      '2XX': {
        description:
          'Success: a 2xx whose response (all of it, or its first 4 KiB) arrives within ' +
          `${durationText(DELIVERY_RULES.attemptTimeoutSeconds)} of the attempt's start. ` +
          "The delivery log keeps the response's status, headers and first 4 KiB of body.",
      },
      '410': {
        description:
          'Gone: ends the delivery at once and archives the webhook. Nothing more is sent to it (its waiting ' +
          'retries and new events are recorded as skipped) until a PUT with `active: true` or a new `client_url`.',
      },
      '429': {
        description: 'A failure, retried like any other (see default); its `Retry-After` can lengthen the next wait.',
        headers: { 'Retry-After': { $ref: '#/components/headers/ReceiverRetryAfter' } },
      },
      '503': {
        description: 'A failure, retried like any other (see default); its `Retry-After` can lengthen the next wait.',
        headers: { 'Retry-After': { $ref: '#/components/headers/ReceiverRetryAfter' } },
      },
      default: {
        description:
          'Anything else is a failure and is retried: a 3xx (redirects are not followed), another 4xx or 5xx, a 2xx ' +
          `later than ${durationText(DELIVERY_RULES.attemptTimeoutSeconds)}, or no answer. By default, retries come ` +
          `${retryDelaysText()} after a failure, each wait lengthened by a random 0 to ` +
          `${DELIVERY_RULES.retryJitterPercent} %: ${countText(DELIVERY_RULES.retriesPerDelivery + 1)} attempts at ` +
          `most, over about ${(RETRY_SPAN_SECONDS / 3600).toFixed(1)} hours. After ` +
          `${countText(DELIVERY_RULES.archiveAfterFailedDeliveries)} consecutive deliveries whose every attempt ` +
          `failed, or ${durationText(DELIVERY_RULES.archiveAfterFailingDays * 86_400)} of failing deliveries, the ` +
          'webhook is archived.',
      },
    },
  },
};

const HEADERS = {
  RetryAfter: {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0 },
  },
  ReceiverRetryAfter: {
    description:
      'Seconds or an HTTP date: the wait before the next attempt is lengthened to it, up to twice its step; never ' +
      'more attempts.',
    schema: { type: 'string' },
  },
  IdempotentReplayed: {
    description: 'Present, and `true`, when this answer repeats the one to an earlier request instead of acting again.',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** What the routes' responses mean, where a route says no more (the error codes of docs/api-contract.md#8-errors). */
const RESPONSE_DESCRIPTIONS: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '400': 'Invalid request: `validation_failed` (with `extra.field_errors`) or `malformed_request`',
  '401': '`unauthenticated`: no usable token',
  '403': '`forbidden`: another account, a permission set without the access, or a plan without webhooks',
  '404': "`not_found`: an unknown or malformed id, or another account's webhook",
  '409': '`conflict`: the request cannot be carried out in the current state',
  '413': '`payload_too_large`: a body over 64 KiB',
  '415': '`unsupported_media_type`: a body that is not `application/json`, or a compressed one',
  '429': '`rate_limited` or `sign_in_throttled`: wait for `Retry-After`',
};

/** Headers of particular operations, by operationId: what a route reads or sets beside its zod schemas. */
const OPERATION_HEADERS: Record<string, { request?: Json[]; responses?: Record<string, Record<string, Json>> }> = {
  createWebhook: {
    request: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          `Makes a retried create return the same webhook (with \`Idempotent-Replayed: true\`) for ${IDEMPOTENCY_WINDOW_HOURS} ` +
          'hours; the same key with another body is a 409.',
        schema: { type: 'string', minLength: 1, maxLength: LIMITS.idempotencyKeyMaxChars, pattern: '^[!-~]+$' },
      },
    ],
    responses: { '201': { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } },
  },
  ingestEvent: {
    responses: { '202': { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } },
  },
};

export const OPENAPI_OPTIONS: FastifyDynamicSwaggerOptions = {
  openapi: {
    // 3.1: for the top-level `webhooks` section.
    openapi: '3.1.0',
    info: {
      title: 'jobhooks webhooks management API',
      version: VERSION,
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The service that serves this document; every API path starts with /api.' }],
    tags: TAGS,
    components: { securitySchemes: SECURITY_SCHEMES, headers: HEADERS },
    security: [{ token: [] }],
    webhooks: { jobRunEvent: JOB_RUN_EVENT },
    // The literals above are plain objects; openapi-types spells each keyword's values out.
  } as NonNullable<FastifyDynamicSwaggerOptions['openapi']>,
  transform: jsonSchemaTransform,
  transformObject: (input) => finishDocument(zodComponents(input) as OpenApiDocument),
};

const zodComponents = createJsonSchemaTransformObject({});

/** Declares the operations' headers and names their responses, then keeps one component per schema used. */
function finishDocument(document: OpenApiDocument): OpenApiDocument {
  for (const operation of operationsOf(document)) {
    const responses = (operation.responses ?? {}) as Record<string, Json>;
    for (const [status, response] of Object.entries(responses)) {
      if (response.description === 'Default Response' && RESPONSE_DESCRIPTIONS[status] !== undefined) {
        response.description = RESPONSE_DESCRIPTIONS[status];
      }
      if (status === '429') response.headers = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };
    }
    const extra = OPERATION_HEADERS[operation.operationId as string];
    if (extra?.request) operation.parameters = [...((operation.parameters as Json[]) ?? []), ...extra.request];
    for (const [status, headers] of Object.entries(extra?.responses ?? {})) {
      const response = responses[status];
      if (response) response.headers = { ...(response.headers as Json), ...headers };
    }
  }
  return namedComponents(document);
}

function operationsOf(document: OpenApiDocument): Json[] {
  return Object.values(document.paths ?? {}).flatMap((item) => Object.values(item));
}

/**
 * fastify-type-provider-zod names each registered schema twice, `X` for responses and `XInput` for requests, and
 * emits every registered schema whether used or not. Keep the components the document uses, under their contract
 * names: `XInput` becomes `X` when `X` is unused or the same.
 */
function namedComponents(document: OpenApiDocument): OpenApiDocument {
  const components = (document.components ?? {}) as Json & { schemas?: Record<string, unknown> };
  const schemas = { ...(components.schemas ?? {}) };
  const used = usedSchemas(document, schemas);
  const renames = new Map<string, string>();
  for (const name of used) {
    const base = name.replace(/Input$/, '');
    if (base === name || !(base in schemas)) continue;
    if (!used.has(base) || JSON.stringify(schemas[name]) === JSON.stringify(schemas[base])) renames.set(name, base);
  }
  const rename = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value), (key, ref: unknown) =>
      key === '$ref' && typeof ref === 'string' && ref.startsWith(SCHEMAS) && renames.has(ref.slice(SCHEMAS.length))
        ? SCHEMAS + renames.get(ref.slice(SCHEMAS.length))
        : ref,
    );
  for (const [from, to] of renames) schemas[to] = schemas[from];
  const renamed = rename({ ...document, components: { ...components, schemas } }) as OpenApiDocument;
  const renamedSchemas = (renamed.components as { schemas: Record<string, unknown> }).schemas;
  const kept = usedSchemas(renamed, renamedSchemas);
  (renamed.components as Json).schemas = Object.fromEntries(
    Object.keys(renamedSchemas)
      .filter((name) => kept.has(name))
      .sort()
      .map((name) => [name, renamedSchemas[name]]),
  );
  return renamed;
}

/** The component schemas referenced from outside components.schemas, and those they reference in turn. */
function usedSchemas(document: OpenApiDocument, schemas: Record<string, unknown>): Set<string> {
  const used = new Set<string>();
  const pending: unknown[] = [{ ...document, components: { ...document.components, schemas: undefined } }];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) pending.push(...value);
    else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (key === '$ref' && typeof child === 'string' && child.startsWith(SCHEMAS)) {
          const name = child.slice(SCHEMAS.length);
          if (!used.has(name)) {
            used.add(name);
            pending.push(schemas[name]);
          }
        } else pending.push(child);
      }
    }
  }
  return used;
}
