// Options of the browser pool, their defaults (DESIGN §1/§5) and validation with messages that
// name the option and the value.
import { DEFAULTS } from '@owrl/core';
import { BrowserEnvError, BrowserEnvErrorCode } from './errors.js';
import { silentLogger, type Logger } from './logger.js';
import type { HostLookup } from './guard.js';

export type EnvTimeouts = { -readonly [K in keyof typeof DEFAULTS.timeouts]: number };

export interface BrowserEnvOptions {
  /** Chromium binary; default /usr/bin/chromium (the actor passes OWRL_CHROMIUM). */
  executablePath?: string;
  /** Default true. */
  headless?: boolean;
  /** CSS pixels; default 1280x800. */
  viewport?: { width: number; height: number };
  /** Recycle Chromium after this many episodes (default 200). */
  maxEpisodesPerBrowser?: number;
  /** Recycle Chromium when its process-tree PSS (RSS where PSS is unreadable) exceeds this (default 2 GiB). */
  memoryCeilingBytes?: number;
  /** Loopback/private hosts the pages may reach, as `host:port` or `host` (any port). */
  allowHosts?: string[];
  timeouts?: Partial<EnvTimeouts>;
  /** K latest screenshots kept in the observation; 0 = none taken (default 1). */
  screenshots?: number;
  /** What a captcha or interstitial seen mid-episode does: end with ENV_ERROR `bot_wall` (default) or only show a `blocked` effect. */
  botWall?: 'end' | 'effect';
  /** Upper bound of the settle wait after a step's calls, ms (default 2000). */
  settleMaxMs?: number;
  /** Base delay of the init retry backoff, ms, doubled per attempt (default 500). */
  initBackoffMs?: number;
  /** Extra Chromium command-line switches. */
  extraArgs?: string[];
  /** How the request guard resolves host names (default the system resolver); tests inject names. */
  dnsLookup?: HostLookup;
  logger?: Logger;
}

export interface ResolvedOptions {
  executablePath: string;
  headless: boolean;
  viewport: { width: number; height: number };
  maxEpisodesPerBrowser: number;
  memoryCeilingBytes: number;
  allowHosts: string[];
  timeouts: EnvTimeouts;
  screenshots: number;
  botWall: 'end' | 'effect';
  settleMaxMs: number;
  initBackoffMs: number;
  extraArgs: string[];
  dnsLookup: HostLookup | undefined;
  logger: Logger;
}

function bad(field: string, value: unknown, want: string): never {
  throw new BrowserEnvError(BrowserEnvErrorCode.BAD_OPTION, `browser-env option ${field}=${JSON.stringify(value)} must be ${want}`);
}

function int(field: string, v: number | undefined, def: number, min: number): number {
  if (v === undefined) return def;
  if (!Number.isInteger(v) || v < min) bad(field, v, `an integer >= ${min}`);
  return v;
}

/** Applies defaults and validates; throws BrowserEnvError(BROWSER_ENV_BAD_OPTION) naming the field. */
export function resolveOptions(opts: BrowserEnvOptions): ResolvedOptions {
  const viewport = opts.viewport ?? { width: 1280, height: 800 };
  if (!Number.isInteger(viewport.width) || viewport.width < 100) bad('viewport.width', viewport.width, 'an integer >= 100');
  if (!Number.isInteger(viewport.height) || viewport.height < 100) bad('viewport.height', viewport.height, 'an integer >= 100');
  const timeouts: EnvTimeouts = { ...DEFAULTS.timeouts };
  for (const [k, v] of Object.entries(opts.timeouts ?? {})) {
    if (!(k in timeouts)) bad(`timeouts.${k}`, v, `one of ${Object.keys(timeouts).join(', ')}`);
    if (v === undefined) continue;
    const min = k === 'initRetries' ? 0 : 1;
    if (!Number.isInteger(v) || v < min) bad(`timeouts.${k}`, v, `an integer >= ${min}`);
    timeouts[k as keyof EnvTimeouts] = v;
  }
  const allowHosts = (opts.allowHosts ?? []).map((h) => {
    if (typeof h !== 'string' || h.trim() === '' || /[/\s]/.test(h)) bad('allowHosts[]', h, 'host or host:port');
    return h.trim().toLowerCase();
  });
  const botWall = opts.botWall ?? 'end';
  if (botWall !== 'end' && botWall !== 'effect') bad('botWall', botWall, "'end' or 'effect'");
  return {
    executablePath: opts.executablePath ?? '/usr/bin/chromium',
    headless: opts.headless ?? true,
    viewport: { width: viewport.width, height: viewport.height },
    maxEpisodesPerBrowser: int('maxEpisodesPerBrowser', opts.maxEpisodesPerBrowser, 200, 1),
    memoryCeilingBytes: int('memoryCeilingBytes', opts.memoryCeilingBytes, 2 * 1024 ** 3, 1),
    allowHosts,
    timeouts,
    screenshots: int('screenshots', opts.screenshots, DEFAULTS.screenshotsInContext, 0),
    botWall,
    settleMaxMs: int('settleMaxMs', opts.settleMaxMs, 2000, 0),
    initBackoffMs: int('initBackoffMs', opts.initBackoffMs, 500, 0),
    extraArgs: [...(opts.extraArgs ?? [])],
    dnsLookup: opts.dnsLookup,
    logger: opts.logger ?? silentLogger,
  };
}
