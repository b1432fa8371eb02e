// GRPO math of owrl (pure TypeScript): group advantages and dynamic sampling, the clipped
// objective with exact gradients for the pointer policy, sparse Adam, the trainer and the
// rollout-length curriculum.
export { RlError, RlErrorCode, isRlError } from './errors.js';
export { groupAdvantages, groupFate, type GroupFate } from './advantages.js';
export {
  grpoObjective,
  type ClipOptions,
  type GrpoResult,
  type GrpoSample,
  type PointerTraceLike,
} from './grpo.js';
export {
  ADAM_DEFAULTS,
  Adam,
  type AdamOptions,
  type AdamStateJson,
  type AdamStepStats,
} from './adam.js';
export {
  DEFAULT_TRUST_KL,
  DEFAULT_UPDATE,
  GrpoTrainer,
  epochStatMessage,
  type EpochStats,
  type GroupLike,
  type GrpoTrainerOptions,
  type TrajectoryLike,
  type UpdateStats,
} from './trainer.js';
export { Curriculum } from './curriculum.js';
export {
  bcEvaluate,
  behaviourClone,
  type BcEpochStats,
  type BcOptions,
  type BcSample,
} from './behaviour-cloning.js';
export type { PolicyTrainer } from './trainer-contract.js';
