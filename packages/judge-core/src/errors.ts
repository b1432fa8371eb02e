// Errors of the reward pipeline: bad configuration and failures of a verdict source. Verifier
// outages never become rewards; they surface as excluded outcomes carrying these codes.

export const JudgeErrorCode = {
  InvalidConfig: 'JUDGE_INVALID_CONFIG',
  VerifierUnavailable: 'JUDGE_VERIFIER_UNAVAILABLE',
  BadVerifierResponse: 'JUDGE_BAD_VERIFIER_RESPONSE',
} as const;
export type JudgeErrorCode = (typeof JudgeErrorCode)[keyof typeof JudgeErrorCode];

export class JudgeError extends Error {
  override readonly name = 'JudgeError';
  readonly code: JudgeErrorCode;

  constructor(code: JudgeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export function isJudgeError(e: unknown): e is JudgeError {
  return e instanceof JudgeError;
}
