// The learner service as a library (for embedding and tests); the process entry is main.ts.
export { Learner, type LearnerDeps } from './learner.js';
export { loadLearnerConfig, type LearnerConfig } from './config.js';
export { RoundLedger } from './round-ledger.js';
export type {
  DropCause,
  GroupFate,
  GroupState,
  IngestResult,
  Redispatch,
  SampleSlot,
} from './round-group.js';
export type { RoundLedgerJson } from './ledger-json.js';
export { TaskScheduler, type SchedulerOptions, type SchedulerState } from './scheduler.js';
export { RunStateStore, type ChangeKind } from './run-state-store.js';
export { ArtifactServer, type StoredArtifact } from './artifact-server.js';
export {
  CheckpointStore,
  type CheckpointData,
  type LoopState,
  type RestoredCheckpoint,
} from './checkpoint.js';
export type { RoundFile } from './round-file.js';
export {
  CheckpointError,
  FatalRunCode,
  FatalRunError,
  isCheckpointError,
  isFatalRunError,
  STOPPED_FAILURE_CODE,
  type RunFailureCode,
} from './errors.js';
