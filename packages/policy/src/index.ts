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
} from './text.js';
export type {
  AnswerShape,
  ParsedInstruction,
} from './text.js';
export {
  DEFAULT_DIM,
} from './features.js';
export type {
  CandidateKind,
  FeatureInput,
  SparseFeatures,
} from './features.js';
export {
  FINISH_RESPONSE,
  buildCandidates,
  matchCandidate,
} from './candidates.js';
export type {
  Candidate,
  CandidateInput,
  CandidateOptions,
} from './candidates.js';
export {
  SparseGradient,
  toCsr,
} from './sparse.js';
export type {
  Csr,
  CsrFeatures,
} from './sparse.js';
export {
  PointerModel,
  initialModel,
  sampleIndex,
} from './pointer-model.js';
export type {
  CandidateFeatures,
  PointerModelInit,
} from './pointer-model.js';
export {
  exportOnnx,
  readOnnxWeights,
} from './onnx-export.js';
export type {
  PointerWeights,
} from './onnx-export.js';
export type {
  Policy,
  PolicyDecision,
  PolicyInput,
} from './policy.js';
export {
  OnnxPointerPolicy,
  POLICY_KIND,
  createPointerSession,
  runPointerSession,
} from './onnx-policy.js';
export type {
  OnnxPolicyOptions,
} from './onnx-policy.js';
