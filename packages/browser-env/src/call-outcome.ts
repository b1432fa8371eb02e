// What a failed tool call means for the episode: most failures are effects the agent sees and
// learns from; a bot wall (when walls end episodes), a step over its time, or a network failure on
// a site the episode had already reached ends it with ENV_ERROR. Pure logic.
import { isTerminationReason } from '@owrl/core';
import { EpisodeEnd } from './errors.js';
import type { ResolvedOptions } from './options.js';
import type { ToolCallResult } from './types.js';

/**
 * Failure codes of a call that are effects the agent sees; any other code (a network failure of a
 * navigation) ends the episode with ENV_ERROR when it hit a site the episode had reached.
 */
const NON_FATAL_CODES = new Set([
  'blocked',
  'aborted',
  'bot_wall',
  'http_5xx',
  'timeout',
  'bad_args',
  'unknown_tool',
  'element_not_found',
  'out_of_viewport',
  'not_editable',
  'option_not_found',
  'no_history',
  'last_tab',
  'bad_url',
  'action_failed',
]);

/** host:port of an http(s) URL, null for anything else. */
export function httpHost(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host : null;
  } catch {
    return null;
  }
}

/**
 * Whether a failed navigation hit a site the episode had already reached (that site failed: the
 * episode ends), rather than a host the agent tried for the first time (a typo, a dead external
 * link: the agent sees the error and goes on, so a policy cannot escape training by them).
 */
function failedOnSeenSite(r: ToolCallResult, seen: ReadonlySet<string>): boolean {
  const url = r.effects.find((e) => e.evidence['url'])?.evidence['url'];
  const host = url ? httpHost(url) : null;
  return host === null || seen.has(host);
}

export interface CallContext {
  step: number;
  stepMs: number;
  botWall: ResolvedOptions['botWall'];
  /** Hosts the episode's tabs have shown. */
  sitesSeen: ReadonlySet<string>;
}

/** The end of the episode a failed call means, or null when the agent just sees the failure. */
export function endOfFailedCall(r: ToolCallResult, c: CallContext): EpisodeEnd | null {
  if (r.ok) return null;
  const lines = r.effects.map((e) => e.line).join('; ');
  if (r.errorCode === 'bot_wall' && c.botWall === 'end') return new EpisodeEnd('ENV_ERROR', 'bot_wall', lines);
  if (r.errorCode === 'timeout' && r.effects[0]?.evidence['limit'] === 'step') return new EpisodeEnd('ENV_ERROR', 'step_timeout', `step ${c.step} exceeded ${c.stepMs} ms: ${lines}`);
  if (!NON_FATAL_CODES.has(r.errorCode) && failedOnSeenSite(r, c.sitesSeen)) return new EpisodeEnd('ENV_ERROR', isTerminationReason(r.errorCode) ? r.errorCode : 'navigation_failed', lines);
  return null;
}
