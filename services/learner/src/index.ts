// The learner service as a library (for embedding and tests); the process entry is main.ts.
export { Learner, type LearnerDeps } from './learner.js';
export { loadLearnerConfig, type LearnerConfig } from './config.js';
export {
  RoundLedger,
  type DropCause,
  type GroupFate,
  type GroupState,
  type IngestResult,
  type Redispatch,
  type RoundLedgerJson,
  type SampleSlot,
} from './round-ledger.js';
export { TaskScheduler, type SchedulerOptions, type SchedulerState } from './scheduler.js';
export { RunStateStore, type ChangeKind } from './run-state-store.js';
export { ArtifactServer, type StoredArtifact } from './artifact-server.js';
export {
  CheckpointStore,
  type CheckpointData,
  type LoopState,
  type RestoredCheckpoint,
  type RoundFile,
} from './checkpoint.js';
