// Errors of the RL math: bad rewards, traces, options or optimizer state.

export const RlErrorCode = {
  InvalidArgument: 'RL_INVALID_ARGUMENT',
  InvalidState: 'RL_INVALID_STATE',
} as const;
export type RlErrorCode = (typeof RlErrorCode)[keyof typeof RlErrorCode];

export class RlError extends Error {
  override readonly name = 'RlError';
  readonly code: RlErrorCode;

  constructor(code: RlErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export function isRlError(e: unknown): e is RlError {
  return e instanceof RlError;
}
