// @owrl/pointer-trainer: the built-in pointer policy's trainer behind the trainer contract
// (PolicyTrainer of @owrl/rl, served over gRPC by @owrl/trainer-rpc), with versions stored on
// disk as ONNX artifacts (also in the learner's process, InProcessPointerTrainer), and the conversion of the learner's pointer groups to TrainGroups.
export {
  samplesOf,
  toTrainGroups,
} from './convert.js';
export type {
  PointerGroupIn,
  PointerSampleIn,
} from './convert.js';
export {
  PointerPolicyTrainer,
  POINTER_ARTIFACT_KIND,
} from './pointer-policy-trainer.js';
export type {
  PointerPolicyTrainerOptions,
} from './pointer-policy-trainer.js';
export {
  TOY_DIM,
  readToyArtifact,
  toyHeader,
  toyRollout,
} from './toy-problem.js';
export {
  InProcessPointerTrainer,
  IN_PROCESS_TRAINER_NAME,
} from './in-process-trainer.js';
export type {
  InProcessPointerTrainerOptions,
  StoredArtifactRef,
} from './in-process-trainer.js';
export {
  UpdateThread,
} from './update-thread.js';
export type {
  UpdateOutcome,
} from './update-thread.js';
