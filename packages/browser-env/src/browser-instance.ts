// One Chromium process serving many episodes: launch with the hardening switches behind the
// fence (its launch-level proxy is a fence listener of its own), find its pid through a marker
// switch, report its process-tree memory (PSS and RSS) and uptime, notice a crash, and close it so
// that no process of its tree survives (graceful close, then SIGKILL of tree and group).
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { chromium, type Browser } from 'playwright-core';
import { EgressFence, FENCE_ARGS } from './egress-fence.js';
import type { EgressProxy } from './egress-proxy.js';
import { BrowserEnvError, BrowserEnvErrorCode } from './errors.js';
import { listProcesses, processTree, treeMemory, type Logger, type TreeMemory } from '@owrl/core';
import type { ResolvedOptions } from './options.js';
import { findByMarker, killAll, waitGone } from './browser-processes.js';

/** Switches of docs/design.md §5, plus instant scrolling so scroll effects are measurable at once. */
export const BASE_ARGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-smooth-scrolling',
] as const;

/**
 * The features Playwright disables with its own --disable-features switch (playwright-core,
 * chromiumSwitches.ts). Chromium keeps only the last --disable-features switch, so ours repeats
 * them; a test checks that the switch Chromium ends up with still holds every one Playwright passes.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
] as const;

/**
 * Browser UI no episode sees. Every browser context is a window of its own, and Chromium 15x
 * loads each window's omnibox popups as WebUI pages (chrome://omnibox-popup.top-chrome/ and its
 * AI-mode variant), each importing a few hundred JS modules in a renderer process of its own:
 * per episode more renderer CPU than the pages the agent visits (Chromium tracing of episodes on
 * the bundled sites: renderer main-thread time down by two thirds without them, browser by a
 * quarter). A headless page never opens the omnibox, so nothing an episode does or records changes.
 */
export const DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'] as const;

/** Launch switches for this user: BASE_ARGS and the disabled features, plus --no-sandbox when running as root. */
export function chromiumArgs(extra: readonly string[] = []): string[] {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return [...(isRoot ? ['--no-sandbox'] : []), ...BASE_ARGS, `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...DISABLED_FEATURES].join(',')}`, ...extra];
}

/**
 * How long a reading of the tree's memory is reused. PSS comes from /proc/<pid>/smaps_rollup,
 * which the kernel computes by walking every mapping of the process: ~1.5 ms of system CPU per
 * Chromium process, ~20 ms for a browser with a few tabs, and as long again of blocked event loop
 * when the machine is busy. Read at the start and the end of every episode (the recycle check and
 * the diagnostics), a one-second cache made it the largest single cost of the actor per step.
 */
const MEMORY_CACHE_MS = 5000;
const NO_MEMORY: TreeMemory = { pssBytes: 0, rssBytes: 0, processes: 0 };

export class BrowserInstance {
  readonly id: number;
  readonly browser: Browser;
  readonly pid: number | null;
  readonly startedAt: number;
  readonly userAgent: string;
  /** Episodes started on this browser. */
  episodes = 0;
  /** Episodes running on it now. */
  active = 0;
  /** No new episodes: a newer browser took over; closed when `active` drops to 0. */
  draining = false;
  /** Aborted when the browser disconnects (crash or close). */
  private readonly lost = new AbortController();
  private closing: Promise<void> | null = null;
  private memAt = 0;
  private memValue: TreeMemory = NO_MEMORY;
  private readonly log: Logger;
  /** The fence listener of the launch-level proxy: connections no episode's context opened. */
  private readonly proxy: EgressProxy;

  private constructor(id: number, browser: Browser, pid: number | null, proxy: EgressProxy, log: Logger) {
    this.id = id;
    this.browser = browser;
    this.pid = pid;
    this.proxy = proxy;
    this.startedAt = Date.now();
    this.log = log;
    // every running episode listens for the crash (and stops listening when it ends)
    setMaxListeners(0, this.lost.signal);
    const ver = browser.version().replace(/[^\d.]/g, '') || '120.0.0.0';
    this.userAgent = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${ver} Safari/537.36`;
    browser.on('disconnected', () => {
      if (!this.closing) log.warn({ browser: this.id, pid: this.pid }, 'chromium disconnected');
      this.lost.abort(new Error('browser disconnected'));
    });
  }

  /**
   * Launches Chromium behind `fence`: its launch-level proxy is a listener of its own, which every
   * context without a proxy of its own uses (an episode's context gets its own, see episode-runner.ts).
   * @throws BrowserEnvError(BROWSER_ENV_LAUNCH_FAILED) when Chromium does not start.
   */
  static async launch(id: number, o: ResolvedOptions, fence: EgressFence): Promise<BrowserInstance> {
    const marker = `--owrl-browser=${process.pid}-${id}-${randomBytes(4).toString('hex')}`;
    const args = chromiumArgs([...o.extraArgs, ...FENCE_ARGS, marker]);
    const proxy = await fence.open();
    let browser: Browser;
    try {
      browser = await chromium.launch({
        executablePath: o.executablePath,
        headless: o.headless,
        args,
        proxy: EgressFence.proxySettings(proxy),
        timeout: 60_000,
        // the owner of the pool decides about shutdown; close() kills the tree
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (e) {
      await proxy.close();
      throw new BrowserEnvError(BrowserEnvErrorCode.LaunchFailed, `cannot launch Chromium at ${o.executablePath}: ${(e as Error).message}`, { cause: e });
    }
    const pid = findByMarker(marker);
    o.logger.info({ browser: id, pid, version: browser.version(), proxy: proxy.url }, 'chromium launched');
    return new BrowserInstance(id, browser, pid, proxy, o.logger);
  }

  /** True once close() was called: a disconnect after it is not a crash. */
  get closedByUs(): boolean {
    return this.closing !== null;
  }

  get dead(): boolean {
    return this.lost.signal.aborted;
  }

  /** Aborted when this browser disconnects. */
  get lostSignal(): AbortSignal {
    return this.lost.signal;
  }

  uptimeS(): number {
    return (Date.now() - this.startedAt) / 1000;
  }

  /** Process-tree memory (PSS and RSS), cached for MEMORY_CACHE_MS unless `fresh`. */
  memory(fresh = false): TreeMemory {
    if (this.pid === null || this.dead) return NO_MEMORY;
    const now = Date.now();
    if (fresh || now - this.memAt > MEMORY_CACHE_MS) {
      this.memValue = treeMemory(this.pid);
      this.memAt = now;
    }
    return this.memValue;
  }

  /** Process-tree RSS in bytes (see memory()). */
  rssBytes(fresh = false): number {
    return this.memory(fresh).rssBytes;
  }

  /** Process-tree PSS in bytes (see memory()). */
  pssBytes(fresh = false): number {
    return this.memory(fresh).pssBytes;
  }

  /** Closes Chromium within `timeoutMs`, then SIGKILLs whatever of its tree is left. Idempotent. */
  close(timeoutMs: number): Promise<void> {
    this.closing ??= this.doClose(timeoutMs);
    return this.closing;
  }

  private async doClose(timeoutMs: number): Promise<void> {
    const tree = this.pid === null ? [] : processTree(this.pid);
    const wait = <V>(p: Promise<V>, ms: number, fallback: V): Promise<V> => {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([p, new Promise<V>((r) => (timer = setTimeout(() => r(fallback), ms)))]).finally(() => clearTimeout(timer));
    };
    const graceful = this.browser.close().then(
      () => true,
      () => false,
    );
    const ok = await wait(graceful, timeoutMs, false);
    if (!ok) this.log.warn({ browser: this.id, pid: this.pid }, 'chromium did not close in time, killing');
    // Anything of the tree still alive (a hung renderer, a zygote) is killed, with the group.
    const now = new Map(listProcesses().map((p) => [p.pid, p]));
    const left = tree.filter((p) => {
      const q = now.get(p.pid);
      return q !== undefined && q.comm === p.comm && q.state !== 'Z';
    });
    // The browser leads its process group (Playwright spawns it detached): killing the group also
    // reaches orphans of a crashed browser. Only while the group has members — then its id cannot
    // belong to anyone else — so a reused pid is never hit.
    const pid = this.pid;
    const groupLeft = pid !== null && [...now.values()].some((p) => p.pgid === pid && p.state !== 'Z');
    killAll(
      left.map((p) => p.pid),
      groupLeft ? pid : undefined,
    );
    // on a busy machine a killed process can still be running when kill() returns: close() ends
    // when none of the tree does
    await waitGone(left.map((p) => p.pid), 2000);
    if (!ok) await wait(graceful, 5000, false);
    await this.proxy.close();
    this.log.info({ browser: this.id, episodes: this.episodes, uptimeS: Math.round(this.uptimeS()), killed: left.length, group: groupLeft }, 'chromium closed');
  }
}
