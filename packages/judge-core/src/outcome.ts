// What the judge decides about one trajectory: a scored verdict, or an exclusion with a reason
// (infrastructure terminations and judge failures are never rewards).
import type { Verdict } from '@owrl/proto';

export type JudgeOutcome =
  | {
      kind: 'scored';
      verdict: Verdict;
      /**
       * Shadow mode: the judge model's verdict on a trajectory the verifier decided (never used
       * for the reward; measures the model against the verifier).
       */
      shadow?: Verdict;
      /** Why the shadow source gave no verdict (timeout, crash), when it was asked and failed. */
      shadowUnavailable?: string;
    }
  | {
      kind: 'excluded';
      /** Stable reason: `<termination class lowercased>:<reason code>` (core outcomeKey) or `judge:<failure>`. */
      reason: string;
      /** Human-readable detail for logs (error message, HTTP status...). */
      detail?: string;
    };

/** Stable exclusion reasons produced by the judge itself (not by a termination). */
export const ExcludedReason = {
  VerifierUnavailable: 'judge:verifier_unavailable',
  VerifierBadResponse: 'judge:verifier_bad_response',
  InvalidVerifier: 'judge:invalid_verifier',
  PageEvalMissing: 'judge:page_eval_missing',
  NoVerdictSource: 'judge:no_verdict_source',
  InvalidTrajectory: 'judge:invalid_trajectory',
  InternalError: 'judge:internal_error',
} as const;
