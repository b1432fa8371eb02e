// Errors of the browser environment: a stable `code` per failure, `cause` chained. Episode
// outcomes are not errors (they are EpisodeResult.termination); these are thrown for bad input,
// misuse of the pool, and inside the episode runner to carry a failed tool call or a termination.
import { OwrlError, type NetReason, type TerminationClassName, type TerminationReason } from '@owrl/core';

export const BrowserEnvErrorCode = {
  BadOption: 'BROWSER_ENV_BAD_OPTION',
  BadSpec: 'BROWSER_ENV_BAD_SPEC',
  PoolClosed: 'BROWSER_ENV_POOL_CLOSED',
  LaunchFailed: 'BROWSER_ENV_LAUNCH_FAILED',
  /** A fence listener could not start (no loopback port to listen on). */
  FenceFailed: 'BROWSER_ENV_FENCE_FAILED',
} as const;
export type BrowserEnvErrorCode = (typeof BrowserEnvErrorCode)[keyof typeof BrowserEnvErrorCode];

export class BrowserEnvError extends OwrlError<BrowserEnvErrorCode> {
  override readonly name = 'BrowserEnvError';
}

export function isBrowserEnvError(e: unknown, code?: BrowserEnvErrorCode): e is BrowserEnvError {
  return e instanceof BrowserEnvError && (code === undefined || e.code === code);
}

/**
 * Codes of a failed tool call, written as the agent sees them (ToolCallResult.errorCode), so they
 * stay lower-case words; a navigation that fails carries its NetReason (dns, tls, ...) instead.
 */
export const ToolCallErrorCode = {
  /** The arguments break the tool's schema (type, range, unknown key, tab index). */
  BadArgs: 'bad_args',
  UnknownTool: 'unknown_tool',
  ElementNotFound: 'element_not_found',
  OutOfViewport: 'out_of_viewport',
  /** write with no text field focused. */
  NotEditable: 'not_editable',
  /** write into a focused list that has no matching option. */
  OptionNotFound: 'option_not_found',
  NoHistory: 'no_history',
  LastTab: 'last_tab',
  /** goto_url given a URL that is not http(s). */
  BadUrl: 'bad_url',
  /** goto_url to a private address. */
  Blocked: 'blocked',
  /** The call did not finish within its time (evidence `limit`: tool_call or step). */
  Timeout: 'timeout',
  /** Playwright failed the action for another reason; the message is its own. */
  ActionFailed: 'action_failed',
} as const;
export type ToolCallErrorCode = (typeof ToolCallErrorCode)[keyof typeof ToolCallErrorCode] | NetReason;

/** A tool call that failed; `code` is the ToolCallResult.errorCode the agent sees (e.g. element_not_found). */
export class ToolCallError extends OwrlError<ToolCallErrorCode> {
  override readonly name = 'ToolCallError';
  readonly evidence: Record<string, string>;
  constructor(code: ToolCallErrorCode, message: string, evidence: Record<string, string> = {}, options?: { cause?: unknown }) {
    super(code, message, options);
    this.evidence = evidence;
  }
}

export function isToolCallError(e: unknown, code?: ToolCallErrorCode): e is ToolCallError {
  return e instanceof ToolCallError && (code === undefined || e.code === code);
}

/** Thrown inside an episode to end it with a termination class and reason code. */
export class EpisodeEnd extends OwrlError<TerminationReason> {
  override readonly name = 'EpisodeEnd';
  readonly cls: TerminationClassName;
  constructor(cls: TerminationClassName, reason: TerminationReason, message: string, options?: { cause?: unknown }) {
    super(reason, message, options);
    this.cls = cls;
  }
}

export function isEpisodeEnd(e: unknown, reason?: TerminationReason): e is EpisodeEnd {
  return e instanceof EpisodeEnd && (reason === undefined || e.code === reason);
}
