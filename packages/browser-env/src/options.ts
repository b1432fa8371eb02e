// Options of the browser pool, their defaults (docs/design.md §1/§5) and validation with messages that
// name the option and the value.
import { DEFAULTS, noopMeter, type Meter, silentLogger, type Logger } from '@owrl/core';
import { ANSWER_CACHE_MS, type HostLookup } from './egress-check.js';
import type { Dial } from './egress-proxy.js';
import { BrowserEnvError, BrowserEnvErrorCode } from './errors.js';

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
  /**
   * Loopback/private hosts the pages may reach, as `host:port` or `host` (any port); every other
   * connection to a loopback, private, link-local, CGNAT, multicast or metadata address is refused
   * by the fence (docs/fence.md).
   */
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
  /**
   * Whether pages may register service workers (default 'block'). The fence holds either way
   * (their connections pass it like a page's); blocked, every request of a page is one the
   * episode sees, which its settle waits and navigation statuses rely on.
   */
  serviceWorkers?: 'allow' | 'block';
  /** How the fence resolves host names, once per connection (default the system resolver); tests inject answers. */
  dnsLookup?: HostLookup;
  /** How long the fence reuses a name's answer for further connections, ms (default 30000; 0: every connection asks). */
  dnsCacheMs?: number;
  /** How the fence connects to an address it approved (default net.connect); tests stand a local server in for a public address. */
  dial?: Dial;
  logger?: Logger;
  /** Where the fence counts its refusals (owrl_fence_refusals_total); default records nothing. */
  meter?: Meter;
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
  serviceWorkers: 'allow' | 'block';
  dnsLookup: HostLookup | undefined;
  dnsCacheMs: number;
  dial: Dial | undefined;
  logger: Logger;
  meter: Meter;
}

/** Switches that would move or open the fence (egress-fence.ts): extraArgs may not set them. */
const FENCE_SWITCHES = ['--proxy-server', '--proxy-bypass-list', '--proxy-pac-url', '--no-proxy-server', '--proxy-auto-detect', '--host-resolver-rules', '--force-webrtc-ip-handling-policy', '--webrtc-ip-handling-policy', '--enable-quic', '--origin-to-force-quic-on'];

function bad(field: string, value: unknown, want: string): never {
  throw new BrowserEnvError(BrowserEnvErrorCode.BadOption, `browser-env option ${field}=${JSON.stringify(value)} must be ${want}`);
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
  const serviceWorkers = opts.serviceWorkers ?? 'block';
  if (serviceWorkers !== 'allow' && serviceWorkers !== 'block') bad('serviceWorkers', serviceWorkers, "'allow' or 'block'");
  for (const a of opts.extraArgs ?? []) {
    if (typeof a !== 'string') bad('extraArgs[]', a, 'a string');
    const sw = FENCE_SWITCHES.find((f) => a === f || a.startsWith(`${f}=`));
    if (sw) bad('extraArgs[]', a, `free of ${sw}: the browser fence sets the proxy, host resolution, WebRTC and QUIC switches itself`);
  }
  if (opts.dnsLookup !== undefined && typeof opts.dnsLookup !== 'function') bad('dnsLookup', typeof opts.dnsLookup, 'a function');
  if (opts.dial !== undefined && typeof opts.dial !== 'function') bad('dial', typeof opts.dial, 'a function');
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
    serviceWorkers,
    dnsLookup: opts.dnsLookup,
    dnsCacheMs: int('dnsCacheMs', opts.dnsCacheMs, ANSWER_CACHE_MS, 0),
    dial: opts.dial,
    logger: opts.logger ?? silentLogger,
    meter: opts.meter ?? noopMeter,
  };
}
