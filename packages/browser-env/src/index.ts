// @owrl/browser-env: the browser environment of owrl (docs/design.md §5) — a pool of Playwright-driven
// Chromium running episodes of the 13 OpenWebRL tools with typed effects, observations,
// terminations and diagnostics; plus the pure pieces (effect classification, URL safety, error
// classification, history) for reuse and tests. The /proc readers are in `@owrl/browser-env/testing`.
export {
  BrowserPool,
} from './browser-pool.js';
export type {
  PoolStats,
} from './browser-pool.js';
export {
  resolveOptions,
} from './options.js';
export type {
  BrowserEnvOptions,
  ResolvedOptions,
  EnvTimeouts,
} from './options.js';
export {
  EFFECT_KIND_NAMES,
} from './types.js';
export type {
  BlockedConnection,
  EffectKindName,
  EffectRecord,
  EpisodeDiagnostics,
  EpisodeHooks,
  EpisodePolicy,
  EpisodeResult,
  EpisodeSpec,
  EpisodeStep,
  EpisodeTermination,
  PageEval,
  PolicyInput,
  StepDecision,
  StepTiming,
  ToolCallResult,
} from './types.js';
export {
  BrowserEnvError,
  BrowserEnvErrorCode,
  ToolCallError,
  ToolCallErrorCode,
  isBrowserEnvError,
  isToolCallError,
} from './errors.js';
export {
  checkUrl,
  isPrivateAddress,
  isPrivateName,
  isAllowed,
} from './net-policy.js';
export type {
  UrlVerdict,
} from './net-policy.js';
export {
  classifyAddress,
} from './address-policy.js';
export type {
  AddressClass,
} from './address-policy.js';
export {
  ANSWER_CACHE_MS,
  EgressCheck,
  parseAuthority,
  parseHttpTarget,
} from './egress-check.js';
export type {
  EgressCheckOptions,
  EgressTarget,
  EgressVerdict,
  FenceReason,
  HostLookup,
  UpstreamCode,
} from './egress-check.js';
export {
  EgressProxy,
} from './egress-proxy.js';
export type {
  Dial,
  FenceEvent,
} from './egress-proxy.js';
export {
  EgressFence,
  FENCE_ARGS,
  PROXY_BYPASS,
} from './egress-fence.js';
export {
  classifyNetError,
  classifyHttpStatus,
  isTransientStatus,
} from './net-errors.js';
export type {
  NetFailure,
} from './net-errors.js';
export {
  detectWall,
  INTERSTITIAL_SELECTORS,
  WALL_SELECTORS,
} from './bot-wall.js';
export type {
  WallSignals,
  WallVerdict,
} from './bot-wall.js';
export {
  computeEffects,
  multisetDiff,
  shortUrl,
  emptyEvents,
} from './effects.js';
export type {
  CallEvents,
  CallIntent,
} from './effects.js';
export {
  historyEntry,
  parseErrorLine,
  HISTORY_MODES,
} from './history.js';
export {
  parseCall,
  normalizeKey,
  scrollPixels,
} from './tool-args.js';
export type {
  ParsedCall,
  Target,
} from './tool-args.js';
export type {
  RawSnapshot,
  FocusInfo,
} from './page-snapshot.js';
export {
  BASE_ARGS,
  chromiumArgs,
} from './browser-instance.js';
export {
  PlanPolicy,
  PlanError,
  PlanErrorCode,
  findElement,
  isPlanError,
} from './plan-policy.js';
export type {
  PlanCall,
  PlanStep,
  PlanTarget,
} from './plan-policy.js';
