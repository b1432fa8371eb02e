// Result of one programmatic check: pass, fail, or unavailable (the check could not be made, so
// no reward may be derived from it).

export type CheckResult =
  | { status: 'pass'; detail: string }
  | { status: 'fail'; detail: string }
  | {
      status: 'unavailable';
      /** Stable exclusion reason, e.g. `judge:verifier_unavailable`. */
      reason: string;
      detail: string;
    };
