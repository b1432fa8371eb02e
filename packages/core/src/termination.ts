// Termination classes (DESIGN §5) and the reason codes an episode ends with, defined once. The
// wire carries the reason as a readable string (`Termination.reason`); this module is its single
// source of truth: browser-env and the actor produce these codes, the judge excludes by them, the
// learner counts host failures by their `fault`, and the reports group by it. Pure.

export const TERMINATION_CLASSES = [
  'COMPLETED',
  'STEP_BUDGET_EXHAUSTED',
  'GENERATION_LIMIT',
  'FORMAT_ERROR',
  'ENV_ERROR',
  'SANDBOX_ERROR',
  'INIT_ERROR',
] as const;
export type TerminationClassName = (typeof TERMINATION_CLASSES)[number];

/** Classes whose trajectories are scored and trained on (reward 0 unless COMPLETED and judged a success). */
export const TRAINABLE_CLASSES: ReadonlySet<TerminationClassName> = new Set(['COMPLETED', 'STEP_BUDGET_EXHAUSTED', 'GENERATION_LIMIT', 'FORMAT_ERROR']);

/** Trainable classes the format check scores 0 without asking a verifier. */
export const FORMAT_ZERO_CLASSES: ReadonlySet<TerminationClassName> = new Set(['FORMAT_ERROR', 'GENERATION_LIMIT']);

/** Infrastructure outcomes: excluded from training and re-dispatched (bounded attempts). */
export function isInfrastructure(c: TerminationClassName): boolean {
  return !TRAINABLE_CLASSES.has(c);
}

/** Infrastructure classes, in declaration order. */
export const INFRASTRUCTURE_CLASSES: ReadonlySet<TerminationClassName> = new Set(TERMINATION_CLASSES.filter(isInfrastructure));

/**
 * Who an outcome is attributed to:
 * - `policy`: the agent's own doing (trainable outcomes);
 * - `site`: the site refused, failed or walled (counts against its host for the blacklist);
 * - `uncertain`: the site, the network or a slow policy (counts against the host only at init,
 *   where no policy has acted yet);
 * - `task`: the task's URL is malformed or not allowed (never the site's fault);
 * - `skip`: the rollout was not run (its host is blacklisted);
 * - `ours`: our side (browser, sandbox, policy server, actor).
 */
export type ReasonFault = 'policy' | 'site' | 'uncertain' | 'task' | 'skip' | 'ours';

export interface ReasonInfo {
  /** Classes the reason is produced with. */
  readonly classes: readonly TerminationClassName[];
  readonly fault: ReasonFault;
  readonly description: string;
}

const INIT: readonly TerminationClassName[] = ['INIT_ERROR'];
const NET: readonly TerminationClassName[] = ['INIT_ERROR', 'ENV_ERROR'];
const ENV: readonly TerminationClassName[] = ['ENV_ERROR'];
const SANDBOX: readonly TerminationClassName[] = ['SANDBOX_ERROR'];

/** Every termination reason code, with its classes, fault and meaning. */
export const TERMINATION_REASONS = {
  // trainable
  done: { classes: ['COMPLETED'], fault: 'policy', description: 'the policy called done' },
  max_steps: { classes: ['STEP_BUDGET_EXHAUSTED'], fault: 'policy', description: 'no done within the step budget' },
  generation_limit: { classes: ['GENERATION_LIMIT'], fault: 'policy', description: 'the policy hit its generation limit (max tokens)' },
  context_overflow: { classes: ['GENERATION_LIMIT'], fault: 'policy', description: "the prompt outgrew the model's context window" },
  format_error: { classes: ['FORMAT_ERROR'], fault: 'policy', description: 'consecutive unparseable policy outputs' },
  // the task, a skip
  bad_url: { classes: INIT, fault: 'task', description: 'the start URL is malformed or has a scheme that is not allowed' },
  blocked_url: { classes: INIT, fault: 'task', description: 'the start URL resolves to a private address that is not allowed' },
  host_blacklisted: { classes: INIT, fault: 'skip', description: 'not run: the host is blacklisted (KV owrl_blacklist)' },
  policy_behind: { classes: INIT, fault: 'skip', description: 'not run, handed back: the actor could not load the policy version the request requires in time' },
  // the site
  bot_wall: { classes: NET, fault: 'site', description: 'a captcha or interstitial walled the agent' },
  dns: { classes: NET, fault: 'site', description: 'the host name does not resolve' },
  connection_refused: { classes: NET, fault: 'site', description: 'the server refused the connection' },
  connection_reset: { classes: NET, fault: 'site', description: 'the server reset the connection' },
  connection_closed: { classes: NET, fault: 'site', description: 'the server closed the connection or sent nothing' },
  http2_protocol_error: { classes: NET, fault: 'site', description: 'HTTP/2 protocol error' },
  quic_protocol_error: { classes: NET, fault: 'site', description: 'QUIC protocol error' },
  tls: { classes: NET, fault: 'site', description: 'TLS or certificate failure' },
  invalid_response: { classes: NET, fault: 'site', description: 'the server sent an invalid HTTP response' },
  too_many_redirects: { classes: NET, fault: 'site', description: 'redirect loop' },
  http_5xx: { classes: NET, fault: 'site', description: 'HTTP 5xx on the document' },
  http_403: { classes: NET, fault: 'site', description: 'HTTP 403 on the document' },
  rate_limited: { classes: NET, fault: 'site', description: 'HTTP 429 on the document' },
  // the site, the network or a slow policy
  http_4xx: { classes: NET, fault: 'uncertain', description: 'HTTP 4xx (not 403/429) on the document' },
  timeout: { classes: NET, fault: 'uncertain', description: 'a navigation timed out' },
  network: { classes: NET, fault: 'uncertain', description: 'the network is unreachable or changed' },
  blocked: { classes: NET, fault: 'uncertain', description: 'a request was blocked by the browser' },
  blocked_by_response: { classes: NET, fault: 'uncertain', description: 'the response blocked its own load (ORB, CORP)' },
  aborted: { classes: ['INIT_ERROR', 'ENV_ERROR', 'SANDBOX_ERROR'], fault: 'uncertain', description: 'the navigation was aborted (SANDBOX_ERROR: the episode was aborted by its caller)' },
  target_closed: { classes: NET, fault: 'uncertain', description: 'the page closed during navigation' },
  navigation_failed: { classes: NET, fault: 'uncertain', description: 'the start page never became usable (other network error)' },
  page_unresponsive: { classes: ENV, fault: 'uncertain', description: 'the page did not answer the observation in time' },
  page_crash: { classes: ENV, fault: 'uncertain', description: 'the page crashed' },
  step_timeout: { classes: ENV, fault: 'uncertain', description: 'a step exceeded its time budget' },
  task_timeout: { classes: ENV, fault: 'uncertain', description: 'the episode exceeded its time budget (the learner blames it on the policy or the site from the episode timings)' },
  // our side
  browser_launch: { classes: SANDBOX, fault: 'ours', description: 'Chromium could not be launched' },
  browser_crash: { classes: SANDBOX, fault: 'ours', description: 'Chromium disconnected' },
  browser_closed: { classes: SANDBOX, fault: 'ours', description: 'Chromium was closed by us (recycling, shutdown)' },
  context_create: { classes: SANDBOX, fault: 'ours', description: 'a browser context could not be created' },
  context_crash: { classes: SANDBOX, fault: 'ours', description: 'the browser context closed unexpectedly' },
  policy_timeout: { classes: SANDBOX, fault: 'ours', description: 'the policy did not decide in time' },
  policy_error: { classes: SANDBOX, fault: 'ours', description: 'the policy failed' },
  policy_unavailable: { classes: SANDBOX, fault: 'ours', description: 'the policy server did not answer after retries (5xx, timeouts, resets)' },
  policy_rejected: { classes: SANDBOX, fault: 'ours', description: 'the policy server refused the request (4xx other than a context overflow)' },
  engine_incompatible: { classes: SANDBOX, fault: 'ours', description: 'the serving engine returns no completion token ids, prompt token ids or log-probs (a release or flag is missing): the learner ends the run' },
  actor_error: { classes: SANDBOX, fault: 'ours', description: 'the actor could not run the episode' },
  trajectory_too_large: { classes: SANDBOX, fault: 'ours', description: 'the trajectory could not be trimmed under the bus payload limit' },
  internal_error: { classes: SANDBOX, fault: 'ours', description: 'an unexpected error in the environment' },
} as const satisfies Record<string, ReasonInfo>;

export type TerminationReason = keyof typeof TERMINATION_REASONS;

/** Network failure codes of a navigation (browser-env classifies Chromium errors into these). */
export const NET_REASONS = [
  'dns',
  'connection_refused',
  'connection_reset',
  'connection_closed',
  'timeout',
  'http2_protocol_error',
  'quic_protocol_error',
  'tls',
  'network',
  'too_many_redirects',
  'blocked',
  'blocked_by_response',
  'invalid_response',
  'bad_url',
  'aborted',
  'target_closed',
  'navigation_failed',
] as const satisfies readonly TerminationReason[];
export type NetReason = (typeof NET_REASONS)[number];

/** Reasons of an unusable HTTP status of a document. */
export const HTTP_STATUS_REASONS = ['http_5xx', 'rate_limited', 'http_403', 'http_4xx'] as const satisfies readonly TerminationReason[];
export type HttpStatusReason = (typeof HTTP_STATUS_REASONS)[number];

/**
 * INIT_ERROR reason of a rollout the actor did not run because its host is blacklisted (KV
 * owrl_blacklist); it never counts toward the blacklist again.
 */
export const REASON_HOST_BLACKLISTED = 'host_blacklisted' satisfies TerminationReason;

/** INIT_ERROR reason of a rollout an actor handed back unrun: the policy version it requires did not load in time. */
export const REASON_POLICY_BEHIND = 'policy_behind' satisfies TerminationReason;

export function isTerminationReason(s: string): s is TerminationReason {
  return Object.hasOwn(TERMINATION_REASONS, s);
}

/** What a reason received from the wire means: unknown codes (another producer's) are `uncertain`. */
export function reasonInfo(reason: string): ReasonInfo {
  return isTerminationReason(reason) ? TERMINATION_REASONS[reason] : { classes: NET, fault: 'uncertain', description: `unknown reason ${JSON.stringify(reason)}` };
}

/** Reasons whose fault is `fault`, in declaration order. */
export function reasonsWithFault(fault: ReasonFault): TerminationReason[] {
  return (Object.keys(TERMINATION_REASONS) as TerminationReason[]).filter((r) => TERMINATION_REASONS[r].fault === fault);
}

/** The key of an outcome in counters and exclusions: `init_error:dns` (class lowercased, `unspecified` for no reason). */
export function outcomeKey(cls: string, reason: string): string {
  return `${cls.toLowerCase()}:${reason === '' ? 'unspecified' : reason}`;
}

/** Parses an outcome key back into class and reason; null when `key` is not `class:reason` (e.g. `judge:...`). */
export function parseOutcomeKey(key: string): { cls: TerminationClassName; reason: string } | null {
  const i = key.indexOf(':');
  const cls = key.slice(0, i).toUpperCase();
  if (i < 1 || !(TERMINATION_CLASSES as readonly string[]).includes(cls)) return null;
  return { cls: cls as TerminationClassName, reason: key.slice(i + 1) };
}

/**
 * Whom an outcome is attributed to, class included: trainable classes are the policy's, a
 * SANDBOX_ERROR is ours whatever its reason, otherwise the reason's fault.
 */
export function outcomeFault(cls: string, reason: string): ReasonFault {
  if ((TRAINABLE_CLASSES as ReadonlySet<string>).has(cls)) return 'policy';
  if (cls === 'SANDBOX_ERROR') return 'ours';
  return reasonInfo(reason).fault;
}

/**
 * The cause an outcome counts against its host under, or null when it does not count: a bot wall
 * anywhere (`bot_wall`); every INIT_ERROR whose fault is the site's or uncertain
 * (`init_error:<reason>`, `unknown` for none); an ENV_ERROR whose fault is the site's
 * (`env_error:<reason>`). Skips, task faults, our side and trainable outcomes never count.
 */
export function hostFailureCause(cls: string, reason: string): string | null {
  if (cls !== 'INIT_ERROR' && cls !== 'ENV_ERROR') return null;
  if (reason === 'bot_wall') return 'bot_wall';
  const fault = outcomeFault(cls, reason);
  if (cls === 'INIT_ERROR') return fault === 'site' || fault === 'uncertain' ? `init_error:${reason || 'unknown'}` : null;
  return fault === 'site' ? `env_error:${reason}` : null;
}

/**
 * `code` of an error a policy throws when its backend cannot answer (server errors and timeouts
 * after its own retries, a refused request). The episode then ends SANDBOX_ERROR with the error's
 * `reason` (default {@link REASON_POLICY_UNAVAILABLE}): an infrastructure outcome, never a reward.
 */
export const POLICY_UNAVAILABLE_CODE = 'POLICY_UNAVAILABLE';
export const REASON_POLICY_UNAVAILABLE = 'policy_unavailable' satisfies TerminationReason;

/**
 * SANDBOX_ERROR reason of an episode whose serving engine cannot produce token-level traces: the
 * run cannot train on it, so the learner ends the run with the episode's message (never counted
 * and re-dispatched).
 */
export const REASON_ENGINE_INCOMPATIBLE = 'engine_incompatible' satisfies TerminationReason;

/** The termination reason of a policy-unavailable error (see POLICY_UNAVAILABLE_CODE), else undefined. */
export function policyUnavailableReason(e: unknown): TerminationReason | undefined {
  if (typeof e !== 'object' || e === null || (e as { code?: unknown }).code !== POLICY_UNAVAILABLE_CODE) return undefined;
  const reason = (e as { reason?: unknown }).reason;
  return typeof reason === 'string' && isTerminationReason(reason) && TERMINATION_REASONS[reason].fault === 'ours' ? reason : REASON_POLICY_UNAVAILABLE;
}
