// Errors of the policies: bad model artifacts, bad feature traces, inference failures, and a
// backend that cannot answer (POLICY_UNAVAILABLE, an infrastructure outcome of the episode).
import { OwrlError, POLICY_UNAVAILABLE_CODE, REASON_POLICY_UNAVAILABLE } from '@owrl/core';

export const PolicyErrorCode = {
  InvalidArtifact: 'POLICY_INVALID_ARTIFACT',
  InvalidTrace: 'POLICY_INVALID_TRACE',
  InvalidArgument: 'POLICY_INVALID_ARGUMENT',
  InferenceFailed: 'POLICY_INFERENCE_FAILED',
  NoCandidates: 'POLICY_NO_CANDIDATES',
  Aborted: 'POLICY_ABORTED',
  Released: 'POLICY_RELEASED',
  Unavailable: POLICY_UNAVAILABLE_CODE,
} as const;
export type PolicyErrorCode = (typeof PolicyErrorCode)[keyof typeof PolicyErrorCode];

export class PolicyError extends OwrlError<PolicyErrorCode> {
  override readonly name = 'PolicyError';
}

/**
 * The policy's backend could not answer (after its own retries) or refused the request. The
 * episode ends SANDBOX_ERROR with `reason` (e.g. `policy_unavailable`, `policy_rejected`).
 */
export class PolicyUnavailableError extends PolicyError {
  readonly reason: string;

  constructor(message: string, options: { reason?: string; cause?: unknown } = {}) {
    super(PolicyErrorCode.Unavailable, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = options.reason ?? REASON_POLICY_UNAVAILABLE;
  }
}

export function isPolicyError(e: unknown, code?: PolicyErrorCode): e is PolicyError {
  return e instanceof PolicyError && (code === undefined || e.code === code);
}

export function isPolicyUnavailableError(e: unknown): e is PolicyUnavailableError {
  return e instanceof PolicyUnavailableError;
}
