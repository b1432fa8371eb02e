// Errors of the browser environment: a stable `code` per failure, `cause` chained. Episode
// outcomes are not errors (they are EpisodeResult.termination); these are thrown for bad input,
// misuse of the pool, and inside the episode runner to carry a failed tool call or a termination.
import { OwrlError, type TerminationClassName, type TerminationReason } from '@owrl/core';

export const BrowserEnvErrorCode = {
  BAD_OPTION: 'BROWSER_ENV_BAD_OPTION',
  BAD_SPEC: 'BROWSER_ENV_BAD_SPEC',
  POOL_CLOSED: 'BROWSER_ENV_POOL_CLOSED',
  LAUNCH_FAILED: 'BROWSER_ENV_LAUNCH_FAILED',
  /** A fence listener could not start (no loopback port to listen on). */
  FENCE_FAILED: 'BROWSER_ENV_FENCE_FAILED',
} as const;
export type BrowserEnvErrorCodeName = (typeof BrowserEnvErrorCode)[keyof typeof BrowserEnvErrorCode];

export class BrowserEnvError extends OwrlError {
  override name = 'BrowserEnvError';
  constructor(code: BrowserEnvErrorCodeName, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** A tool call that failed; `code` is the ToolCallResult.errorCode the agent sees (e.g. element_not_found). */
export class ToolCallError extends OwrlError {
  override name = 'ToolCallError';
  readonly evidence: Record<string, string>;
  constructor(code: string, message: string, evidence: Record<string, string> = {}, options?: { cause?: unknown }) {
    super(code, message, options);
    this.evidence = evidence;
  }
}

/** Thrown inside an episode to end it with a termination class and reason code. */
export class EpisodeEnd extends OwrlError<TerminationReason> {
  override name = 'EpisodeEnd';
  readonly cls: TerminationClassName;
  constructor(cls: TerminationClassName, reason: TerminationReason, message: string, options?: { cause?: unknown }) {
    super(reason, message, options);
    this.cls = cls;
  }
}
