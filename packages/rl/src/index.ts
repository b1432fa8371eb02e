// GRPO math of owrl (pure TypeScript): group advantages and dynamic sampling, the clipped
// objective with exact gradients for the pointer policy, sparse Adam, the trainer and the
// rollout-length curriculum.
export {
  RlError,
  RlErrorCode,
  isRlError,
} from './errors.js';
export {
  groupAdvantages,
  groupFate,
} from './advantages.js';
export type {
  GroupFate,
} from './advantages.js';
export {
  grpoObjective,
} from './grpo.js';
export type {
  ClipOptions,
  GrpoResult,
  GrpoSample,
  PointerTraceLike,
} from './grpo.js';
export {
  ADAM_DEFAULTS,
  Adam,
} from './adam.js';
export type {
  AdamOptions,
  AdamStateJson,
  AdamStepStats,
} from './adam.js';
export {
  DEFAULT_TRUST_KL,
  DEFAULT_UPDATE,
  GrpoTrainer,
  epochStatMessage,
} from './trainer.js';
export type {
  EpochStats,
  GroupLike,
  GrpoTrainerOptions,
  TrajectoryLike,
  UpdateStats,
} from './trainer.js';
export {
  Curriculum,
} from './curriculum.js';
export {
  bcEvaluate,
  behaviourClone,
} from './behaviour-cloning.js';
export type {
  BcEpochStats,
  BcOptions,
  BcSample,
} from './behaviour-cloning.js';
export type {
  PolicyTrainer,
} from './trainer-contract.js';
