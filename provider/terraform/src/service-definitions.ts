// The gRPC services the provider serves, tfplugin6's Provider and go-plugin's GRPCController, made from the .proto
// sources the program holds (no .proto file to find at run time), field names kept as written. protobufjs reads
// them and each method's message types encode and decode its messages. @grpc/proto-loader would do the same and
// also build every message's descriptors for gRPC's reflection service, which the provider does not serve: at each
// start, which Terraform makes several times per command.
import type * as grpc from '@grpc/grpc-js';
import * as protobuf from 'protobufjs';
import { GO_PLUGIN_PROTO } from './protocol/go-plugin';
import { TFPLUGIN6_PROTO } from './protocol/tfplugin6';

export interface ServiceDefinitions {
  provider: grpc.ServiceDefinition;
  controller: grpc.ServiceDefinition;
}

/** Decoded messages: 64-bit numbers as numbers, enums by name, unset fields at their defaults, a oneof's case named. */
const AS_OBJECT: protobuf.IConversionOptions = { longs: Number, enums: String, defaults: true, oneofs: true };

/** The encoded bytes as the Buffer gRPC writes, without a copy (in Node.js protobufjs makes a Buffer already). */
const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function serviceDefinition(service: protobuf.Service): grpc.ServiceDefinition {
  const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const method of service.methodsArray) {
    method.resolve();
    const request = method.resolvedRequestType!;
    const response = method.resolvedResponseType!;
    definition[method.name] = {
      path: `/${service.fullName.slice(1)}/${method.name}`,
      requestStream: method.requestStream === true,
      responseStream: method.responseStream === true,
      requestSerialize: (value) => asBuffer(request.encode(request.fromObject(value)).finish()),
      requestDeserialize: (bytes) => request.toObject(request.decode(bytes), AS_OBJECT),
      responseSerialize: (value) => asBuffer(response.encode(response.fromObject(value)).finish()),
      responseDeserialize: (bytes) => response.toObject(response.decode(bytes), AS_OBJECT),
      // The name a generated client gives the method, as proto-loader makes it.
      originalName: method.name.charAt(0).toLowerCase() + method.name.slice(1),
    };
  }
  return definition;
}

export function loadServiceDefinitions(): ServiceDefinitions {
  const root = new protobuf.Root();
  for (const source of [TFPLUGIN6_PROTO, GO_PLUGIN_PROTO]) protobuf.parse(source, root, { keepCase: true });
  root.resolveAll();
  return {
    provider: serviceDefinition(root.lookupService('tfplugin6.Provider')),
    controller: serviceDefinition(root.lookupService('plugin.GRPCController')),
  };
}
