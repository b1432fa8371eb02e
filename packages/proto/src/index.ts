// Wire contracts of owrl: generated protobuf-es code for proto/owrl/v1, grpc.health.v1 and
// grpc.reflection.v1, plus versioned encode/decode, the grpc-js adapter and server reflection.
// Generated code lives in ./gen (npm run gen).
export * from './gen/owrl/v1/task_pb.js';
export * from './gen/owrl/v1/rollout_pb.js';
export * from './gen/owrl/v1/trajectory_pb.js';
export * from './gen/owrl/v1/scored_pb.js';
export * from './gen/owrl/v1/policy_pb.js';
export * from './gen/owrl/v1/run_state_pb.js';
export * from './gen/owrl/v1/learner_pb.js';
export * from './gen/owrl/v1/trainer_pb.js';
export * as health from './gen/grpc/health/v1/health_pb.js';
export * as reflection from './gen/grpc/reflection/v1/reflection_pb.js';
export { ReflectionIndex } from './reflection.js';
export { create, clone, equals, toJson, fromJson, toBinary, fromBinary } from '@bufbuild/protobuf';
export type { MessageShape, MessageInitShape, DescMessage, JsonValue } from '@bufbuild/protobuf';
export * from './codec.js';
export * from './errors.js';
export * from './grpc.js';
export * from './names.js';
