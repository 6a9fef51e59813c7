// Validation of a declared webhook or operational endpoint for the IaC tools: the service's own create schema,
// reported by the tools' camelCase property names, over the values that are known (previews and tokens leave some
// unknown).
import type { z } from 'zod';
import { CreateWebhookBody, fieldSentence, OperationalEndpointBody } from './contract';

/** A webhook as the IaC tools name its properties. */
export interface WebhookProperties {
  name?: unknown;
  clientUrl?: unknown;
  eventTypes?: unknown;
  description?: unknown;
  jobIds?: unknown;
  active?: unknown;
  /** jobhooks' own: the webhook's delivery rate. */
  maxRequestsPerSecond?: unknown;
}

/** The API field (and Terraform attribute) name of each property. */
export const FIELD_OF_PROPERTY = {
  name: 'name',
  clientUrl: 'client_url',
  eventTypes: 'event_types',
  description: 'description',
  jobIds: 'job_ids',
  active: 'active',
  maxRequestsPerSecond: 'max_requests_per_second',
} as const satisfies Record<keyof WebhookProperties, string>;

export interface WebhookProblem {
  property: keyof WebhookProperties;
  reason: string;
}

/** Every problem of the known values, in the API's words; unknown values are left for later. */
export function webhookProblems(properties: WebhookProperties, isKnown: (value: unknown) => boolean): WebhookProblem[] {
  return problemsOf(CreateWebhookBody, FIELD_OF_PROPERTY, properties, isKnown);
}

/** An operational endpoint as the IaC tools name its properties (jobhooks' own: no job_ids, no delivery rate). */
export type OperationalEndpointProperties = Omit<WebhookProperties, 'jobIds' | 'maxRequestsPerSecond'>;

const FIELD_OF_ENDPOINT_PROPERTY = {
  name: 'name',
  clientUrl: 'client_url',
  eventTypes: 'event_types',
  description: 'description',
  active: 'active',
} as const satisfies Record<keyof OperationalEndpointProperties, string>;

export interface OperationalEndpointProblem {
  property: keyof OperationalEndpointProperties;
  reason: string;
}

/** Every problem of an operational endpoint's known values, by the operational endpoints API's own body schema. */
export function operationalEndpointProblems(
  properties: OperationalEndpointProperties,
  isKnown: (value: unknown) => boolean,
): OperationalEndpointProblem[] {
  return problemsOf(OperationalEndpointBody, FIELD_OF_ENDPOINT_PROPERTY, properties, isKnown);
}

/** The issues `schema` finds in the known properties, each at the property whose API field it names. */
function problemsOf<Property extends string>(
  schema: z.ZodType,
  fieldOf: Record<Property, string>,
  properties: Partial<Record<Property, unknown>>,
  isKnown: (value: unknown) => boolean,
): Array<{ property: Property; reason: string }> {
  const known = (Object.keys(fieldOf) as Property[]).filter(
    (property) => properties[property] !== undefined && isKnown(properties[property]),
  );
  const body = Object.fromEntries(known.map((property) => [fieldOf[property], properties[property]]));
  const parsed = schema.safeParse(body);
  if (parsed.success) return [];
  return parsed.error.issues.flatMap((issue) => {
    const property = known.find((candidate) => fieldOf[candidate] === issue.path[0]);
    return property === undefined ? [] : [{ property, reason: fieldSentence(fieldOf[property], issue.message) }];
  });
}
