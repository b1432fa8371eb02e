// grpc-js handlers typed by a protobuf-es service descriptor: each method's handler gets the
// request and response types of its descriptor (unary, server-, client- or bidi-streaming), so a
// wrong message type or a missing method is a compile error instead of a cast.
import type * as grpc from '@grpc/grpc-js';
import { grpcServiceDefinition, type DescMessage, type MessageShape } from '@owrl/proto';

interface MethodShape {
  methodKind: 'unary' | 'server_streaming' | 'client_streaming' | 'bidi_streaming';
  input: DescMessage;
  output: DescMessage;
}

/** The grpc-js handler of one descriptor method. */
export type HandlerOf<M extends MethodShape> = M['methodKind'] extends 'unary'
  ? grpc.handleUnaryCall<MessageShape<M['input']>, MessageShape<M['output']>>
  : M['methodKind'] extends 'server_streaming'
    ? grpc.handleServerStreamingCall<MessageShape<M['input']>, MessageShape<M['output']>>
    : M['methodKind'] extends 'client_streaming'
      ? grpc.handleClientStreamingCall<MessageShape<M['input']>, MessageShape<M['output']>>
      : grpc.handleBidiStreamingCall<MessageShape<M['input']>, MessageShape<M['output']>>;

/** Handlers of every method of a generated service (keyed by the method's local name). */
export type ServiceImplementation<S extends { method: Record<string, MethodShape> }> = {
  [K in keyof S['method']]: HandlerOf<S['method'][K]>;
};

/** Registers `impl` for `service` on `server`; `serviceName` overrides the path prefix (aliases). */
export function addTypedService<S extends { typeName: string; method: Record<string, MethodShape> }>(
  server: grpc.Server,
  service: S & Parameters<typeof grpcServiceDefinition>[0],
  impl: ServiceImplementation<S>,
  serviceName?: string,
): void {
  const def = grpcServiceDefinition(service);
  if (serviceName) for (const m of Object.values(def)) m.path = m.path.replace(`/${service.typeName}/`, `/${serviceName}/`);
  server.addService(def, impl);
}
