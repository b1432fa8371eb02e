// Errors of the built-in policy: bad model artifacts, bad feature traces, inference failures.
import { OwrlError } from '@owrl/core';

export const PolicyErrorCode = {
  InvalidArtifact: 'POLICY_INVALID_ARTIFACT',
  InvalidTrace: 'POLICY_INVALID_TRACE',
  InvalidArgument: 'POLICY_INVALID_ARGUMENT',
  InferenceFailed: 'POLICY_INFERENCE_FAILED',
  NoCandidates: 'POLICY_NO_CANDIDATES',
  Aborted: 'POLICY_ABORTED',
  Released: 'POLICY_RELEASED',
} as const;
export type PolicyErrorCode = (typeof PolicyErrorCode)[keyof typeof PolicyErrorCode];

export class PolicyError extends OwrlError<PolicyErrorCode> {
  override readonly name = 'PolicyError';
}

export function isPolicyError(e: unknown): e is PolicyError {
  return e instanceof PolicyError;
}
