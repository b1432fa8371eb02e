// Adapts protobuf-es service descriptors to the service-definition shape @grpc/grpc-js expects
// (path, streaming flags, serialize/deserialize), so servers and clients share one source of truth.
import { fromBinary, toBinary, type DescMessage, type DescMethod, type DescService, type MessageShape } from '@bufbuild/protobuf';

/** Encodings of messages marked by encodeOnce, used by every serializer built here. */
const encodings = new WeakMap<object, Buffer>();

/**
 * Encodes `msg` now and marks it so that the gRPC serializers of this module send those bytes
 * instead of encoding it again: one message written to many streams (a WatchRun broadcast) is
 * encoded once. The message must not be changed afterwards (its bytes would not follow).
 */
export function encodeOnce<Desc extends DescMessage>(schema: Desc, msg: MessageShape<Desc>): MessageShape<Desc> {
  encodings.set(msg, Buffer.from(toBinary(schema, msg)));
  return msg;
}

export interface GrpcMethodDefinition {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  originalName: string;
  requestSerialize: (value: unknown) => Buffer;
  requestDeserialize: (bytes: Buffer) => unknown;
  responseSerialize: (value: unknown) => Buffer;
  responseDeserialize: (bytes: Buffer) => unknown;
}

/** Keyed by the method's local name (camelCase), as grpc-js handlers are. */
export type GrpcServiceDefinition = Record<string, GrpcMethodDefinition>;

function methodDefinition(service: DescService, method: DescMethod): GrpcMethodDefinition {
  return {
    path: `/${service.typeName}/${method.name}`,
    requestStream: method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming',
    responseStream: method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming',
    originalName: method.localName,
    requestSerialize: (v) => Buffer.from(toBinary(method.input, v as never)),
    requestDeserialize: (b) => fromBinary(method.input, b),
    responseSerialize: (v) => encodings.get(v as object) ?? Buffer.from(toBinary(method.output, v as never)),
    responseDeserialize: (b) => fromBinary(method.output, b),
  };
}

/** grpc-js service definition of a protobuf-es service descriptor. */
export function grpcServiceDefinition(service: DescService): GrpcServiceDefinition {
  const def: GrpcServiceDefinition = {};
  for (const m of service.methods) def[m.localName] = methodDefinition(service, m);
  return def;
}
