// @owrl/judge-model: the judge model (docs/design.md §7 `model`), two backends behind one BatchScorer:
// an ONNX judge run by onnxruntime-node in worker threads (P(success) from one forward pass, the
// yes/no logits at the last prompt token; decoder-only and vision-language layouts) and an API
// judge on an OpenAI-compatible chat completions endpoint (P(yes) from the yes/no log-probs, else
// the answer text). The same prompt for both and a judge-core verdict source. Tiny model builders for
// tests are in `@owrl/judge-model/testing`.
export {
  JudgeModelError,
  JudgeModelErrorCode,
  fromWireError,
  isJudgeModelError,
  toWireError,
} from './errors.js';
export type {
  WireError,
} from './errors.js';
export {
  readModelFolder,
  parseOwrlJudge,
  parsePreprocessor,
  hashModelFolder,
  OWRL_JUDGE_FILE,
  DEFAULT_MAX_PROMPT_TOKENS,
  DEFAULT_QUESTION,
  DEFAULT_SYSTEM_PROMPT,
  graphPaths,
} from './folder.js';
export type {
  JudgeLayout,
  ModelFolder,
  OwrlJudgeConfig,
  PreprocessorConfig,
} from './folder.js';
export {
  buildMessages,
  judgeInputFromTrajectory,
} from './prompt.js';
export type {
  ChatMessage,
  ContentPart,
  JudgeAction,
  JudgeInput,
  JudgeStep,
  PromptOptions,
  Shortening,
} from './prompt.js';
export {
  shortenToFit,
} from './prompt-fit.js';
export type {
  FitResult,
} from './prompt-fit.js';
export {
  ApiJudge,
} from './api-judge.js';
export type {
  ApiJudgeOptions,
  ApiJudgeStats,
  ApiProbe,
} from './api-judge.js';
export {
  readChatReply,
  yesNoOfText,
  yesNoOfToken,
  pYesOfPosition,
} from './api-reply.js';
export type {
  ApiBasis,
  ApiVerdict,
} from './api-reply.js';
export {
  buildChatRequest,
  neutralizeSpecials,
  imageDataUrl,
} from './api-request.js';
export type {
  ChatRequest,
  ChatRequestOptions,
} from './api-request.js';
export {
  JudgeTokenizer,
  DEFAULT_IMAGE_TOKEN,
} from './text.js';
export type {
  EncodedPrompt,
} from './text.js';
export {
  decodeJpeg,
  preprocessImage,
  smartResize,
} from './image.js';
export type {
  ImagePatches,
  RgbImage,
} from './image.js';
export {
  padBatch,
  mropePositions,
  logitsToKeep,
  yesProbabilities,
} from './batch.js';
export type {
  ImageSpan,
  PaddedBatch,
} from './batch.js';
export {
  halfToFloat,
  floatToHalf,
} from './half.js';
export {
  JUDGE_DEVICES,
  AUTO_ORDER,
  describeChoice,
  defaultGpuThreads,
  isGpu,
  probeDevice,
  openSessions,
} from './session.js';
export type {
  OpenedSessions,
  SessionSettings,
  DeviceSkip,
  DeviceSkipCode,
  GpuDevice,
  JudgeDevice,
  ResolvedDevice,
} from './session.js';
export {
  decoderFeedsFor,
} from './runner.js';
export type {
  RowScore,
  RowOutcome,
  PassStats,
  ForwardResult,
} from './runner.js';
export {
  planPasses,
  paddingWaste,
} from './batch-plan.js';
export type {
  BatchShape,
  PlannedPass,
} from './batch-plan.js';
export {
  prepareRows,
  promptOptions,
  promptTokenLimit,
} from './prepare.js';
export type {
  PreparedOutcome,
  PreparedRow,
} from './prepare.js';
export {
  OnnxJudge,
  DEVICE_DEFAULTS,
} from './judge.js';
export type {
  BatchScorer,
  JudgeScore,
  JudgeStats,
  OnnxJudgeOptions,
  ScoreOptions,
} from './judge.js';
export {
  modelVerdictSource,
} from './model-source.js';
export type {
  ModelSourceOptions,
} from './model-source.js';
