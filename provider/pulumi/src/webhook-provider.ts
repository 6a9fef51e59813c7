// The lifecycle of a jobhooks webhook for Pulumi (check, diff, create, read, update, delete), over the typed
// client and the service's own schemas, with jobhooks' own delivery rate (`maxRequestsPerSecond`) and secret
// rotation (a new `secretRotation` value rotates `hmacSecret` in place). Loaded by the serialized shell in
// serialized-provider.ts inside the provider host.
import type * as pulumi from '@pulumi/pulumi';
import { type WebhookInput, webhookProblems } from '@jobhooks/client';
import { WEBHOOK_DEFAULTS, type WebhookDetail, type WebhookSummary } from '@jobhooks/client/contract';
import type { ResourceConnection } from './connection';
import { createResourceProvider, type ManagedInputs, type OutputsOf, type ResourceKind } from './resource-lifecycle';

/** The API a resource talks to when it does not use the stack's: one program can manage several accounts. */
export type WebhookConnection = ResourceConnection;

/** What a program declares, in Pulumi's camelCase (the public pulumi-dbtcloud Webhook's inputs). */
export interface WebhookInputs extends ManagedInputs {
  jobIds?: number[];
  /**
   * jobhooks' own (dbt Cloud has no such field): the most requests per second sent to `clientUrl`, over all
   * instances, 1 to 100; omitted or null: no limit (and outputs hold null).
   */
  maxRequestsPerSecond?: number | null;
  /** Take over an existing webhook by id instead of creating one (`pulumi import` does not work for dynamic providers). */
  adoptWebhookId?: string;
}

export interface WebhookOutputs extends OutputsOf<WebhookInputs, 'adoptWebhookId'> {
  webhookId: string;
  httpStatusCode: string;
  accountIdentifier: string;
  archived: boolean;
}

const WEBHOOK: ResourceKind<WebhookInputs, WebhookOutputs, WebhookInput, WebhookSummary | WebhookDetail> = {
  noun: 'webhook',
  adoptInput: 'adoptWebhookId',
  updatable: ['name', 'clientUrl', 'eventTypes', 'description', 'jobIds', 'active', 'maxRequestsPerSecond'],
  defaults: {
    description: WEBHOOK_DEFAULTS.description,
    jobIds: [...WEBHOOK_DEFAULTS.job_ids],
    active: WEBHOOK_DEFAULTS.active,
    maxRequestsPerSecond: WEBHOOK_DEFAULTS.max_requests_per_second,
  },
  computed: ['webhookId', 'hmacSecret', 'previousSecretExpiresAt', 'httpStatusCode', 'accountIdentifier', 'archived'],
  problems: (news, known) => webhookProblems(news, known),
  body: (inputs) => ({
    name: inputs.name,
    client_url: inputs.clientUrl,
    event_types: inputs.eventTypes as WebhookInput['event_types'],
    // Omitted stays omitted: the schema gives it the API's default.
    description: inputs.description,
    job_ids: inputs.jobIds,
    active: inputs.active,
    max_requests_per_second: inputs.maxRequestsPerSecond,
  }),
  outputs: (webhook, secret) => ({
    name: webhook.name,
    clientUrl: webhook.client_url,
    eventTypes: webhook.event_types,
    description: webhook.description,
    jobIds: webhook.job_ids.map(Number),
    active: webhook.active,
    // The API leaves the field out of a webhook that has no rate.
    maxRequestsPerSecond: webhook.max_requests_per_second ?? null,
    webhookId: webhook.id,
    ...secret,
    httpStatusCode: webhook.http_status_code,
    accountIdentifier: webhook.account_identifier,
    archived: webhook.archived === true,
  }),
  api: (client) => client,
};

export function createWebhookProvider(env: NodeJS.ProcessEnv = process.env): pulumi.dynamic.ResourceProvider {
  return createResourceProvider(WEBHOOK, env);
}

let shared: pulumi.dynamic.ResourceProvider | undefined;

/**
 * The one provider of this process, for the serialized shell: Pulumi serializes captured variables by value,
 * so a cache kept in the shell's closure would not survive between calls; the module cache does.
 */
export function sharedWebhookProvider(): pulumi.dynamic.ResourceProvider {
  return (shared ??= createWebhookProvider());
}
