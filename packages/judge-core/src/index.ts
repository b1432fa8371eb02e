// Reward pipeline of owrl (docs/design.md §7): format → rule → verdict source (the task's verifier,
// else a judge model given as a source), scored-message assembly and redelivery dedupe. No NATS here.
export { JudgeError, JudgeErrorCode, isJudgeError } from './errors.js';
export { ExcludedReason, type JudgeOutcome } from './outcome.js';
export type { CheckResult } from './check-result.js';
export { containsToken, matchAnswer, normalizeAnswer } from './answer-match.js';
export {
  checkSiteState,
  siteStateUrl,
  type FetchLike,
  type SiteStateOptions,
} from './site-state.js';
export { createVerifiers, type SiteStateContext, type Verifiers } from './verifiers.js';
export type { SourceResult, VerdictContext, VerdictProvider } from './verdict-source.js';
export { judgeTrajectory, type JudgeDeps } from './pipeline.js';
export { toScored, trajectoryIdOf } from './scored.js';
export { LruSet } from './dedupe.js';
export {
  addPair,
  calibrationFigures,
  confusionTable,
  emptyConfusion,
  type CalibrationFigures,
  type Confusion,
} from './calibration.js';
