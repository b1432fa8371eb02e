// Wire contracts of owrl: generated protobuf-es code for proto/owrl/v1, grpc.health.v1 and
// grpc.reflection.v1, plus versioned encode/decode, the grpc-js adapter and server reflection.
// Generated code lives in ./gen (npm run gen).
export {
  AnswerMatchSchema,
  PageExpressionSchema,
  SiteStateCheckSchema,
  TaskSchema,
  VerifierSchema,
  file_owrl_v1_task,
  type AnswerMatch,
  type PageExpression,
  type SiteStateCheck,
  type Task,
  type Verifier,
} from './gen/owrl/v1/task_pb.js';
export {
  RolloutRequestSchema,
  file_owrl_v1_rollout,
  type RolloutRequest,
} from './gen/owrl/v1/rollout_pb.js';
export {
  DiagnosticsSchema,
  EffectKind,
  EffectKindSchema,
  EffectSchema,
  ImageRefSchema,
  LogprobMode,
  LogprobModeSchema,
  PageEvalSchema,
  PointSchema,
  PointerTraceSchema,
  PolicyTraceSchema,
  SamplerSettingsSchema,
  StepSchema,
  StepTimingSchema,
  TerminationClass,
  TerminationClassSchema,
  TerminationSchema,
  TokenTraceSchema,
  ToolCallSchema,
  ToolResultSchema,
  TrajectorySchema,
  file_owrl_v1_trajectory,
  type Diagnostics,
  type Effect,
  type ImageRef,
  type PageEval,
  type Point,
  type PointerTrace,
  type PolicyTrace,
  type SamplerSettings,
  type Step,
  type StepTiming,
  type Termination,
  type TokenTrace,
  type ToolCall,
  type ToolResult,
  type Trajectory,
} from './gen/owrl/v1/trajectory_pb.js';
export {
  ScoredTrajectorySchema,
  VerdictSchema,
  VerdictSource,
  VerdictSourceSchema,
  file_owrl_v1_scored,
  type ScoredTrajectory,
  type Verdict,
} from './gen/owrl/v1/scored_pb.js';
export {
  PolicyArtifactSchema,
  file_owrl_v1_policy,
  type PolicyArtifact,
} from './gen/owrl/v1/policy_pb.js';
export {
  ActorInfoSchema,
  BlacklistInfoSchema,
  DifficultyStatSchema,
  FailureRulesSchema,
  FamilyStatSchema,
  JudgeCalibrationSchema,
  RoundSummarySchema,
  RunCountersSchema,
  RunPhase,
  RunPhaseSchema,
  RunStateSchema,
  StalenessStatSchema,
  SuiteStatSchema,
  file_owrl_v1_run_state,
  type ActorInfo,
  type BlacklistInfo,
  type DifficultyStat,
  type FailureRules,
  type FamilyStat,
  type JudgeCalibration,
  type RoundSummary,
  type RunCounters,
  type RunState,
  type StalenessStat,
  type SuiteStat,
} from './gen/owrl/v1/run_state_pb.js';
export {
  GetRunStateRequestSchema,
  GetTrajectoryRequestSchema,
  GroupInfoSchema,
  Learner,
  ListGroupsRequestSchema,
  ListGroupsResponseSchema,
  PauseRunRequestSchema,
  ResumeRunRequestSchema,
  RunEventSchema,
  WatchRunRequestSchema,
  file_owrl_v1_learner,
  type GetRunStateRequest,
  type GetTrajectoryRequest,
  type GroupInfo,
  type ListGroupsRequest,
  type ListGroupsResponse,
  type PauseRunRequest,
  type ResumeRunRequest,
  type RunEvent,
  type WatchRunRequest,
} from './gen/owrl/v1/learner_pb.js';
export {
  EpochStatSchema,
  GetTrainerInfoRequestSchema,
  TrainChunkSchema,
  TrainGroupSchema,
  TrainHeaderSchema,
  TrainHyperparamsSchema,
  TrainResultSchema,
  TrainSampleSchema,
  TrainStepSchema,
  Trainer,
  TrainerInfoSchema,
  file_owrl_v1_trainer,
  type EpochStat,
  type GetTrainerInfoRequest,
  type TrainChunk,
  type TrainGroup,
  type TrainHeader,
  type TrainHyperparams,
  type TrainResult,
  type TrainSample,
  type TrainStep,
  type TrainerInfo,
} from './gen/owrl/v1/trainer_pb.js';
export * as health from './gen/grpc/health/v1/health_pb.js';
export * as reflection from './gen/grpc/reflection/v1/reflection_pb.js';
export { ReflectionIndex } from './reflection.js';
export { create, clone, equals, toJson, fromJson, toBinary, fromBinary } from '@bufbuild/protobuf';
export type { MessageShape, MessageInitShape, DescMessage, JsonValue } from '@bufbuild/protobuf';
export { SCHEMA_VERSION, decode, encode, encodeWithField, make } from './codec.js';
export { encodeTrajectory, sealTrace } from './trace-encode.js';
export { encodeGroupChunk } from './train-encode.js';
export { decodeScoredLazy, decodeTrajectoryLazy, pendingTraceBytes, prefetchSteps, scoredStepBytes, shareTrace, spillSteps, stepCount, stepTraces, traceKind, type SpillReader, type StepSpillWriter } from './lazy-trace.js';
export { ProtoError, ProtoErrorCode, isProtoError } from './errors.js';
export {
  encodeOnce,
  grpcServiceDefinition,
  type GrpcMethodDefinition,
  type GrpcServiceDefinition,
} from './grpc.js';
export {
  effectKindFromName,
  terminationClassFromName,
  terminationClassName,
  verdictSourceName,
} from './names.js';
