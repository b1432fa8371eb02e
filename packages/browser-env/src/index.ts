// @owrl/browser-env: the browser environment of owrl (docs/design.md §5) — a pool of Playwright-driven
// Chromium running episodes of the 13 OpenWebRL tools with typed effects, observations,
// terminations and diagnostics; plus the pure pieces (effect classification, URL safety, error
// classification, history) for reuse and tests. The /proc readers are in `@owrl/browser-env/testing`.
export { BrowserPool, type PoolStats } from './browser-pool.js';
export {
  resolveOptions,
  type BrowserEnvOptions,
  type ResolvedOptions,
  type EnvTimeouts,
} from './options.js';
export {
  EFFECT_KIND_NAMES,
  type BlockedConnection,
  type EffectKindName,
  type EffectRecord,
  type EpisodeDiagnostics,
  type EpisodeHooks,
  type EpisodePolicy,
  type EpisodeResult,
  type EpisodeSpec,
  type EpisodeStep,
  type EpisodeTermination,
  type PageEval,
  type PolicyInput,
  type StepDecision,
  type StepTiming,
  type ToolCallResult,
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
  type UrlVerdict,
} from './net-policy.js';
export { classifyAddress, type AddressClass } from './address-policy.js';
export { ANSWER_CACHE_MS, EgressCheck, parseAuthority, parseHttpTarget, type EgressCheckOptions, type EgressTarget, type EgressVerdict, type FenceReason, type HostLookup, type UpstreamCode } from './egress-check.js';
export { EgressProxy, type Dial, type FenceEvent } from './egress-proxy.js';
export { EgressFence, FENCE_ARGS, PROXY_BYPASS } from './egress-fence.js';
export {
  classifyNetError,
  classifyHttpStatus,
  isTransientStatus,
  type NetFailure,
} from './net-errors.js';
export {
  detectWall,
  INTERSTITIAL_SELECTORS,
  WALL_SELECTORS,
  type WallSignals,
  type WallVerdict,
} from './bot-wall.js';
export {
  computeEffects,
  multisetDiff,
  shortUrl,
  emptyEvents,
  type CallEvents,
  type CallIntent,
} from './effects.js';
export { historyEntry, parseErrorLine, HISTORY_MODES } from './history.js';
export {
  parseCall,
  normalizeKey,
  scrollPixels,
  type ParsedCall,
  type Target,
} from './tool-args.js';
export type { RawSnapshot, FocusInfo } from './page-snapshot.js';
export { BASE_ARGS, chromiumArgs } from './browser-instance.js';
export {
  PlanPolicy,
  PlanError,
  PlanErrorCode,
  findElement,
  isPlanError,
  type PlanCall,
  type PlanStep,
  type PlanTarget,
} from './plan-policy.js';
