// The pool of the actor: one Chromium at a time serving many concurrent episodes, each in a fresh
// context behind the pool's egress fence (egress-fence.ts). Recycles Chromium after N episodes or
// above a memory (PSS) ceiling (the old one drains and closes when its episodes end), replaces a
// crashed one, and closes everything on close().
import { describeError } from '@owrl/core';
import { BrowserInstance } from './browser-instance.js';
import { BrowserEnvError, BrowserEnvErrorCode } from './errors.js';
import { runEpisodeOn } from './episode-runner.js';
import { validateSpec } from './episode-spec.js';
import { EgressFence } from './egress-fence.js';
import { resolveOptions, type BrowserEnvOptions, type ResolvedOptions } from './options.js';
import type { EpisodeHooks, EpisodePolicy, EpisodeResult, EpisodeSpec } from './types.js';

export interface PoolStats {
  /** Episodes started on the current Chromium. */
  browserEpisodes: number;
  browserUptimeS: number;
  /** Episodes running now, on all browsers. */
  active: number;
  /** Process-tree PSS of all live Chromium processes (RSS where PSS is unreadable), bytes. */
  chromiumPssBytes: number;
  /** Process-tree RSS of all live Chromium processes, bytes (counts shared pages once per process). */
  chromiumRssBytes: number;
  /** Chromium processes launched by this pool so far. */
  launches: number;
  /** Pid of the current Chromium browser process (null when none runs or it is unknown). */
  browserPid: number | null;
}

export class BrowserPool {
  private readonly o: ResolvedOptions;
  private readonly fence: EgressFence;
  private current: BrowserInstance | null = null;
  private launching: Promise<BrowserInstance> | null = null;
  private readonly live = new Set<BrowserInstance>();
  private readonly closing = new Set<Promise<void>>();
  private nextId = 1;
  private closed = false;

  /** @throws BrowserEnvError(BROWSER_ENV_BAD_OPTION) naming a bad option. */
  constructor(opts: BrowserEnvOptions = {}) {
    this.o = resolveOptions(opts);
    this.fence = new EgressFence({ allowHosts: this.o.allowHosts, lookup: this.o.dnsLookup, dnsCacheMs: this.o.dnsCacheMs, dial: this.o.dial, logger: this.o.logger, meter: this.o.meter });
  }

  get options(): Readonly<ResolvedOptions> {
    return this.o;
  }

  /** Launches Chromium now (otherwise the first episode does). @throws BrowserEnvError(LAUNCH_FAILED). */
  async start(): Promise<void> {
    if (this.closed) throw new BrowserEnvError(BrowserEnvErrorCode.PoolClosed, 'the browser pool is closed');
    await this.browserForEpisode(false);
  }

  /**
   * Runs one episode in a fresh context. Site and browser failures come back as the result's
   * termination (INIT_ERROR, ENV_ERROR, SANDBOX_ERROR ...), never as a rejection.
   * @throws BrowserEnvError BAD_SPEC for an invalid spec, POOL_CLOSED after close().
   */
  async runEpisode<T>(spec: EpisodeSpec, policy: EpisodePolicy<T>, hooks?: EpisodeHooks<T>): Promise<EpisodeResult<T>> {
    if (this.closed) throw new BrowserEnvError(BrowserEnvErrorCode.PoolClosed, 'the browser pool is closed');
    validateSpec(spec);
    let inst: BrowserInstance;
    try {
      inst = await this.browserForEpisode(true);
    } catch (e) {
      return launchFailure<T>(e);
    }
    try {
      return await runEpisodeOn({ inst, o: this.o, fence: this.fence, onCloseTimeout: () => this.retire(inst) }, spec, policy, hooks);
    } finally {
      inst.active--;
      this.afterEpisode(inst);
    }
  }

  stats(): PoolStats {
    const cur = this.current;
    let active = 0;
    let rss = 0;
    let pss = 0;
    for (const b of this.live) {
      active += b.active;
      const m = b.memory();
      rss += m.rssBytes;
      pss += m.pssBytes;
    }
    return {
      browserEpisodes: cur?.episodes ?? 0,
      browserUptimeS: cur ? cur.uptimeS() : 0,
      active,
      chromiumPssBytes: pss,
      chromiumRssBytes: rss,
      launches: this.nextId - 1,
      browserPid: cur?.pid ?? null,
    };
  }

  /** Closes all contexts and Chromium processes (running episodes end with SANDBOX_ERROR). Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.launching) await this.launching.catch(() => {});
    this.current = null;
    for (const b of [...this.live]) this.closeBrowser(b);
    while (this.closing.size > 0) await Promise.all([...this.closing]);
  }

  private needsRecycle(b: BrowserInstance): boolean {
    if (b.episodes >= this.o.maxEpisodesPerBrowser) return true;
    return b.pssBytes() > this.o.memoryCeilingBytes;
  }

  /**
   * The browser for the next episode, launching one when needed. With `claim` the episode is
   * counted on it in the same synchronous step as the check, so that concurrent callers never
   * push a browser past maxEpisodesPerBrowser.
   */
  private async browserForEpisode(claim: boolean): Promise<BrowserInstance> {
    const take = (b: BrowserInstance): BrowserInstance => {
      if (claim) {
        b.episodes++;
        b.active++;
      }
      return b;
    };
    for (;;) {
      const cur = this.current;
      if (cur && !cur.dead && !cur.draining && !this.needsRecycle(cur)) return take(cur);
      if (cur) this.retire(cur);
      if (!this.launching) {
        const id = this.nextId++;
        this.launching = BrowserInstance.launch(id, this.o, this.fence).finally(() => {
          this.launching = null;
        });
        const inst = await this.launching;
        if (this.closed) {
          this.live.add(inst);
          this.closeBrowser(inst);
          throw new BrowserEnvError(BrowserEnvErrorCode.PoolClosed, 'the browser pool is closed');
        }
        this.adopt(inst);
        return take(inst);
      }
      await this.launching;
    }
  }

  private adopt(inst: BrowserInstance): void {
    this.live.add(inst);
    this.current = inst;
    inst.lostSignal.addEventListener(
      'abort',
      () => {
        if (this.current === inst) this.current = null;
        inst.draining = true;
        if (inst.active === 0) this.closeBrowser(inst);
      },
      { once: true },
    );
  }

  /** No new episodes on `b`; it closes once its running episodes end. */
  private retire(b: BrowserInstance): void {
    if (this.current === b) this.current = null;
    b.draining = true;
    if (b.active === 0) this.closeBrowser(b);
  }

  private afterEpisode(b: BrowserInstance): void {
    if (b === this.current && !b.dead && this.needsRecycle(b)) this.retire(b);
    if ((b.draining || b.dead || this.closed) && b.active === 0) this.closeBrowser(b);
  }

  private closeBrowser(b: BrowserInstance): void {
    if (!this.live.has(b)) return;
    this.live.delete(b);
    if (this.current === b) this.current = null;
    const p = b.close(this.o.timeouts.closeMs).catch((e: unknown) => this.o.logger.error({ err: describeError(e), browser: b.id }, 'closing chromium failed'));
    this.closing.add(p);
    void p.finally(() => this.closing.delete(p));
  }
}

function launchFailure<T>(e: unknown): EpisodeResult<T> {
  const d = describeError(e);
  return {
    steps: [],
    termination: { cls: 'SANDBOX_ERROR', reason: 'browser_launch', message: d.message },
    finalAnswer: '',
    calledDone: false,
    finalUrl: '',
    pageEval: { evaluated: false, truthy: false, valueJson: '', error: '' },
    diagnostics: {
      latencyTotal: { policyMs: 0, actionMs: 0, settleMs: 0, observeMs: 0 },
      chromiumPssBytes: 0,
      chromiumRssBytes: 0,
      browserUptimeS: 0,
      browserEpisodes: 0,
      initAttempts: 0,
      httpStatus: 0,
      finalUrl: '',
      errorName: d.name,
      errorMessage: d.message,
      errorStack: d.stack,
      wallMs: 0,
      blocked: [],
      blockedTotal: 0,
    },
  };
}
