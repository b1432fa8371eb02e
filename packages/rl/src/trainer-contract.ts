// The trainer contract in TypeScript: what the learner calls for every policy update, whether the
// trainer runs in process (the built-in pointer trainer) or behind the owrl.v1.Trainer gRPC
// service (its own process, or a GPU trainer outside owrl). It mirrors the service one to one:
// `train` is the client stream (header, then one TrainGroup per kept group) and its answer.
import type { TrainerInfo, TrainGroup, TrainHeader, TrainResult } from '@owrl/proto';

export interface PolicyTrainer {
  /** What the trainer trains and the versions it holds (GetTrainerInfo). */
  info(): Promise<TrainerInfo>;
  /**
   * One update from `header.baseVersion` to `header.targetVersion` over the kept groups (Train).
   * Idempotent on (batchId, baseVersion): repeating an update returns the stored result with
   * `replayed` set. Resolves once the new version is stored where `result.artifact.uri` says.
   */
  train(header: TrainHeader, groups: Iterable<TrainGroup> | AsyncIterable<TrainGroup>): Promise<TrainResult>;
  /** Releases connections or files; the instance is unusable afterwards. */
  close(): Promise<void>;
}
