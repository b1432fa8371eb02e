// The learner service as a library (for embedding and tests); the process entry is main.ts.
export {
  Learner,
} from './learner.js';
export type {
  LearnerDeps,
} from './learner.js';
export {
  loadLearnerConfig,
} from './config.js';
export type {
  LearnerConfig,
} from './config.js';
export {
  RoundLedger,
} from './round-ledger.js';
export type {
  DropCause,
  GroupFate,
  GroupState,
  IngestResult,
  Redispatch,
  SampleSlot,
} from './round-group.js';
export type {
  RoundLedgerJson,
} from './ledger-json.js';
export {
  TaskScheduler,
} from './scheduler.js';
export type {
  SchedulerOptions,
  SchedulerState,
} from './scheduler.js';
export {
  RunStateStore,
} from './run-state-store.js';
export type {
  ChangeKind,
} from './run-state-store.js';
export {
  ArtifactServer,
} from './artifact-server.js';
export type {
  StoredArtifact,
} from './artifact-server.js';
export {
  CheckpointStore,
} from './checkpoint.js';
export type {
  CheckpointData,
  LoopState,
  RestoredCheckpoint,
} from './checkpoint.js';
export type {
  RoundFile,
} from './round-file.js';
export {
  CheckpointError,
  FatalRunCode,
  FatalRunError,
  isCheckpointError,
  isFatalRunError,
  STOPPED_FAILURE_CODE,
} from './errors.js';
export type {
  RunFailureCode,
} from './errors.js';
