// The lifecycle of a jobhooks operational endpoint for Pulumi (jobhooks' own API: dbt Cloud has none), over
// `client.operationalEndpoints` and the operational endpoints API's own body schema; the lifecycle is the webhook's.
import type * as pulumi from '@pulumi/pulumi';
import {
  ApiError,
  type OperationalEndpointInput,
  operationalEndpointProblems,
  type OperationalEventType,
} from '@jobhooks/client';
import { type OperationalEndpoint, WEBHOOK_DEFAULTS } from '@jobhooks/client/contract';
import { createResourceProvider, type ManagedInputs, type OutputsOf, type ResourceKind } from './resource-lifecycle';

/** What a program declares, in Pulumi's camelCase (the API's fields but job ids and a delivery rate). */
export interface OperationalEndpointInputs extends ManagedInputs {
  /** Take over an existing operational endpoint by id instead of creating one. */
  adoptEndpointId?: string;
}

export interface OperationalEndpointOutputs extends OutputsOf<OperationalEndpointInputs, 'adoptEndpointId'> {
  endpointId: string;
  /** The status code of the endpoint's last delivery ('0' before its first). */
  httpStatusCode: string;
  archived: boolean;
}

/** What a host without the API (dbt Cloud) is told apart by: it answers 404 on the collection's route. */
const NOT_JOBHOOKS =
  "Cannot create the operational endpoint: the host answered 404 Not Found, so it has no operational endpoints API; operational endpoints are jobhooks' own (dbt Cloud has none), so point the connection at a jobhooks service.";

const OPERATIONAL_ENDPOINT: ResourceKind<
  OperationalEndpointInputs,
  OperationalEndpointOutputs,
  OperationalEndpointInput,
  OperationalEndpoint
> = {
  noun: 'operational endpoint',
  adoptInput: 'adoptEndpointId',
  updatable: ['name', 'clientUrl', 'eventTypes', 'description', 'active'],
  // The body schema's description and active are the webhook's, with the webhook's defaults.
  defaults: { description: WEBHOOK_DEFAULTS.description, active: WEBHOOK_DEFAULTS.active },
  computed: ['endpointId', 'hmacSecret', 'previousSecretExpiresAt', 'httpStatusCode', 'archived'],
  problems: (news, known) => operationalEndpointProblems(news, known),
  body: (inputs) => ({
    name: inputs.name,
    client_url: inputs.clientUrl,
    event_types: inputs.eventTypes as OperationalEventType[],
    // Omitted stays omitted: the schema gives it the API's default.
    description: inputs.description,
    active: inputs.active,
  }),
  outputs: (endpoint, secret) => ({
    name: endpoint.name,
    clientUrl: endpoint.client_url,
    eventTypes: endpoint.event_types,
    description: endpoint.description,
    active: endpoint.active,
    endpointId: endpoint.id,
    ...secret,
    httpStatusCode: endpoint.http_status_code,
    archived: endpoint.archived,
  }),
  api: (client) => client.operationalEndpoints,
  createFailure: (error) => (error instanceof ApiError && error.status === 404 ? new Error(NOT_JOBHOOKS) : undefined),
};

export function createOperationalEndpointProvider(
  env: NodeJS.ProcessEnv = process.env,
): pulumi.dynamic.ResourceProvider {
  return createResourceProvider(OPERATIONAL_ENDPOINT, env);
}

let shared: pulumi.dynamic.ResourceProvider | undefined;

/** The one operational endpoint provider of this process, for the serialized shell (see sharedWebhookProvider). */
export function sharedOperationalEndpointProvider(): pulumi.dynamic.ResourceProvider {
  return (shared ??= createOperationalEndpointProvider());
}
