// @owrl/llm-policy: the `openai` policy backend (docs/design.md §6) — a vision-language model behind an
// OpenAI-compatible endpoint (vLLM, SGLang, a hosted API) in OpenWebRL's agent format: the tool
// schemas, the pure prompt renderer, the reply parser (native and Qwen-style text tool calls),
// token-level traces, and the HTTP client with retries.
export {
  LlmPolicyError,
  LlmPolicyErrorCode,
  isLlmPolicyError,
} from './errors.js';
export {
  toolSchemas,
  toolDefinitions,
  TOOL_ORDER,
} from './tool-schemas.js';
export type {
  CoordinateSystem,
  ParamSchema,
  ToolSchema,
  ChatToolDefinition,
} from './tool-schemas.js';
export {
  validateToolCall,
  fromPixels,
} from './tool-validate.js';
export type {
  ValidateContext,
  ValidateResult,
} from './tool-validate.js';
export {
  readReply,
  firstChoice,
} from './chat-types.js';
export type {
  ChatContentPart,
  ChatMessage,
  ChatRequest,
  ReplyMessage,
  ServingEngine,
  WireToolCall,
} from './chat-types.js';
export {
  parseReply,
  compressReplyText,
  renderCallBlock,
  callJson,
} from './reply-parse.js';
export type {
  ParsedReply,
} from './reply-parse.js';
export {
  imageRef,
  imageSize,
  sha256Hex,
  dataUrl,
} from './image-ref.js';
export {
  renderChatRequest,
  requestImages,
  systemPrompt,
  pageText,
  assistantText,
  neutralize,
  DEFAULT_RENDER_OPTIONS,
} from './prompt-render.js';
export type {
  RenderOptions,
} from './prompt-render.js';
export {
  tokenTrace,
  emptyTokenTrace,
  tokensPolicyTrace,
  readTokens,
  maskAll,
} from './token-trace.js';
export type {
  ReadTokens,
  TraceContext,
} from './token-trace.js';
export {
  traceChecks,
  describeFailed,
} from './trace-checks.js';
export type {
  EngineCheck,
} from './trace-checks.js';
export {
  DEFAULT_SAMPLER,
  LOGPROB_MODES,
  defaultLogprobMode,
  samplerFields,
  samplerProblem,
  samplerTrace,
} from './sampling.js';
export type {
  LogprobMode,
  SamplerSettings,
} from './sampling.js';
export {
  requestModel,
  servedNameProblem,
} from './adapter-naming.js';
export {
  probeEngine,
} from './engine-probe.js';
export type {
  EngineProbeOptions,
  EngineProbeResult,
} from './engine-probe.js';
export {
  contextOverflow,
  errorMessage,
  isRetryableStatus,
} from './server-errors.js';
export type {
  ContextOverflow,
} from './server-errors.js';
export {
  ChatClient,
} from './chat-client.js';
export type {
  ChatClientOptions,
  ChatOutcome,
} from './chat-client.js';
export {
  OpenAIPolicy,
  OPENAI_POLICY_KIND,
} from './openai-policy.js';
export type {
  OpenAIPolicyOptions,
  OpenAIPolicyStats,
} from './openai-policy.js';
export {
  openAIPolicyConfigFromEnv,
  parseCoords,
} from './config.js';
export type {
  OpenAIPolicyConfig,
} from './config.js';
export {
  EngineWeightLoader,
  EngineLoadError,
  EngineLoadErrorCode,
  defaultServeName,
  isEngineLoadError,
} from './engine-loader.js';
export type {
  EngineWeightLoaderOptions,
  LoadedVersion,
  WeightEngine,
} from './engine-loader.js';
