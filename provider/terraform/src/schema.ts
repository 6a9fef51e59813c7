// The schemas this provider serves, attribute for attribute those of the public `dbt-labs/dbtcloud`
// provider (v1.x) for its configuration, `dbtcloud_webhook` resource and data source, so one configuration
// works against either; plus what is jobhooks' own, which a configuration for dbt Cloud leaves out: the delivery
// rate and secret rotation attributes, and the `dbtcloud_operational_endpoint` resource. Types are Terraform type constraints in their JSON form.
import { FIRST_RETRY_DELAY_MS } from '@jobhooks/client';
import { durationText, LIMITS, OPERATIONAL_EVENT_TYPES } from '@jobhooks/client/contract';
import type { TfObject, TfValue } from './values';
import { isObject } from './values';

export type TypeConstraint = 'string' | 'number' | 'bool' | ['list', TypeConstraint];

export interface AttributeSchema {
  name: string;
  type: TypeConstraint;
  description: string;
  required?: boolean;
  optional?: boolean;
  computed?: boolean;
  sensitive?: boolean;
  deprecated?: boolean;
}

export interface BlockSchema {
  description: string;
  attributes: AttributeSchema[];
}

export const PROVIDER_TYPE = 'dbtcloud';
export const WEBHOOK_TYPE = 'dbtcloud_webhook';
export const OPERATIONAL_ENDPOINT_TYPE = 'dbtcloud_operational_endpoint';

export const PROVIDER_SCHEMA: BlockSchema = {
  description: 'The jobhooks API (or dbt Cloud), reached at host_url with an API token for account_id.',
  attributes: [
    {
      name: 'token',
      type: 'string',
      optional: true,
      sensitive: true,
      description: 'API token. Or set DBT_CLOUD_TOKEN.',
    },
    { name: 'account_id', type: 'number', optional: true, description: 'Account id. Or set DBT_CLOUD_ACCOUNT_ID.' },
    {
      name: 'host_url',
      type: 'string',
      optional: true,
      description:
        'API base URL ending in /api, e.g. http://127.0.0.1:8080/api. Or set DBT_CLOUD_HOST_URL. Defaults to https://cloud.getdbt.com/api.',
    },
    {
      name: 'skip_credentials_validation',
      type: 'bool',
      optional: true,
      description: 'Skip the check, at configuration, that the token can see account_id.',
    },
    {
      name: 'max_retries',
      type: 'number',
      optional: true,
      description: 'Retries of a request that failed with a retryable status (default 3).',
    },
    {
      name: 'retry_interval_seconds',
      type: 'number',
      optional: true,
      description: `The first wait before a retry, doubling after each (default ${FIRST_RETRY_DELAY_MS / 1000} s); Retry-After wins.`,
    },
    {
      name: 'retriable_status_codes',
      type: ['list', 'string'],
      optional: true,
      description: 'Statuses to retry besides 408, 429, 500, 502, 503 and 504, which are always retried.',
    },
    {
      name: 'timeout_seconds',
      type: 'number',
      optional: true,
      description: 'Limit in seconds for each API request (default 30; 0 for none).',
    },
    { name: 'disable_retry', type: 'bool', optional: true, description: 'Never retry a request.' },
  ],
};

/** The latest delivery's status and the signing secret, computed the same way on every resource. */
const STATUS_AND_SECRET_ATTRIBUTES: AttributeSchema[] = [
  {
    name: 'http_status_code',
    type: 'string',
    computed: true,
    description: 'The latest delivery status ("599" when there was no response).',
  },
  {
    name: 'hmac_secret',
    type: 'string',
    computed: true,
    sensitive: true,
    description: 'Signing secret, known from create only.',
  },
];

/**
 * jobhooks' own secret rotation (dbt Cloud has none), the same on every resource that has a signing secret: a
 * configuration that sets these works only against jobhooks.
 */
const SECRET_ROTATION_ATTRIBUTES: AttributeSchema[] = [
  {
    name: 'secret_rotation',
    type: 'string',
    optional: true,
    description:
      'jobhooks\' own: change it to any new value (e.g. "2026-11") to rotate hmac_secret in place; the old secret keeps signing beside the new one for secret_overlap_seconds. Setting it at create, or removing it, rotates nothing.',
  },
  {
    name: 'secret_overlap_seconds',
    type: 'number',
    optional: true,
    description:
      "jobhooks' own: how long a rotation's replaced secret keeps signing, 0 to " +
      `${LIMITS.secretOverlapMaxSeconds} (${durationText(LIMITS.secretOverlapMaxSeconds)}); ` +
      `${LIMITS.secretOverlapDefaultSeconds} (${durationText(LIMITS.secretOverlapDefaultSeconds)}) when omitted. ` +
      'Changing it alone does nothing.',
  },
  {
    name: 'previous_secret_expires_at',
    type: 'string',
    computed: true,
    description:
      "jobhooks' own: while a rotation's overlap lasts, when the replaced secret stops signing, in RFC 3339 (UTC, e.g. 2026-11-27T09:30:00.000000Z); null otherwise.",
  },
];

export const WEBHOOK_RESOURCE_SCHEMA: BlockSchema = {
  description: 'A webhook that receives signed job-run events.',
  attributes: [
    { name: 'id', type: 'string', computed: true, description: 'The webhook id (wsu_...).' },
    {
      name: 'webhook_id',
      type: 'string',
      computed: true,
      deprecated: true,
      description: 'The webhook id; use id instead.',
    },
    { name: 'name', type: 'string', required: true, description: 'Name of the webhook.' },
    { name: 'description', type: 'string', optional: true, computed: true, description: 'Description (default "").' },
    { name: 'client_url', type: 'string', required: true, description: 'The https URL events are POSTed to.' },
    {
      name: 'event_types',
      type: ['list', 'string'],
      required: true,
      description: 'job.run.started, job.run.completed and/or job.run.errored.',
    },
    {
      name: 'job_ids',
      type: ['list', 'number'],
      optional: true,
      description: 'Jobs whose runs trigger the webhook; null or empty: every job.',
    },
    {
      name: 'active',
      type: 'bool',
      optional: true,
      computed: true,
      description: 'Whether events are sent (default true). true reactivates an archived webhook.',
    },
    ...STATUS_AND_SECRET_ATTRIBUTES,
    { name: 'account_identifier', type: 'string', computed: true, description: 'The account identifier.' },
    // jobhooks' own (dbt Cloud has no delivery rate): a configuration that sets it works only against jobhooks.
    {
      name: 'max_requests_per_second',
      type: 'number',
      optional: true,
      description:
        `jobhooks' own: the most requests per second sent to client_url, counted over all instances, 1 to ${LIMITS.maxRequestsPerSecondMax}; ` +
        'null or omitted: no limit. Deliveries beyond it wait their turn without using an attempt.',
    },
    ...SECRET_ROTATION_ATTRIBUTES,
  ],
};

export const OPERATIONAL_ENDPOINT_RESOURCE_SCHEMA: BlockSchema = {
  description:
    "jobhooks' own (dbt Cloud has no such API, and the public dbt-labs/dbtcloud provider no such resource): an " +
    "operational endpoint, a URL that receives signed operational events about the account's webhooks and their " +
    'deliveries. A configuration that declares one works only against jobhooks.',
  attributes: [
    { name: 'id', type: 'string', computed: true, description: 'The operational endpoint id.' },
    { name: 'endpoint_id', type: 'string', computed: true, description: 'The operational endpoint id, as id.' },
    { name: 'name', type: 'string', required: true, description: 'Name of the operational endpoint.' },
    { name: 'description', type: 'string', optional: true, computed: true, description: 'Description (default "").' },
    {
      name: 'client_url',
      type: 'string',
      required: true,
      description: 'The https URL operational events are POSTed to.',
    },
    {
      name: 'event_types',
      type: ['list', 'string'],
      required: true,
      description: `Operational event types, one or more of ${OPERATIONAL_EVENT_TYPES.join(', ')}.`,
    },
    {
      name: 'active',
      type: 'bool',
      optional: true,
      computed: true,
      description: 'Whether events are sent (default true). true reactivates an archived endpoint.',
    },
    ...STATUS_AND_SECRET_ATTRIBUTES,
    ...SECRET_ROTATION_ATTRIBUTES,
  ],
};

/** The attributes a configuration sets to rotate the secret; only the resource has them. */
const ROTATION_INPUTS = ['secret_rotation', 'secret_overlap_seconds'];

export const WEBHOOK_DATA_SOURCE_SCHEMA: BlockSchema = {
  description: 'Reads one webhook.',
  attributes: [
    { name: 'id', type: 'string', computed: true, description: 'The webhook id.' },
    { name: 'webhook_id', type: 'string', required: true, description: 'The webhook id to read (wsu_...).' },
    ...WEBHOOK_RESOURCE_SCHEMA.attributes
      .filter(({ name }) => !['id', 'webhook_id', 'hmac_secret', ...ROTATION_INPUTS].includes(name))
      .map(({ name, type, description }) => ({ name, type, description, computed: true })),
  ],
};

/** The value as an object of exactly the schema's attributes (absent ones null, unknown extras dropped). */
export function conform(schema: BlockSchema, value: TfValue): TfObject | null {
  if (!isObject(value)) return null;
  return Object.fromEntries(schema.attributes.map(({ name }) => [name, value[name] ?? null]));
}

/** The schema in the protocol's Schema message form. */
export function schemaMessage(schema: BlockSchema) {
  return {
    version: 0,
    block: {
      version: 0,
      description: schema.description,
      description_kind: 'PLAIN',
      attributes: schema.attributes.map((attribute) => ({
        name: attribute.name,
        type: Buffer.from(JSON.stringify(attribute.type)),
        description: attribute.description,
        description_kind: 'PLAIN',
        required: attribute.required ?? false,
        optional: attribute.optional ?? false,
        computed: attribute.computed ?? false,
        sensitive: attribute.sensitive ?? false,
        deprecated: attribute.deprecated ?? false,
      })),
    },
  };
}
