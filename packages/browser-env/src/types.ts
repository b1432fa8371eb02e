// Public data shapes of an episode: what the caller specifies, what a policy sees and answers, and
// what comes back (steps with per-call effects, termination, diagnostics). Plain data throughout.
import type { DEFAULTS, HistoryEntry, HistoryMode, Observation, TerminationClassName, TerminationReason, ToolCallSpec } from '@owrl/core';

export interface EpisodeSpec {
  /** http(s) URL the episode starts on; anything else ends the episode with INIT_ERROR `bad_url`. */
  startUrl: string;
  instruction: string;
  /** Maximum number of policy decisions (integer >= 1). */
  maxSteps: number;
  /** JS expression evaluated in the final page (a verifier); result in EpisodeResult.pageEval. */
  pageExpression?: string;
  /** How earlier steps are shown to the policy (default `full`). */
  historyMode?: HistoryMode;
  /** Aborting ends the episode with SANDBOX_ERROR `aborted`. */
  signal?: AbortSignal;
  /** Per-episode overrides of the pool's timeouts (e.g. a task's own budget). */
  timeouts?: Partial<Record<keyof typeof DEFAULTS.timeouts, number>>;
  /**
   * Take a JPEG of the final page (default true). A judge model reads it; an episode judged by a
   * programmatic verifier can skip it and save a large part of a short episode's browser time.
   */
  finalScreenshot?: boolean;
  /**
   * Keep the screenshot of every step's observation in EpisodeStep.screenshot (default false), also
   * when the policy reads none, so the trajectory can be inspected step by step.
   */
  stepScreenshots?: boolean;
}

export interface PolicyInput {
  instruction: string;
  observation: Observation;
  history: HistoryEntry[];
  /** 0-based index of the step being decided. */
  step: number;
  maxSteps: number;
}

export interface StepDecision<T> {
  reasoning: string;
  calls: ToolCallSpec[];
  trace?: T;
  raw?: string;
  /** The model output could not be parsed; calls are ignored. 3 in a row end with FORMAT_ERROR. */
  parseError?: boolean;
  /** Why it could not be parsed: the policy sees `error: <detail>` as the step's effect. */
  parseErrorDetail?: string;
  /** The model hit its token or context limit; ends with GENERATION_LIMIT. */
  generationLimit?: boolean;
  /** Termination reason for generationLimit (default `generation_limit`; `context_overflow` for a prompt past the context). */
  limitReason?: string;
}

export interface EpisodePolicy<T> {
  /** When false no screenshot is ever taken for the observation (a policy pays only for what it reads). */
  readonly needsScreenshot: boolean;
  decide(input: PolicyInput, signal: AbortSignal): Promise<StepDecision<T>>;
}

export interface EpisodeHooks<T> {
  /** Called after each step; awaited, so a slow hook slows the episode. Errors are logged and ignored. */
  onStep?(step: EpisodeStep<T>): void | Promise<void>;
}

export const EFFECT_KIND_NAMES = [
  'navigated',
  'new_tab',
  'tab_closed',
  'dom_changed',
  'value_set',
  'value_mismatch',
  'scrolled',
  'scroll_blocked',
  'no_effect',
  'dialog',
  'download',
  'blocked',
  'error',
  'done',
] as const;
export type EffectKindName = (typeof EFFECT_KIND_NAMES)[number];

export interface EffectRecord {
  kind: EffectKindName;
  /** One short line for the model, e.g. `navigated to /shop/p/blue-mug`. */
  line: string;
  evidence: Record<string, string>;
}

export interface ToolCallResult {
  call: ToolCallSpec;
  ok: boolean;
  /** Stable code when !ok (element_not_found, timeout, bad_args, ...), '' otherwise. */
  errorCode: string;
  effects: EffectRecord[];
  latencyMs: number;
  /** Viewport points [x, y] the call acted on (click, hover, write target, scroll; drag: start, end). */
  points?: Array<[number, number]>;
}

export interface StepTiming {
  policyMs: number;
  actionMs: number;
  settleMs: number;
  observeMs: number;
}

export interface EpisodeStep<T> {
  index: number;
  reasoning: string;
  results: ToolCallResult[];
  urlBefore: string;
  urlAfter: string;
  trace: T | undefined;
  raw: string;
  parseError: boolean;
  /** The effect line shown for an unparseable output (set when parseError). */
  parseErrorLine?: string;
  timing: StepTiming;
  /** JPEG of the page the policy saw at this step (when the policy reads screenshots or stepScreenshots is set). */
  screenshot?: Uint8Array;
}

export interface EpisodeTermination {
  cls: TerminationClassName;
  /** Reason code (@owrl/core TERMINATION_REASONS): done, max_steps, dns, http_5xx, bot_wall, task_timeout, browser_crash, ... */
  reason: TerminationReason;
  message: string;
}

export interface PageEval {
  evaluated: boolean;
  truthy: boolean;
  /** JSON of the value ('' when undefined or not evaluated). */
  valueJson: string;
  error: string;
}

/** A connection the fence refused during an episode. */
export interface BlockedConnection {
  /** The request's URL for plain http; `host:port` for a tunnel (https, ws, wss). */
  url: string;
  /** private_address or bad_target. */
  reason: string;
  /** The class of the refused address (loopback, private, link_local, cgnat, metadata, ...; '' when none). */
  range: string;
  /** What the fence saw, e.g. `rebind.test:80 is a loopback address (rebind.test resolves to 127.0.0.1)`. */
  detail: string;
}

export interface EpisodeDiagnostics {
  latencyTotal: StepTiming;
  /** Process-tree PSS of the episode's Chromium (RSS where PSS is unreadable), bytes. */
  chromiumPssBytes: number;
  /** Process-tree RSS of the episode's Chromium, bytes (counts shared pages once per process). */
  chromiumRssBytes: number;
  browserUptimeS: number;
  browserEpisodes: number;
  initAttempts: number;
  /** Status of the last main-frame document response (0 when none). */
  httpStatus: number;
  finalUrl: string;
  errorName: string;
  errorMessage: string;
  errorStack: string;
  wallMs: number;
  /** Connections of the episode's pages, frames and workers the fence refused (the first 50). */
  blocked: BlockedConnection[];
  /** How many the fence refused in all. */
  blockedTotal: number;
}

export interface EpisodeResult<T> {
  steps: EpisodeStep<T>[];
  termination: EpisodeTermination;
  finalAnswer: string;
  calledDone: boolean;
  finalUrl: string;
  pageEval: PageEval;
  /** JPEG (quality 50) of the final page; absent when the page was unusable. */
  finalScreenshot?: Uint8Array;
  diagnostics: EpisodeDiagnostics;
}
