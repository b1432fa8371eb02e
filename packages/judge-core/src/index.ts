// Reward pipeline of owrl (docs/design.md §7): format → rule → verdict source (the task's verifier,
// else a judge model given as a source), scored-message assembly and redelivery dedupe. No NATS here.
export {
  JudgeError,
  JudgeErrorCode,
  isJudgeError,
} from './errors.js';
export {
  ExcludedReason,
} from './outcome.js';
export type {
  JudgeOutcome,
} from './outcome.js';
export type {
  CheckResult,
} from './check-result.js';
export {
  containsToken,
  matchAnswer,
  normalizeAnswer,
} from './answer-match.js';
export {
  checkSiteState,
  siteStateUrl,
} from './site-state.js';
export type {
  FetchLike,
  SiteStateOptions,
} from './site-state.js';
export {
  createVerifiers,
} from './verifiers.js';
export type {
  SiteStateContext,
  Verifiers,
} from './verifiers.js';
export type {
  SourceResult,
  VerdictContext,
  VerdictProvider,
} from './verdict-source.js';
export {
  judgeTrajectory,
} from './pipeline.js';
export type {
  JudgeDeps,
} from './pipeline.js';
export {
  toScored,
  trajectoryIdOf,
} from './scored.js';
export {
  LruSet,
} from './dedupe.js';
export {
  addPair,
  calibrationFigures,
  confusionTable,
  emptyConfusion,
} from './calibration.js';
export type {
  CalibrationFigures,
  Confusion,
} from './calibration.js';
