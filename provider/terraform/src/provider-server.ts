// The tfplugin6 Provider service: decodes Terraform's messages, runs the provider logic and that of the resource
// type named in each request (resource-registry.ts), and encodes the answers. Holds the one piece of state a provider process has: the client made at configure.
import * as grpc from '@grpc/grpc-js';
import type { WebhooksClient } from '@jobhooks/client';
import { type Diagnostic, errorAt } from './diagnostics';
import { connect, resolveProviderSettings, validateProviderConfig } from './provider-config';
import { RESOURCES, type ResourceHandler } from './resource-registry';
import {
  type BlockSchema,
  conform,
  PROVIDER_SCHEMA,
  schemaMessage,
  WEBHOOK_DATA_SOURCE_SCHEMA,
  WEBHOOK_TYPE,
} from './schema';
import { decodeDynamic, encodeDynamic } from './values';
import { readWebhookDataSource } from './webhook-resource';

type Dynamic = { msgpack?: Uint8Array; json?: Uint8Array } | null;
type Request = Record<string, unknown>;
type Handler = (request: Request) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** Wraps a handler: any unexpected failure becomes a gRPC error with its message, never a crash. */
function unary(handler: Handler): grpc.handleUnaryCall<Request, Record<string, unknown>> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => handler(call.request))
      .then(
        (response) => callback(null, response),
        (error: unknown) =>
          callback({ code: grpc.status.INTERNAL, details: error instanceof Error ? error.message : String(error) }),
      );
  };
}

const decode = (value: unknown) => decodeDynamic(value as Dynamic);
const objectOf = (schema: BlockSchema, value: unknown) => conform(schema, decode(value));
const unknownType = (typeName: string, served: readonly string[]): Diagnostic[] => [
  errorAt(null, 'Unknown type', `This provider serves ${served.join(', ')}, not ${typeName}.`),
];
const RESOURCE_TYPES = [...RESOURCES.keys()];
const DATA_SOURCE_TYPES = [WEBHOOK_TYPE];
/** The request's resource type: its handler, or the diagnostics of a type this provider does not serve. */
function resourceOf(request: Request): { handler: ResourceHandler } | { diagnostics: Diagnostic[] } {
  const typeName = String(request.type_name);
  const handler = RESOURCES.get(typeName);
  return handler === undefined ? { diagnostics: unknownType(typeName, RESOURCE_TYPES) } : { handler };
}
const notConfigured: Diagnostic[] = [
  errorAt(null, 'Provider not configured', 'The dbtcloud provider was used before it was configured.'),
];

export interface ProviderServerOptions {
  env: NodeJS.ProcessEnv;
  /** Called on GRPCController.Shutdown, after the answer is sent. */
  onShutdown: () => void;
}

export function providerHandlers(options: ProviderServerOptions) {
  let client: WebhooksClient | null = null;
  type Response = Record<string, unknown>;
  const withClient = async (empty: Response, run: (api: WebhooksClient) => Promise<Response>): Promise<Response> =>
    client === null ? { ...empty, diagnostics: notConfigured } : run(client);
  /** Runs with the request's resource handler and the client; an unknown type or no client: `empty` with why. */
  const withResource = async (
    request: Request,
    empty: Response,
    run: (handler: ResourceHandler, api: WebhooksClient) => Promise<Response>,
  ): Promise<Response> => {
    const resource = resourceOf(request);
    return 'handler' in resource ? withClient(empty, (api) => run(resource.handler, api)) : { ...empty, ...resource };
  };

  const provider = {
    GetMetadata: unary(() => ({
      server_capabilities: { get_provider_schema_optional: false, plan_destroy: false, move_resource_state: false },
      resources: RESOURCE_TYPES.map((type_name) => ({ type_name })),
      data_sources: DATA_SOURCE_TYPES.map((type_name) => ({ type_name })),
      diagnostics: [],
    })),
    GetProviderSchema: unary(() => ({
      provider: schemaMessage(PROVIDER_SCHEMA),
      resource_schemas: Object.fromEntries(
        [...RESOURCES].map(([typeName, { schema }]) => [typeName, schemaMessage(schema)]),
      ),
      data_source_schemas: { [WEBHOOK_TYPE]: schemaMessage(WEBHOOK_DATA_SOURCE_SCHEMA) },
      server_capabilities: { get_provider_schema_optional: false, plan_destroy: false, move_resource_state: false },
      diagnostics: [],
    })),
    GetFunctions: unary(() => ({ diagnostics: [] })),
    ValidateProviderConfig: unary((request) => ({ diagnostics: validateProviderConfig(decode(request.config)) })),
    ValidateResourceConfig: unary((request) => {
      const resource = resourceOf(request);
      return 'handler' in resource ? { diagnostics: resource.handler.validate(decode(request.config)) } : resource;
    }),
    ValidateDataResourceConfig: unary((request) => ({
      diagnostics: request.type_name === WEBHOOK_TYPE ? [] : unknownType(String(request.type_name), DATA_SOURCE_TYPES),
    })),
    /**
     * One schema version so far: the stored JSON state is re-encoded (unknown old attributes dropped), with its
     * times in the format this version writes.
     */
    UpgradeResourceState: unary((request) => {
      const resource = resourceOf(request);
      if (!('handler' in resource)) return resource;
      const raw = (request.raw_state as { json?: Uint8Array } | null)?.json;
      const state = resource.handler.upgrade(conform(resource.handler.schema, decode({ json: raw })));
      return { upgraded_state: encodeDynamic(state), diagnostics: [] };
    }),
    ConfigureProvider: unary(async (request) => {
      const { settings, diagnostics } = resolveProviderSettings(decode(request.config), options.env);
      if (settings === null) return { diagnostics };
      const connected = await connect(settings);
      client = connected.client;
      return { diagnostics: connected.diagnostics };
    }),
    ReadResource: unary((request) =>
      withResource(request, { new_state: request.current_state }, async ({ schema, read }, api) => {
        const current = objectOf(schema, request.current_state);
        if (current === null) return { new_state: request.current_state, diagnostics: [] };
        const { newState, diagnostics } = await read(api, current);
        return { new_state: encodeDynamic(newState), diagnostics };
      }),
    ),
    PlanResourceChange: unary((request) => {
      const resource = resourceOf(request);
      if (!('handler' in resource)) return resource;
      const { schema, plan } = resource.handler;
      const { planned, diagnostics } = plan(
        objectOf(schema, request.prior_state),
        objectOf(schema, request.proposed_new_state),
        objectOf(schema, request.config),
      );
      return { planned_state: encodeDynamic(planned), requires_replace: [], diagnostics };
    }),
    ApplyResourceChange: unary((request) =>
      withResource(request, { new_state: request.prior_state }, async ({ schema, apply }, api) => {
        const prior = objectOf(schema, request.prior_state);
        const planned = objectOf(schema, request.planned_state);
        const { newState, diagnostics } = await apply(api, prior, planned);
        return { new_state: encodeDynamic(newState), diagnostics };
      }),
    ),
    ImportResourceState: unary((request) => {
      const resource = resourceOf(request);
      if (!('handler' in resource)) return { imported_resources: [], ...resource };
      const state = encodeDynamic(resource.handler.importState(String(request.id)));
      return { imported_resources: [{ type_name: request.type_name, state }], diagnostics: [] };
    }),
    ReadDataSource: unary((request) =>
      withClient({}, async (api) => {
        const config = objectOf(WEBHOOK_DATA_SOURCE_SCHEMA, request.config);
        if (config === null) return { diagnostics: [] };
        const { state, diagnostics } = await readWebhookDataSource(api, config);
        return { state: encodeDynamic(state), diagnostics };
      }),
    ),
    StopProvider: unary(() => ({ Error: '' })),
  };

  const controller = {
    Shutdown: unary(() => {
      setImmediate(options.onShutdown);
      return {};
    }),
  };
  return { provider, controller };
}
