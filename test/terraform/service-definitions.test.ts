// The provider's gRPC services, made from the .proto sources with protobufjs alone, against what @grpc/proto-loader
// makes of the same sources: the same methods, paths and names, and the same messages on the wire and decoded.
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as protobuf from 'protobufjs';
import { GO_PLUGIN_PROTO } from '../../provider/terraform/src/protocol/go-plugin';
import { TFPLUGIN6_PROTO } from '../../provider/terraform/src/protocol/tfplugin6';
import { loadServiceDefinitions } from '../../provider/terraform/src/service-definitions';

function referenceDefinitions(): protoLoader.PackageDefinition {
  const root = new protobuf.Root();
  for (const source of [TFPLUGIN6_PROTO, GO_PLUGIN_PROTO]) protobuf.parse(source, root, { keepCase: true });
  return protoLoader.fromJSON(root.toJSON(), {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
}

const ours = loadServiceDefinitions();
const reference = referenceDefinitions();
const services: Array<[string, grpc.ServiceDefinition]> = [
  ['tfplugin6.Provider', ours.provider],
  ['plugin.GRPCController', ours.controller],
];
const referenceMethod = (service: string, method: string) =>
  (reference[service] as unknown as Record<string, grpc.MethodDefinition<object, object>>)[method]!;

test('every method of both services, with the path, streaming and name proto-loader gives it', () => {
  for (const [service, definition] of services) {
    const expected = Object.keys(reference[service] as object);
    expect(Object.keys(definition)).toEqual(expected);
    for (const [name, method] of Object.entries(definition)) {
      const { path, requestStream, responseStream, originalName } = referenceMethod(service, name);
      expect({
        path: method.path,
        requestStream: method.requestStream,
        responseStream: method.responseStream,
        originalName: method.originalName,
      }).toEqual({ path, requestStream, responseStream, originalName });
    }
  }
});

test('an empty request and response decode alike, defaults filled in, in every method', () => {
  for (const [service, definition] of services)
    for (const [name, method] of Object.entries(definition)) {
      const other = referenceMethod(service, name);
      const request = other.requestSerialize({});
      expect(method.requestSerialize({})).toEqual(request);
      expect(method.requestDeserialize(request)).toEqual(other.requestDeserialize(request));
      const response = other.responseSerialize({});
      expect(method.responseDeserialize(response)).toEqual(other.responseDeserialize(response));
      expect(method.responseSerialize({})).toEqual(response);
    }
});

test('a schema with nested blocks, bytes, enums, 64-bit numbers and a oneof is the same message both ways', () => {
  const schemaResponse = {
    provider: {
      version: 1,
      block: {
        attributes: [{ name: 'host_url', type: Buffer.from('"string"'), required: true, description_kind: 'MARKDOWN' }],
      },
    },
    resource_schemas: {
      dbtcloud_webhook: {
        version: 3,
        block: { attributes: [{ name: 'id', type: Buffer.from('"string"'), computed: true, sensitive: false }] },
      },
    },
    diagnostics: [
      {
        severity: 'WARNING',
        summary: 'Deprecated',
        detail: 'Use client_url.',
        attribute: {
          steps: [{ attribute_name: 'job_ids' }, { element_key_int: 9007199254740991 }, { element_key_string: 'k' }],
        },
      },
    ],
  };
  const method = ours.provider.GetProviderSchema!;
  const other = referenceMethod('tfplugin6.Provider', 'GetProviderSchema');
  const bytes = method.responseSerialize(schemaResponse);
  expect(bytes).toEqual(other.responseSerialize(schemaResponse));
  expect(method.responseDeserialize(bytes)).toEqual(other.responseDeserialize(bytes));
  const decoded = method.responseDeserialize(bytes) as typeof schemaResponse;
  expect(decoded.diagnostics[0]!.attribute.steps).toEqual([
    { attribute_name: 'job_ids', selector: 'attribute_name' },
    { element_key_int: 9007199254740991, selector: 'element_key_int' },
    { element_key_string: 'k', selector: 'element_key_string' },
  ]);
});

test('a request with a type name and a dynamic value in msgpack is the same message both ways', () => {
  const request = {
    type_name: 'dbtcloud_webhook',
    config: { msgpack: Buffer.from([0x81, 0xa4, 0x6e, 0x61, 0x6d, 0x65, 0xa1, 0x61]) },
  };
  const method = ours.provider.ValidateResourceConfig!;
  const other = referenceMethod('tfplugin6.Provider', 'ValidateResourceConfig');
  const bytes = method.requestSerialize(request);
  expect(bytes).toEqual(other.requestSerialize(request));
  expect(method.requestDeserialize(bytes)).toEqual(other.requestDeserialize(bytes));
  expect((method.requestDeserialize(bytes) as typeof request).config.msgpack).toEqual(request.config.msgpack);
});
