// Errors of the RL math: bad rewards, traces, options or optimizer state.
import { OwrlError } from '@owrl/core';

export const RlErrorCode = {
  InvalidArgument: 'RL_INVALID_ARGUMENT',
  InvalidState: 'RL_INVALID_STATE',
} as const;
export type RlErrorCode = (typeof RlErrorCode)[keyof typeof RlErrorCode];

export class RlError extends OwrlError<RlErrorCode> {
  override readonly name = 'RlError';
}

export function isRlError(e: unknown, code?: RlErrorCode): e is RlError {
  return e instanceof RlError && (code === undefined || e.code === code);
}
