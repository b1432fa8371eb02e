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
  type CoordinateSystem,
  type ParamSchema,
  type ToolSchema,
  type ChatToolDefinition,
} from './tool-schemas.js';
export {
  validateToolCall,
  fromPixels,
  type ValidateContext,
  type ValidateResult,
} from './tool-validate.js';
export {
  readReply,
  firstChoice,
  type ChatContentPart,
  type ChatMessage,
  type ChatRequest,
  type ReplyMessage,
  type ServingEngine,
  type WireToolCall,
} from './chat-types.js';
export {
  parseReply,
  compressReplyText,
  renderCallBlock,
  callJson,
  type ParsedReply,
} from './reply-parse.js';
export { imageRef, imageSize, sha256Hex, dataUrl } from './image-ref.js';
export {
  renderChatRequest,
  requestImages,
  systemPrompt,
  pageText,
  assistantText,
  neutralize,
  DEFAULT_RENDER_OPTIONS,
  type RenderOptions,
} from './prompt-render.js';
export {
  tokenTrace,
  emptyTokenTrace,
  tokensPolicyTrace,
  readTokens,
  maskAll,
  type ReadTokens,
  type TraceContext,
} from './token-trace.js';
export { traceChecks, describeFailed, type EngineCheck } from './trace-checks.js';
export {
  DEFAULT_SAMPLER,
  LOGPROB_MODES,
  defaultLogprobMode,
  samplerFields,
  samplerProblem,
  samplerTrace,
  type LogprobMode,
  type SamplerSettings,
} from './sampling.js';
export { requestModel, servedNameProblem } from './adapter-naming.js';
export { probeEngine, type EngineProbeOptions, type EngineProbeResult } from './engine-probe.js';
export {
  contextOverflow,
  errorMessage,
  isRetryableStatus,
  type ContextOverflow,
} from './server-errors.js';
export { ChatClient, type ChatClientOptions, type ChatOutcome } from './chat-client.js';
export {
  OpenAIPolicy,
  OPENAI_POLICY_KIND,
  type OpenAIPolicyOptions,
  type OpenAIPolicyStats,
} from './openai-policy.js';
export { openAIPolicyConfigFromEnv, parseCoords, type OpenAIPolicyConfig } from './config.js';
export {
  EngineWeightLoader,
  EngineLoadError,
  EngineLoadErrorCode,
  defaultServeName,
  isEngineLoadError,
  type EngineWeightLoaderOptions,
  type LoadedVersion,
  type WeightEngine,
} from './engine-loader.js';
