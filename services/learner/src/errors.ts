// Errors of the learner, each an OwrlError with a code from a constant map:
// - FatalRunError ends the run: phase FAILED with its code in RunState.failure_code, gRPC health
//   NOT_SERVING, exit non-zero (main.ts). A bus operation that fails for good keeps the bus
//   error's own code (BusErrorCode); everything else has a FatalRunCode.
// - CheckpointError, a FatalRunError, is a checkpoint file read back damaged, foreign or made for
//   another model: it names the file and the field.
// - ControlError answers a read of the control surface (ListGroups, GetTrajectory) with NOT_FOUND
//   at the edge (grpc-server.ts); it never ends the run.
import { OwrlError } from '@owrl/core';
import type { BusErrorCode } from '@owrl/bus';

export const FatalRunCode = {
  /** Anything else that ended the training loop: an unexpected exception (a bug). */
  LearnerError: 'LEARNER_ERROR',
  /** The checkpoint folder could not be written (a full or vanished volume): nothing trained from here on could be resumed. */
  CheckpointFailed: 'CHECKPOINT_FAILED',
  /** A checkpoint file read back is damaged or not the learner's (truncated, a field missing or of the wrong type). */
  CheckpointCorrupt: 'CHECKPOINT_CORRUPT',
  /** The checkpoint was made for another model (its feature dimension differs). */
  CheckpointMismatch: 'CHECKPOINT_MISMATCH',
  /** A policy engine cannot record the token-level traces an update needs: nothing of the run could be trained. */
  EngineIncompatible: 'ENGINE_INCOMPATIBLE',
  /** The remote trainer failed an update (after its client's retries). */
  TrainerFailed: 'TRAINER_FAILED',
  /** A trainer answered an update without an artifact. */
  TrainerBadResult: 'TRAINER_BAD_RESULT',
  /** An update checkpointed as written ahead has no stored request to train or send again. */
  TrainerBatchMissing: 'TRAINER_BATCH_MISSING',
  /** A stored update request cannot be read back. */
  TrainerBatchCorrupt: 'TRAINER_BATCH_CORRUPT',
  /** The remote trainer's answer for a version to publish is not stored. */
  TrainerArtifactMissing: 'TRAINER_ARTIFACT_MISSING',
} as const;
export type FatalRunCode = (typeof FatalRunCode)[keyof typeof FatalRunCode];

/**
 * RunState.failure_code of a run stopped before its last round (phase FAILED, resumable with
 * OWRL_RESUME=1). Not an error: no FatalRunError carries it.
 */
export const STOPPED_FAILURE_CODE = 'stopped';

/** Every RunState.failure_code the learner writes. */
export type RunFailureCode = FatalRunCode | BusErrorCode | typeof STOPPED_FAILURE_CODE;

export class FatalRunError extends OwrlError<FatalRunCode | BusErrorCode> {
  override readonly name: string = 'FatalRunError';
}

export function isFatalRunError(e: unknown, code?: FatalRunCode | BusErrorCode): e is FatalRunError {
  return e instanceof FatalRunError && (code === undefined || e.code === code);
}

/** RunState.failure_code of an error that ended the training loop: its own code, else LEARNER_ERROR. */
export function failureCodeOf(e: unknown): FatalRunCode | BusErrorCode {
  return isFatalRunError(e) ? e.code : FatalRunCode.LearnerError;
}

export type CheckpointErrorCode = typeof FatalRunCode.CheckpointCorrupt | typeof FatalRunCode.CheckpointMismatch;

export class CheckpointError extends FatalRunError {
  override readonly name: string = 'CheckpointError';
  declare readonly code: CheckpointErrorCode;

  /**
   * @param file the file read back.
   * @param field where in it: a dotted path (`loop.settledIds`), led by `line N: ` in a file of
   *   JSON lines; for a file holding one value, what the value is.
   */
  constructor(
    code: CheckpointErrorCode,
    readonly file: string,
    readonly field: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

export function isCheckpointError(e: unknown, code?: CheckpointErrorCode): e is CheckpointError {
  return e instanceof CheckpointError && (code === undefined || e.code === code);
}

export const ControlErrorCode = {
  /** The round finished longer ago than the retention (OWRL_KEEP_ROUNDS) or before this learner process: its ledger is released. */
  RoundReleased: 'ROUND_RELEASED',
  /** The round has not started. */
  RoundNotFound: 'ROUND_NOT_FOUND',
} as const;
export type ControlErrorCode = (typeof ControlErrorCode)[keyof typeof ControlErrorCode];

export class ControlError extends OwrlError<ControlErrorCode> {
  override readonly name: string = 'ControlError';
}

export function isControlError(e: unknown, code?: ControlErrorCode): e is ControlError {
  return e instanceof ControlError && (code === undefined || e.code === code);
}
