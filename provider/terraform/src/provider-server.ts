// The tfplugin6 Provider service: decodes Terraform's messages, runs the provider and webhook logic, and
// encodes the answers. Holds the one piece of state a provider process has: the client made at configure.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as protobuf from 'protobufjs';
import type { WebhooksClient } from '@jobhooks/client';
import { type Diagnostic, errorAt } from './diagnostics';
import { GO_PLUGIN_PROTO } from './protocol/go-plugin';
import { TFPLUGIN6_PROTO } from './protocol/tfplugin6';
import { connect, resolveProviderSettings, validateProviderConfig } from './provider-config';
import {
  conform,
  PROVIDER_SCHEMA,
  schemaMessage,
  WEBHOOK_DATA_SOURCE_SCHEMA,
  WEBHOOK_RESOURCE_SCHEMA,
  WEBHOOK_TYPE,
} from './schema';
import { decodeDynamic, encodeDynamic, type TfValue } from './values';
import {
  applyWebhook,
  importWebhook,
  planWebhook,
  readWebhook,
  readWebhookDataSource,
  upgradeWebhookState,
  validateWebhookConfig,
} from './webhook-resource';

interface ServiceDefinitions {
  provider: grpc.ServiceDefinition;
  controller: grpc.ServiceDefinition;
}

export function loadServiceDefinitions(): ServiceDefinitions {
  const options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true };
  // Parsed from the sources held in the program (no .proto file to find at run time), names kept as written.
  const root = new protobuf.Root();
  for (const source of [TFPLUGIN6_PROTO, GO_PLUGIN_PROTO]) protobuf.parse(source, root, { keepCase: true });
  const definition = protoLoader.fromJSON(root.toJSON(), options);
  const service = (name: string) => definition[name] as grpc.ServiceDefinition;
  return { provider: service('tfplugin6.Provider'), controller: service('plugin.GRPCController') };
}

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
const objectOf = (schema: typeof WEBHOOK_RESOURCE_SCHEMA, value: unknown) => conform(schema, decode(value));
const unknownType = (typeName: string): Diagnostic[] => [
  errorAt(null, 'Unknown type', `This provider serves ${WEBHOOK_TYPE} only, not ${typeName}.`),
];
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

  const provider = {
    GetMetadata: unary(() => ({
      server_capabilities: { get_provider_schema_optional: false, plan_destroy: false, move_resource_state: false },
      resources: [{ type_name: WEBHOOK_TYPE }],
      data_sources: [{ type_name: WEBHOOK_TYPE }],
      diagnostics: [],
    })),
    GetProviderSchema: unary(() => ({
      provider: schemaMessage(PROVIDER_SCHEMA),
      resource_schemas: { [WEBHOOK_TYPE]: schemaMessage(WEBHOOK_RESOURCE_SCHEMA) },
      data_source_schemas: { [WEBHOOK_TYPE]: schemaMessage(WEBHOOK_DATA_SOURCE_SCHEMA) },
      server_capabilities: { get_provider_schema_optional: false, plan_destroy: false, move_resource_state: false },
      diagnostics: [],
    })),
    GetFunctions: unary(() => ({ diagnostics: [] })),
    ValidateProviderConfig: unary((request) => ({ diagnostics: validateProviderConfig(decode(request.config)) })),
    ValidateResourceConfig: unary((request) =>
      request.type_name === WEBHOOK_TYPE
        ? { diagnostics: validateWebhookConfig(decode(request.config)) }
        : { diagnostics: unknownType(String(request.type_name)) },
    ),
    ValidateDataResourceConfig: unary((request) => ({
      diagnostics: request.type_name === WEBHOOK_TYPE ? [] : unknownType(String(request.type_name)),
    })),
    /**
     * One schema version so far: the stored JSON state is re-encoded (unknown old attributes dropped), with its
     * times in the format this version writes.
     */
    UpgradeResourceState: unary((request) => {
      const raw = (request.raw_state as { json?: Uint8Array } | null)?.json;
      const state = upgradeWebhookState(conform(WEBHOOK_RESOURCE_SCHEMA, decode({ json: raw })));
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
      withClient({ new_state: request.current_state }, async (api) => {
        const current = objectOf(WEBHOOK_RESOURCE_SCHEMA, request.current_state);
        if (current === null) return { new_state: request.current_state, diagnostics: [] };
        const { newState, diagnostics } = await readWebhook(api, current);
        return { new_state: encodeDynamic(newState), diagnostics };
      }),
    ),
    PlanResourceChange: unary((request) => {
      const { planned, diagnostics } = planWebhook(
        objectOf(WEBHOOK_RESOURCE_SCHEMA, request.prior_state),
        objectOf(WEBHOOK_RESOURCE_SCHEMA, request.proposed_new_state),
        objectOf(WEBHOOK_RESOURCE_SCHEMA, request.config),
      );
      return { planned_state: encodeDynamic(planned), requires_replace: [], diagnostics };
    }),
    ApplyResourceChange: unary((request) =>
      withClient({ new_state: request.prior_state }, async (api) => {
        const prior = objectOf(WEBHOOK_RESOURCE_SCHEMA, request.prior_state);
        const planned = objectOf(WEBHOOK_RESOURCE_SCHEMA, request.planned_state);
        const { newState, diagnostics } = await applyWebhook(api, prior, planned);
        return { new_state: encodeDynamic(newState), diagnostics };
      }),
    ),
    ImportResourceState: unary((request) => {
      if (request.type_name !== WEBHOOK_TYPE)
        return { imported_resources: [], diagnostics: unknownType(String(request.type_name)) };
      const state: TfValue = importWebhook(String(request.id));
      return { imported_resources: [{ type_name: WEBHOOK_TYPE, state: encodeDynamic(state) }], diagnostics: [] };
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
