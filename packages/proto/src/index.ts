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
} from './gen/owrl/v1/task_pb.js';
export type {
  AnswerMatch,
  PageExpression,
  SiteStateCheck,
  Task,
  Verifier,
} from './gen/owrl/v1/task_pb.js';
export {
  RolloutRequestSchema,
  file_owrl_v1_rollout,
} from './gen/owrl/v1/rollout_pb.js';
export type {
  RolloutRequest,
} from './gen/owrl/v1/rollout_pb.js';
export {
  BlockedConnectionSchema,
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
} from './gen/owrl/v1/trajectory_pb.js';
export type {
  BlockedConnection,
  Diagnostics,
  Effect,
  ImageRef,
  PageEval,
  Point,
  PointerTrace,
  PolicyTrace,
  SamplerSettings,
  Step,
  StepTiming,
  Termination,
  TokenTrace,
  ToolCall,
  ToolResult,
  Trajectory,
} from './gen/owrl/v1/trajectory_pb.js';
export {
  ScoredTrajectorySchema,
  VerdictSchema,
  VerdictSource,
  VerdictSourceSchema,
  file_owrl_v1_scored,
} from './gen/owrl/v1/scored_pb.js';
export type {
  ScoredTrajectory,
  Verdict,
} from './gen/owrl/v1/scored_pb.js';
export {
  PolicyArtifactSchema,
  file_owrl_v1_policy,
} from './gen/owrl/v1/policy_pb.js';
export type {
  PolicyArtifact,
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
} from './gen/owrl/v1/run_state_pb.js';
export type {
  ActorInfo,
  BlacklistInfo,
  DifficultyStat,
  FailureRules,
  FamilyStat,
  JudgeCalibration,
  RoundSummary,
  RunCounters,
  RunState,
  StalenessStat,
  SuiteStat,
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
} from './gen/owrl/v1/learner_pb.js';
export type {
  GetRunStateRequest,
  GetTrajectoryRequest,
  GroupInfo,
  ListGroupsRequest,
  ListGroupsResponse,
  PauseRunRequest,
  ResumeRunRequest,
  RunEvent,
  WatchRunRequest,
} from './gen/owrl/v1/learner_pb.js';
export {
  EpochStatSchema,
  GetTrainerInfoRequestSchema,
  OffPolicyStatSchema,
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
} from './gen/owrl/v1/trainer_pb.js';
export type {
  EpochStat,
  GetTrainerInfoRequest,
  OffPolicyStat,
  TrainChunk,
  TrainGroup,
  TrainHeader,
  TrainHyperparams,
  TrainResult,
  TrainSample,
  TrainStep,
  TrainerInfo,
} from './gen/owrl/v1/trainer_pb.js';
export * as health from './gen/grpc/health/v1/health_pb.js';
export * as reflection from './gen/grpc/reflection/v1/reflection_pb.js';
export {
  ReflectionIndex,
} from './reflection.js';
export {
  create,
  clone,
  equals,
  toJson,
  fromJson,
  toBinary,
  fromBinary,
} from '@bufbuild/protobuf';
export type {
  MessageShape,
  MessageInitShape,
  DescMessage,
  JsonValue,
} from '@bufbuild/protobuf';
export {
  SCHEMA_VERSION,
  decode,
  encode,
  encodeWithField,
  make,
} from './codec.js';
export {
  encodeTrajectory,
  sealTrace,
} from './trace-encode.js';
export {
  encodeGroupChunk,
} from './train-encode.js';
export {
  decodeScoredLazy,
  decodeTrajectoryLazy,
  pendingTraceBytes,
  prefetchSteps,
  scoredStepBytes,
  shareTrace,
  spillSteps,
  stepCount,
  stepTraces,
  traceKind,
} from './lazy-trace.js';
export type {
  SpillReader,
  StepSpillWriter,
} from './lazy-trace.js';
export {
  ProtoError,
  ProtoErrorCode,
  isProtoError,
} from './errors.js';
export {
  encodeOnce,
  grpcServiceDefinition,
} from './grpc.js';
export type {
  GrpcMethodDefinition,
  GrpcServiceDefinition,
} from './grpc.js';
export {
  effectKindFromName,
  terminationClassFromName,
  terminationClassName,
  verdictSourceName,
} from './names.js';
