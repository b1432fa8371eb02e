// Built-in pointer policy of owrl: candidate actions with hashed sparse features, a linear
// softmax model (TypeScript, exact gradients), its ONNX export, and the onnxruntime-node policy
// the actors run.
export {
  PolicyError,
  PolicyErrorCode,
  PolicyUnavailableError,
  isPolicyError,
  isPolicyUnavailableError,
} from './errors.js';
export {
  answerShape,
  pageType,
  parseInstruction,
  type AnswerShape,
  type ParsedInstruction,
} from './text.js';
export {
  DEFAULT_DIM,
  type CandidateKind,
  type FeatureInput,
  type SparseFeatures,
} from './features.js';
export {
  FINISH_RESPONSE,
  buildCandidates,
  matchCandidate,
  type Candidate,
  type CandidateInput,
  type CandidateOptions,
} from './candidates.js';
export { SparseGradient, toCsr, type Csr, type CsrFeatures } from './sparse.js';
export {
  PointerModel,
  initialModel,
  sampleIndex,
  type CandidateFeatures,
  type PointerModelInit,
} from './pointer-model.js';
export { exportOnnx, readOnnxWeights, type PointerWeights } from './onnx-export.js';
export type { Policy, PolicyDecision, PolicyInput } from './policy.js';
export {
  OnnxPointerPolicy,
  POLICY_KIND,
  createPointerSession,
  runPointerSession,
  type OnnxPolicyOptions,
} from './onnx-policy.js';
