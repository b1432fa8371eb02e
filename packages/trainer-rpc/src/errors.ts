// Errors of the trainer contract, with stable codes that survive the process boundary: the server
// sends the code in the `owrl-error-code` trailer next to the gRPC status it maps to, and the
// client rebuilds the same TrainerError, so a learner handles a remote trainer's refusal exactly
// like an in-process one.
import * as grpc from '@grpc/grpc-js';
import { OwrlError } from '@owrl/core';

export const TrainerErrorCode = {
  /** The update request is malformed (header, groups, traces); names the field. */
  InvalidRequest: 'TRAINER_INVALID_REQUEST',
  /** base_version is not a version the trainer holds or can restore. */
  UnknownBaseVersion: 'TRAINER_UNKNOWN_BASE_VERSION',
  Unauthenticated: 'TRAINER_UNAUTHENTICATED',
  /** The trainer could not be reached or did not answer in time, after the retries. */
  Unavailable: 'TRAINER_UNAVAILABLE',
  /** The update itself failed (out of memory, a bug); retrying the same batch is unlikely to help. */
  Failed: 'TRAINER_FAILED',
  /** The trainer answered with a result that does not fit the request (wrong version, no artifact). */
  BadResult: 'TRAINER_BAD_RESULT',
} as const;
export type TrainerErrorCode = (typeof TrainerErrorCode)[keyof typeof TrainerErrorCode];

export class TrainerError extends OwrlError<TrainerErrorCode> {
  override readonly name = 'TrainerError';
}

export const ERROR_CODE_KEY = 'owrl-error-code';

const TO_STATUS: Record<TrainerErrorCode, grpc.status> = {
  TRAINER_INVALID_REQUEST: grpc.status.INVALID_ARGUMENT,
  TRAINER_UNKNOWN_BASE_VERSION: grpc.status.FAILED_PRECONDITION,
  TRAINER_UNAUTHENTICATED: grpc.status.UNAUTHENTICATED,
  TRAINER_UNAVAILABLE: grpc.status.UNAVAILABLE,
  TRAINER_FAILED: grpc.status.INTERNAL,
  TRAINER_BAD_RESULT: grpc.status.INTERNAL,
};

function isTrainerCode(c: unknown): c is TrainerErrorCode {
  return typeof c === 'string' && c in TO_STATUS;
}

/** The gRPC error a server answers for `e` (a TrainerError keeps its code; anything else is TRAINER_FAILED). */
export function toServiceError(e: unknown): grpc.ServiceError {
  const code = e instanceof TrainerError ? e.code : isTrainerCode((e as { code?: unknown })?.code) ? ((e as { code: TrainerErrorCode }).code) : TrainerErrorCode.Failed;
  const message = e instanceof Error ? e.message : String(e);
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_CODE_KEY, code);
  return Object.assign(new Error(message), { code: TO_STATUS[code], details: message, metadata });
}

/** The TrainerError a client raises for a gRPC error (the trailer's code, else one from the status). */
export function fromServiceError(e: grpc.ServiceError, what: string): TrainerError {
  const sent = e.metadata?.get(ERROR_CODE_KEY)[0];
  let code: TrainerErrorCode;
  if (isTrainerCode(sent)) code = sent;
  else if (e.code === grpc.status.INVALID_ARGUMENT) code = TrainerErrorCode.InvalidRequest;
  else if (e.code === grpc.status.FAILED_PRECONDITION) code = TrainerErrorCode.UnknownBaseVersion;
  else if (e.code === grpc.status.UNAUTHENTICATED || e.code === grpc.status.PERMISSION_DENIED) code = TrainerErrorCode.Unauthenticated;
  else if (e.code === grpc.status.UNAVAILABLE || e.code === grpc.status.DEADLINE_EXCEEDED) code = TrainerErrorCode.Unavailable;
  else code = TrainerErrorCode.Failed;
  return new TrainerError(code, `${what}: ${e.details || e.message}`, { cause: e });
}

export function isTrainerError(e: unknown, code?: TrainerErrorCode): e is TrainerError {
  return e instanceof TrainerError && (code === undefined || e.code === code);
}
