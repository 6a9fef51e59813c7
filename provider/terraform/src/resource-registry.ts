// The managed resource types this provider serves, by Terraform type name: each one's schema and the shared rules
// bound to it and to its part of the API client. The provider server looks a request's type_name up here.
import type { WebhooksClient } from '@jobhooks/client';
import type { Diagnostic } from './diagnostics';
import { OPERATIONAL_ENDPOINT_RESOURCE } from './operational-endpoint-resource';
import {
  type Answer,
  applyChange,
  type Body,
  importById,
  type ManagedResource,
  planChange,
  readCurrent,
  type ResourceApi,
  upgradeState,
  validateConfig,
} from './resource-rules';
import { type BlockSchema, OPERATIONAL_ENDPOINT_TYPE, WEBHOOK_TYPE } from './schema';
import type { TfObject, TfValue } from './values';
import { WEBHOOK_RESOURCE } from './webhook-resource';

type Outcome = { newState: TfObject | null; diagnostics: Diagnostic[] };

/** What the provider server does with one resource type. */
export interface ResourceHandler {
  schema: BlockSchema;
  validate(config: TfValue): Diagnostic[];
  plan(
    prior: TfObject | null,
    proposed: TfObject | null,
    config: TfObject | null,
  ): { planned: TfObject | null; diagnostics: Diagnostic[] };
  apply(client: WebhooksClient, prior: TfObject | null, planned: TfObject | null): Promise<Outcome>;
  read(client: WebhooksClient, current: TfObject): Promise<Outcome>;
  importState(id: string): TfObject;
  upgrade(state: TfObject | null): TfObject | null;
}

/** The shared rules bound to one resource and the part of the client that manages it. */
function handlerOf<I extends Body, R extends Answer>(
  resource: ManagedResource<I, R>,
  apiOf: (client: WebhooksClient) => ResourceApi<I, R>,
): ResourceHandler {
  return {
    schema: resource.schema,
    validate: (config) => validateConfig(resource, config),
    plan: (prior, proposed, config) => planChange(resource, prior, proposed, config),
    apply: (client, prior, planned) => applyChange(resource, apiOf(client), prior, planned),
    read: (client, current) => readCurrent(resource, apiOf(client), current),
    importState: (id) => importById(resource, id),
    upgrade: upgradeState,
  };
}

export const RESOURCES: ReadonlyMap<string, ResourceHandler> = new Map([
  [WEBHOOK_TYPE, handlerOf(WEBHOOK_RESOURCE, (client) => client)],
  [OPERATIONAL_ENDPOINT_TYPE, handlerOf(OPERATIONAL_ENDPOINT_RESOURCE, (client) => client.operationalEndpoints)],
]);
