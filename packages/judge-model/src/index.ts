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
  type WireError,
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
  type JudgeLayout,
  type ModelFolder,
  type OwrlJudgeConfig,
  type PreprocessorConfig,
} from './folder.js';
export {
  buildMessages,
  judgeInputFromTrajectory,
  type ChatMessage,
  type ContentPart,
  type JudgeAction,
  type JudgeInput,
  type JudgeStep,
  type PromptOptions,
  type Shortening,
} from './prompt.js';
export { shortenToFit, type FitResult } from './prompt-fit.js';
export { ApiJudge, type ApiJudgeOptions, type ApiJudgeStats, type ApiProbe } from './api-judge.js';
export {
  readChatReply,
  yesNoOfText,
  yesNoOfToken,
  pYesOfPosition,
  type ApiBasis,
  type ApiVerdict,
} from './api-reply.js';
export {
  buildChatRequest,
  neutralizeSpecials,
  imageDataUrl,
  type ChatRequest,
  type ChatRequestOptions,
} from './api-request.js';
export { JudgeTokenizer, DEFAULT_IMAGE_TOKEN, type EncodedPrompt } from './text.js';
export {
  decodeJpeg,
  preprocessImage,
  smartResize,
  type ImagePatches,
  type RgbImage,
} from './image.js';
export {
  padBatch,
  mropePositions,
  logitsToKeep,
  yesProbabilities,
  type ImageSpan,
  type PaddedBatch,
} from './batch.js';
export { halfToFloat, floatToHalf } from './half.js';
export { graphPaths } from './folder.js';
export {
  JUDGE_DEVICES,
  AUTO_ORDER,
  describeChoice,
  defaultGpuThreads,
  isGpu,
  probeDevice,
  openSessions,
  type OpenedSessions,
  type SessionSettings,
  type DeviceSkip,
  type DeviceSkipCode,
  type GpuDevice,
  type JudgeDevice,
  type ResolvedDevice,
} from './session.js';
export { decoderFeedsFor, type RowScore, type RowOutcome, type PassStats, type ForwardResult } from './runner.js';
export { planPasses, paddingWaste, type BatchShape, type PlannedPass } from './batch-plan.js';
export { prepareRows, promptOptions, promptTokenLimit, type PreparedOutcome, type PreparedRow } from './prepare.js';
export {
  OnnxJudge,
  DEVICE_DEFAULTS,
  type BatchScorer,
  type JudgeScore,
  type JudgeStats,
  type OnnxJudgeOptions,
  type ScoreOptions,
} from './judge.js';
export { modelVerdictSource, type ModelSourceOptions } from './model-source.js';
