// Checking an episode spec before it runs, and the timeouts it runs under (the pool's, overridden
// by the spec's own).
import { DEFAULTS } from '@owrl/core';
import { BrowserEnvError, BrowserEnvErrorCode } from './errors.js';
import { HISTORY_MODES } from './history.js';
import type { EnvTimeouts } from './options.js';
import type { EpisodeSpec } from './types.js';

/** @throws BrowserEnvError(BROWSER_ENV_BAD_SPEC) naming the field. */
export function validateSpec(spec: EpisodeSpec): void {
  const bad = (field: string, v: unknown, want: string): never => {
    throw new BrowserEnvError(BrowserEnvErrorCode.BadSpec, `episode spec ${field}=${JSON.stringify(v)} must be ${want}`);
  };
  if (typeof spec.startUrl !== 'string') bad('startUrl', spec.startUrl, 'a string');
  if (typeof spec.instruction !== 'string') bad('instruction', spec.instruction, 'a string');
  if (!Number.isInteger(spec.maxSteps) || spec.maxSteps < 1) bad('maxSteps', spec.maxSteps, 'an integer >= 1');
  if (spec.historyMode !== undefined && !HISTORY_MODES.includes(spec.historyMode)) bad('historyMode', spec.historyMode, HISTORY_MODES.join(' | '));
  if (spec.pageExpression !== undefined && typeof spec.pageExpression !== 'string') bad('pageExpression', spec.pageExpression, 'a string');
  for (const [k, v] of Object.entries(spec.timeouts ?? {})) {
    if (!(k in DEFAULTS.timeouts)) bad(`timeouts.${k}`, v, `one of ${Object.keys(DEFAULTS.timeouts).join(', ')}`);
    const min = k === 'initRetries' ? 0 : 1;
    if (v !== undefined && (!Number.isInteger(v) || v < min)) bad(`timeouts.${k}`, v, `an integer >= ${min}`);
  }
}

/** The pool's timeouts with the spec's overrides applied. */
export function episodeTimeouts(pool: EnvTimeouts, spec: EpisodeSpec): EnvTimeouts {
  const t: EnvTimeouts = { ...pool };
  for (const [k, v] of Object.entries(spec.timeouts ?? {})) if (v !== undefined) t[k as keyof EnvTimeouts] = v;
  return t;
}
