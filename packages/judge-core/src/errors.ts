// Errors of the reward pipeline: bad configuration and failures of a verdict source. Verifier
// outages never become rewards; they surface as excluded outcomes carrying these codes.
import { OwrlError } from '@owrl/core';

export const JudgeErrorCode = {
  InvalidConfig: 'JUDGE_INVALID_CONFIG',
  VerifierUnavailable: 'JUDGE_VERIFIER_UNAVAILABLE',
  BadVerifierResponse: 'JUDGE_BAD_VERIFIER_RESPONSE',
} as const;
export type JudgeErrorCode = (typeof JudgeErrorCode)[keyof typeof JudgeErrorCode];

export class JudgeError extends OwrlError<JudgeErrorCode> {
  override readonly name = 'JudgeError';
}

export function isJudgeError(e: unknown, code?: JudgeErrorCode): e is JudgeError {
  return e instanceof JudgeError && (code === undefined || e.code === code);
}
