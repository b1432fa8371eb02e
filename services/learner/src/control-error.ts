// Errors of the learner's read side (ListGroups, GetTrajectory), turned into gRPC NOT_FOUND with
// their message at the edge (grpc-server.ts).
import { OwrlError } from '@owrl/core';

export const ControlErrorCode = {
  /** The round finished longer ago than the retention (OWRL_KEEP_ROUNDS) or before this learner process: its ledger is released. */
  RoundReleased: 'ROUND_RELEASED',
  /** The round has not started. */
  RoundNotFound: 'ROUND_NOT_FOUND',
} as const;
export type ControlErrorCode = (typeof ControlErrorCode)[keyof typeof ControlErrorCode];

export class ControlError extends OwrlError<ControlErrorCode> {
  override name = 'ControlError';
}

export const isControlError = (e: unknown): e is ControlError => e instanceof ControlError;
