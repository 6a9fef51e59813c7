// `dbtcloud_operational_endpoint`, jobhooks' own resource (dbt Cloud has no operational endpoints API): an account's
// URL for operational events, managed over the client's operationalEndpoints by the rules every resource of this
// provider shares (resource-rules.ts), and checked at plan time by the operational endpoints API's own body schema.
import type { OperationalEndpoint } from '@jobhooks/client/contract';
import { ApiError, type OperationalEndpointInput, operationalEndpointProblems } from '@jobhooks/client';
import { errorAt } from './diagnostics';
import { commonBody, commonProperties, isKnown, type ManagedResource, problemsAtAttributes } from './resource-rules';
import { OPERATIONAL_ENDPOINT_RESOURCE_SCHEMA } from './schema';
import type { TfObject } from './values';

/**
 * What a failed create means when the host has no such route: dbt Cloud (and anything but jobhooks) answers 404
 * there, which the API's own message would not explain.
 */
export const NOT_JOBHOOKS =
  "Operational endpoints are jobhooks' own (dbt Cloud has no such API): the host at host_url answered 404 " +
  'to the operational endpoints API, so dbtcloud_operational_endpoint works only with host_url pointing at a jobhooks service.';

export const OPERATIONAL_ENDPOINT_RESOURCE: ManagedResource<OperationalEndpointInput, OperationalEndpoint> = {
  noun: 'operational endpoint',
  schema: OPERATIONAL_ENDPOINT_RESOURCE_SCHEMA,
  writable: ['name', 'description', 'client_url', 'event_types', 'active'],
  problems: (config) => problemsAtAttributes(operationalEndpointProblems(commonProperties(config), isKnown)),
  inputOf: (planned) => ({
    ...commonBody(planned),
    event_types: planned.event_types as OperationalEndpointInput['event_types'],
  }),
  fieldsOf: (endpoint: OperationalEndpoint): TfObject => ({
    id: endpoint.id,
    endpoint_id: endpoint.id,
    name: endpoint.name,
    description: endpoint.description,
    client_url: endpoint.client_url,
    event_types: [...endpoint.event_types],
    active: endpoint.active,
    http_status_code: endpoint.http_status_code,
  }),
  createFailure: (error) =>
    error instanceof ApiError && error.status === 404
      ? [errorAt(null, 'Unable to create operational endpoint', NOT_JOBHOOKS)]
      : null,
};
