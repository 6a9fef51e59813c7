// Validation of a declared webhook for the IaC tools: the service's own create schema, reported by the tools'
// camelCase property names, over the values that are known (previews and tokens leave some unknown).
import { CreateWebhookBody } from './contract';

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
  const known = (Object.keys(FIELD_OF_PROPERTY) as Array<keyof WebhookProperties>).filter(
    (property) => properties[property] !== undefined && isKnown(properties[property]),
  );
  const body = Object.fromEntries(known.map((property) => [FIELD_OF_PROPERTY[property], properties[property]]));
  const parsed = CreateWebhookBody.safeParse(body);
  if (parsed.success) return [];
  return parsed.error.issues.flatMap((issue) => {
    const property = known.find((candidate) => FIELD_OF_PROPERTY[candidate] === issue.path[0]);
    return property === undefined ? [] : [{ property, reason: issue.message }];
  });
}
