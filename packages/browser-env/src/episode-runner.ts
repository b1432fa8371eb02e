// One episode on one browser (DESIGN §5), as named steps that read top to bottom:
//   open      a fresh context behind a fence listener of its own, the injected script, and its session
//   start     init navigation with retries, first settle and observation, the start-page wall check
//   step ×N   decide (the policy, bounded) → act (the tool calls) → settle → observe
//   classify  whatever stopped the episode becomes a termination class and reason
//   finalize  the verifier expression and screenshot of the final page, the context closed in time
// Never throws for site or browser failures: they become the termination of the returned result.
import { DEFAULTS, describeError, policyUnavailableReason, type HistoryEntry, type HistoryMode, type TerminationReason } from '@owrl/core';
import type { BrowserContext, Page } from 'playwright-core';
import { bounded, msSince, settleWithin } from './async-util.js';
import type { BrowserInstance } from './browser-instance.js';
import { endOfFailedCall, httpHost } from './call-outcome.js';
import { shortUrl } from './effects.js';
import { episodeTimeouts } from './episode-spec.js';
import { EpisodeEnd } from './errors.js';
import { EgressFence } from './egress-fence.js';
import type { EgressProxy, FenceEvent } from './egress-proxy.js';
import { EpisodeSession } from './episode-session.js';
import { historyEntry, parseErrorLine } from './history.js';
import { navigateInitially } from './init-navigation.js';
import { installInjectedScript } from './injected-script.js';
import { checkUrl } from './net-policy.js';
import { observe, type ObserveResult } from './observe.js';
import type { EnvTimeouts, ResolvedOptions } from './options.js';
import { executeCall, type ExecContext } from './tools.js';
import type { BlockedConnection, EpisodeHooks, EpisodePolicy, EpisodeResult, EpisodeSpec, EpisodeStep, EpisodeTermination, PageEval, StepDecision, StepTiming } from './types.js';

export interface RunnerDeps {
  inst: BrowserInstance;
  o: ResolvedOptions;
  fence: EgressFence;
  /** Called when a context did not close in time (the pool then recycles the browser). */
  onCloseTimeout(): void;
}

export function runEpisodeOn<T>(deps: RunnerDeps, spec: EpisodeSpec, policy: EpisodePolicy<T>, hooks: EpisodeHooks<T> = {}): Promise<EpisodeResult<T>> {
  return new EpisodeRun(deps, spec, policy, hooks).run();
}

function zeroTiming(): StepTiming {
  return { policyMs: 0, actionMs: 0, settleMs: 0, observeMs: 0 };
}

function addTiming(a: StepTiming, b: StepTiming): void {
  a.policyMs += b.policyMs;
  a.actionMs += b.actionMs;
  a.settleMs += b.settleMs;
  a.observeMs += b.observeMs;
}

/** The final page as the judge sees it. */
interface FinalPage {
  url: string;
  pageEval: PageEval;
  screenshot?: Uint8Array;
}

/** Refused connections an episode's diagnostics list by URL (the count goes on past them). */
const BLOCKED_LISTED = 50;

/** What the tool calls of a step came to. */
interface ActOutcome {
  /** The policy called done (its answer is recorded). */
  done: boolean;
  /** A failure that ends the episode once the step is recorded. */
  fatal: EpisodeEnd | null;
}

class EpisodeRun<T> {
  private readonly inst: BrowserInstance;
  private readonly o: ResolvedOptions;
  private readonly t: EnvTimeouts;
  private readonly log: ResolvedOptions['logger'];
  private readonly wall0 = performance.now();
  /** Aborted with an EpisodeEnd by whatever cuts the episode short (caller, browser loss, task timeout). */
  private readonly ctl = new AbortController();
  private readonly signal = this.ctl.signal;
  private taskTimer: ReturnType<typeof setTimeout> | undefined;

  private context: BrowserContext | null = null;
  /** The fence listener of this episode's context. */
  private proxy: EgressProxy | null = null;
  private session: EpisodeSession | null = null;
  /** Connections the fence refused for this episode (the first BLOCKED_LISTED), and how many in all. */
  private readonly blocked: BlockedConnection[] = [];
  private blockedTotal = 0;
  private initAttempts = 0;
  private initOk = false;
  /** Set once the episode has ended: a step that completes after that is dropped. */
  private finished = false;
  /** When the episode ended (before the final page was inspected). */
  private cutAt = 0;

  private readonly steps: EpisodeStep<T>[] = [];
  private readonly total = zeroTiming();
  /**
   * The step in progress: its timing so far and the phase running now (since `t0`). When the
   * episode is cut off (task timeout, crash) it is added to the total, so a timeout can be blamed
   * on the phase that took the time: a policy still deciding, or a page still loading.
   */
  private current: { timing: StepTiming; phase: keyof StepTiming | null; t0: number } | null = null;
  private readonly history: HistoryEntry[] = [];
  private readonly shots: Uint8Array[] = [];
  private readonly sitesSeen = new Set<string>();
  private lastEffects: string[] = [];
  private consecutiveParse = 0;
  private finalAnswer = '';
  private calledDone = false;
  private errorInfo = { name: '', message: '', stack: '' };

  constructor(
    private readonly deps: RunnerDeps,
    private readonly spec: EpisodeSpec,
    private readonly policy: EpisodePolicy<T>,
    private readonly hooks: EpisodeHooks<T>,
  ) {
    this.inst = deps.inst;
    this.o = deps.o;
    this.t = episodeTimeouts(deps.o.timeouts, spec);
    this.log = deps.o.logger;
  }

  async run(): Promise<EpisodeResult<T>> {
    let termination: EpisodeTermination;
    this.watchForCutOff();
    try {
      termination = await bounded(this.play(), this.t.taskMs + 60_000, () => new EpisodeEnd('ENV_ERROR', 'task_timeout', 'the episode did not end'), this.signal);
    } catch (e) {
      termination = this.classify(e);
    } finally {
      this.finished = true;
      this.cutAt = performance.now();
      this.stopWatching();
    }
    const final = await this.inspectFinalPage();
    await this.closeContext();
    await this.proxy?.close();
    return this.result(termination, final);
  }

  /** open → start → steps; resolves with how the policy ended the episode, throws for everything else. */
  private async play(): Promise<EpisodeTermination> {
    const s = await this.open();
    let obs = await this.start(s);
    const exec: ExecContext = { session: s, viewport: this.o.viewport, allowHosts: this.o.allowHosts, toolCallMs: this.t.toolCallMs, stepDeadline: 0, signal: this.signal };
    for (let i = 0; i < this.spec.maxSteps; i++) {
      const r = await this.step(s, exec, i, obs);
      if ('termination' in r) return r.termination;
      obs = r.obs;
    }
    return { cls: 'STEP_BUDGET_EXHAUSTED', reason: 'max_steps', message: `no done within ${this.spec.maxSteps} steps` };
  }

  // ---- cut-offs: the caller's abort, the browser lost, the task timeout ----

  private endWith(end: EpisodeEnd): void {
    if (!this.signal.aborted) this.ctl.abort(end);
  }

  private readonly onUserAbort = (): void => this.endWith(new EpisodeEnd('SANDBOX_ERROR', 'aborted', 'the episode was aborted by its caller'));

  private readonly onLost = (): void =>
    this.endWith(
      this.inst.closedByUs
        ? new EpisodeEnd('SANDBOX_ERROR', 'browser_closed', 'the browser pool closed Chromium during the episode')
        : new EpisodeEnd('SANDBOX_ERROR', 'browser_crash', 'Chromium disconnected during the episode'),
    );

  private watchForCutOff(): void {
    this.spec.signal?.addEventListener('abort', this.onUserAbort, { once: true });
    this.inst.lostSignal.addEventListener('abort', this.onLost, { once: true });
    if (this.spec.signal?.aborted) this.onUserAbort();
    if (this.inst.dead) this.onLost();
    this.taskTimer = setTimeout(() => this.endWith(new EpisodeEnd('ENV_ERROR', 'task_timeout', `the task exceeded ${this.t.taskMs} ms`)), this.t.taskMs);
  }

  private stopWatching(): void {
    clearTimeout(this.taskTimer);
    this.spec.signal?.removeEventListener('abort', this.onUserAbort);
    this.inst.lostSignal.removeEventListener('abort', this.onLost);
  }

  // ---- open and start ----

  /** Told by this episode's fence listener: kept for the diagnostics, and told to the session for the effects. */
  private onFenceEvent(e: FenceEvent): void {
    if (e.outcome === 'refused') {
      this.blockedTotal++;
      if (this.blocked.length < BLOCKED_LISTED) this.blocked.push({ url: e.url, reason: e.reason, range: e.range, detail: e.detail });
    }
    this.session?.onFenceEvent(e);
  }

  /** A fresh context behind a fence listener of its own (every connection of its pages and workers passes it), the injected script, and its session. */
  private async open(): Promise<EpisodeSession> {
    const { o, inst, signal } = this;
    const v = checkUrl(this.spec.startUrl, o.allowHosts);
    if (!v.ok) throw new EpisodeEnd('INIT_ERROR', v.reason === 'private_address' ? 'blocked_url' : 'bad_url', `startUrl: ${v.detail}`);
    try {
      this.proxy = await this.deps.fence.open((e) => this.onFenceEvent(e));
      const context = await bounded(
        inst.browser.newContext({
          viewport: o.viewport,
          userAgent: inst.userAgent,
          locale: 'en-US',
          serviceWorkers: o.serviceWorkers,
          acceptDownloads: true,
          proxy: EgressFence.proxySettings(this.proxy),
        }),
        this.t.closeMs,
        () => new Error('creating a browser context timed out'),
        signal,
      );
      this.context = context;
      await installInjectedScript(context);
      this.session = await EpisodeSession.open(context, this.log);
      return this.session;
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (inst.dead) throw new EpisodeEnd('SANDBOX_ERROR', 'browser_crash', 'Chromium disconnected', { cause: e });
      throw new EpisodeEnd('SANDBOX_ERROR', 'context_create', `cannot create a browser context: ${(e as Error)?.message}`, { cause: e });
    }
  }

  /** The start page loaded (with retries), settled and observed; a wall there ends the episode. */
  private async start(s: EpisodeSession): Promise<ObserveResult> {
    await navigateInitially(s, this.spec.startUrl, { timeouts: this.t, backoffMs: this.o.initBackoffMs, signal: this.signal, log: this.log, attempts: (n) => (this.initAttempts = n) });
    this.initOk = true;
    const timing = zeroTiming();
    const deadline = performance.now() + this.t.stepMs;
    await this.settle(s, deadline, timing);
    const obs = await this.observe(s, Math.max(deadline, performance.now() + 5000), timing);
    addTiming(this.total, timing);
    if (obs.wall) throw this.wallEnd(obs);
    this.noteHosts(s);
    return obs;
  }

  // ---- one step: decide → act → settle → observe ----

  private async step(s: EpisodeSession, exec: ExecContext, i: number, obs: ObserveResult): Promise<{ termination: EpisodeTermination } | { obs: ObserveResult }> {
    const deadline = performance.now() + this.t.stepMs;
    exec.stepDeadline = deadline;
    const timing = zeroTiming();
    const pt = performance.now();
    this.current = { timing, phase: 'policyMs', t0: pt };
    const d = await this.decide({ instruction: this.spec.instruction, observation: obs.observation, history: [...this.history], step: i, maxSteps: this.spec.maxSteps }, deadline);
    timing.policyMs = msSince(pt);
    this.current.phase = null;
    const step = this.stepRecord(i, d, obs, timing);
    const last = i === this.spec.maxSteps - 1;

    if (d.generationLimit) {
      await this.record(step);
      const reason: TerminationReason = d.limitReason === 'context_overflow' ? 'context_overflow' : 'generation_limit';
      return { termination: { cls: 'GENERATION_LIMIT', reason, message: reason === 'context_overflow' ? 'the prompt no longer fits the model context' : 'the policy hit its generation limit' } };
    }
    if (step.parseError) {
      this.consecutiveParse++;
      await this.record(step);
      if (this.consecutiveParse >= DEFAULTS.maxConsecutiveFormatErrors) return { termination: { cls: 'FORMAT_ERROR', reason: 'format_error', message: `${this.consecutiveParse} consecutive unparseable outputs` } };
      this.history.push(historyEntry(step, this.historyMode()));
      // the agent sees the parse error in place of effects, on the same page
      this.lastEffects = [step.parseErrorLine ?? parseErrorLine()];
      obs.observation.lastEffects = [...this.lastEffects];
      return { obs };
    }
    this.consecutiveParse = 0;

    const at = performance.now();
    this.enter('actionMs', at);
    const acted = await this.act(exec, step, Array.isArray(d.calls) ? d.calls : [], deadline);
    timing.actionMs = msSince(at);
    this.leave();
    const urlAfterActions = s.active.url();
    step.urlAfter = urlAfterActions;
    if (acted.done) {
      this.calledDone = true;
      await this.record(step);
      return { termination: { cls: 'COMPLETED', reason: 'done', message: 'the policy called done' } };
    }
    if (acted.fatal) {
      await this.record(step);
      throw acted.fatal;
    }

    await this.settle(s, deadline, timing);
    this.noteLateNavigation(step, urlAfterActions, s.active.url());
    this.lastEffects = step.results.flatMap((r) => r.effects.map((e) => e.line));
    this.noteHosts(s);
    if (last) {
      await this.record(step);
      return { obs };
    }

    const next = await this.observe(s, Math.max(deadline, performance.now() + Math.min(this.t.toolCallMs, 5000)), timing);
    step.urlAfter = next.observation.url;
    await this.record(step);
    this.history.push(historyEntry(step, this.historyMode()));
    if (next.wall && this.o.botWall === 'end') throw this.wallEnd(next);
    return { obs: next };
  }

  /** The policy's decision within the policy and step timeouts; its failures end the episode as SANDBOX_ERROR. */
  private async decide(input: Parameters<EpisodePolicy<T>['decide']>[0], stepDeadline: number): Promise<StepDecision<T>> {
    const { signal } = this;
    const own = new AbortController();
    const ms = Math.max(1, Math.min(this.t.policyStepMs, stepDeadline - performance.now()));
    try {
      return await bounded(
        this.policy.decide(input, AbortSignal.any([signal, own.signal])),
        ms,
        () => new EpisodeEnd('SANDBOX_ERROR', 'policy_timeout', `the policy did not decide within ${Math.round(ms)} ms`),
        signal,
      );
    } catch (e) {
      own.abort();
      if (signal.aborted) throw signal.reason;
      if (e instanceof EpisodeEnd) throw e;
      const unavailable = policyUnavailableReason(e);
      if (unavailable !== undefined) throw new EpisodeEnd('SANDBOX_ERROR', unavailable, `the policy backend could not answer: ${(e as Error)?.message ?? String(e)}`, { cause: e });
      throw new EpisodeEnd('SANDBOX_ERROR', 'policy_error', `the policy failed: ${(e as Error)?.message ?? String(e)}`, { cause: e });
    }
  }

  private stepRecord(i: number, d: StepDecision<T>, obs: ObserveResult, timing: StepTiming): EpisodeStep<T> {
    const urlBefore = obs.observation.url;
    const step: EpisodeStep<T> = {
      index: i,
      reasoning: typeof d.reasoning === 'string' ? d.reasoning : '',
      results: [],
      urlBefore,
      urlAfter: urlBefore,
      trace: d.trace,
      raw: typeof d.raw === 'string' ? d.raw : '',
      parseError: d.parseError === true,
      timing,
      ...(obs.shot ? { screenshot: obs.shot } : {}),
    };
    if (step.parseError) step.parseErrorLine = parseErrorLine(d.parseErrorDetail);
    return step;
  }

  /** Runs the calls in order until one fails, `done` succeeds or the step runs out of time. */
  private async act(exec: ExecContext, step: EpisodeStep<T>, calls: StepDecision<T>['calls'], deadline: number): Promise<ActOutcome> {
    for (const call of calls) {
      if (performance.now() > deadline) return { done: false, fatal: new EpisodeEnd('ENV_ERROR', 'step_timeout', `step ${step.index} exceeded ${this.t.stepMs} ms`) };
      const r = await executeCall(exec, call);
      step.results.push(r);
      if (call.name === 'done' && r.ok) {
        const resp = call.args?.['response'];
        this.finalAnswer = resp === undefined || resp === null ? '' : String(resp);
        return { done: true, fatal: null };
      }
      if (!r.ok) return { done: false, fatal: endOfFailedCall(r, { step: step.index, stepMs: this.t.stepMs, botWall: this.o.botWall, sitesSeen: this.sitesSeen }) };
    }
    return { done: false, fatal: null };
  }

  private async settle(s: EpisodeSession, deadline: number, timing: StepTiming): Promise<void> {
    const t = performance.now();
    this.enter('settleMs', t);
    await bounded(s.settle(Math.min(t + this.o.settleMaxMs, deadline)), Math.max(1, deadline - t) + 1000, () => new EpisodeEnd('ENV_ERROR', 'step_timeout', 'settling did not finish'), this.signal);
    timing.settleMs += msSince(t);
    this.leave();
  }

  /** A phase of the step in progress starts (the start page's settle and observation count as browser time too). */
  private enter(phase: keyof StepTiming, t0: number): void {
    if (this.current) {
      this.current.phase = phase;
      this.current.t0 = t0;
    }
  }

  private leave(): void {
    if (this.current) this.current.phase = null;
  }

  /** A navigation that committed only after the reaction wait (slow server, delayed script) becomes the last call's effect. */
  private noteLateNavigation(step: EpisodeStep<T>, urlAfterActions: string, urlSettled: string): void {
    const lastResult = step.results[step.results.length - 1];
    if (lastResult && urlSettled !== urlAfterActions && !lastResult.effects.some((e) => e.kind === 'navigated')) {
      lastResult.effects = lastResult.effects.filter((e) => e.kind !== 'no_effect');
      lastResult.effects.push({ kind: 'navigated', line: `navigated to ${shortUrl(urlSettled, urlAfterActions)}`, evidence: { url_before: urlAfterActions, url_after: urlSettled, late: 'true' } });
    }
    step.urlAfter = urlSettled;
  }

  private async observe(s: EpisodeSession, deadline: number, timing: StepTiming): Promise<ObserveResult> {
    const t = performance.now();
    this.enter('observeMs', t);
    const r = await bounded(
      observe(s, {
        lastEffects: this.lastEffects,
        shots: this.shots,
        takeScreenshot: this.policy.needsScreenshot && this.o.screenshots > 0,
        inspect: this.spec.stepScreenshots === true,
        keep: this.o.screenshots,
        deadline,
      }),
      Math.max(1, deadline - t) + 1000,
      () => new EpisodeEnd('ENV_ERROR', 'page_unresponsive', 'the observation did not finish in time'),
      this.signal,
    );
    timing.observeMs += msSince(t);
    this.leave();
    return r;
  }

  /** Keeps the step and tells the hook, unless the episode has already ended. */
  private async record(step: EpisodeStep<T>): Promise<void> {
    if (this.finished) return;
    this.steps.push(step);
    addTiming(this.total, step.timing);
    if (this.current?.timing === step.timing) this.current = null;
    if (!this.hooks.onStep) return;
    try {
      await this.hooks.onStep(step);
    } catch (e) {
      this.log.warn({ err: describeError(e), step: step.index }, 'onStep hook failed');
    }
  }

  private historyMode(): HistoryMode {
    return this.spec.historyMode ?? 'full';
  }

  private wallEnd(obs: ObserveResult): EpisodeEnd {
    return new EpisodeEnd('ENV_ERROR', 'bot_wall', `${obs.wall?.kind} at ${obs.observation.url} (${obs.wall?.marker})`);
  }

  /** Adds the hosts the tabs show now to the sites this episode has reached. */
  private noteHosts(s: EpisodeSession): void {
    for (const p of s.pages()) {
      const h = httpHost(p.url());
      if (h) this.sitesSeen.add(h);
    }
  }

  // ---- classify and finalize ----

  /** The termination for what stopped the episode; a browser crash seen meanwhile wins over the step's own failure. */
  private classify(e: unknown): EpisodeTermination {
    const { inst, signal } = this;
    const sess = this.session;
    const lost = (): EpisodeEnd => new EpisodeEnd('SANDBOX_ERROR', inst.closedByUs ? 'browser_closed' : 'browser_crash', 'Chromium disconnected', { cause: e });
    let end: EpisodeEnd;
    if (e instanceof EpisodeEnd) end = e;
    else if (signal.aborted && signal.reason instanceof EpisodeEnd) end = signal.reason;
    else if (inst.dead) end = lost();
    else if (sess?.contextClosed) end = new EpisodeEnd('SANDBOX_ERROR', 'context_crash', 'the browser context closed unexpectedly', { cause: e });
    else if (sess?.crashedPage) end = new EpisodeEnd('ENV_ERROR', 'page_crash', 'the page crashed', { cause: e });
    else end = new EpisodeEnd('SANDBOX_ERROR', 'internal_error', (e as Error)?.message ?? String(e), { cause: e });
    if (end.cls !== 'SANDBOX_ERROR' && inst.dead) end = lost();
    const d = describeError(end.cause ?? end);
    this.errorInfo = { name: d.name, message: d.message, stack: d.stack };
    return { cls: end.cls, reason: end.code, message: end.message };
  }

  /** URL, verifier expression and a small screenshot of the final page, when it is still usable. */
  private async inspectFinalPage(): Promise<FinalPage> {
    const { inst, spec, initOk } = this;
    const final: FinalPage = { url: '', pageEval: { evaluated: false, truthy: false, valueJson: '', error: '' } };
    const sess = this.session;
    const page = sess?.active;
    if (sess && page && !page.isClosed() && !inst.dead && !sess.contextClosed && sess.crashedPage !== page) {
      final.url = page.url();
      if (spec.pageExpression && initOk) final.pageEval = await evaluateExpression(page, spec.pageExpression, Math.min(this.t.toolCallMs, 10_000));
      else if (spec.pageExpression) final.pageEval.error = 'the start page never loaded';
      // no screenshot when the start page never loaded: nothing to judge, and a pending load can stall it
      const shot = spec.finalScreenshot === false || !initOk ? null : await settleWithin(page.screenshot({ type: 'jpeg', quality: 50, timeout: 5000 }), 6000, null);
      if (shot) final.screenshot = new Uint8Array(shot.buffer, shot.byteOffset, shot.byteLength);
    } else if (page) {
      final.url = page.isClosed() ? '' : page.url();
    }
    return final;
  }

  /** Closes the context within the close timeout; one that hangs gets its browser recycled. */
  private async closeContext(): Promise<void> {
    const ctx = this.context;
    if (!ctx || this.inst.dead) return;
    const closed = await settleWithin(
      ctx.close().then(() => true),
      this.t.closeMs,
      false,
    );
    if (!closed) {
      this.log.warn({ browser: this.inst.id }, 'browser context did not close in time');
      this.deps.onCloseTimeout();
    }
  }

  private result(termination: EpisodeTermination, final: FinalPage): EpisodeResult<T> {
    const { inst } = this;
    const wallMs = msSince(this.wall0);
    // the step the episode was cut off in: what it had done, and the phase it was in until then
    const cut = this.current;
    if (cut) {
      const t = { ...cut.timing };
      if (cut.phase) t[cut.phase] += Math.max(0, this.cutAt - cut.t0);
      addTiming(this.total, t);
      this.current = null;
    }
    this.log.info({ termination: termination.cls, reason: termination.reason, steps: this.steps.length, wallMs: Math.round(wallMs), browser: inst.id }, 'episode finished');
    const result: EpisodeResult<T> = {
      steps: [...this.steps],
      termination,
      finalAnswer: this.finalAnswer,
      calledDone: this.calledDone,
      finalUrl: final.url,
      pageEval: final.pageEval,
      diagnostics: {
        latencyTotal: this.total,
        chromiumPssBytes: inst.pssBytes(),
        chromiumRssBytes: inst.rssBytes(),
        browserUptimeS: inst.uptimeS(),
        browserEpisodes: inst.episodes,
        initAttempts: this.initAttempts,
        httpStatus: this.session?.lastDocStatus ?? 0,
        finalUrl: final.url,
        errorName: this.errorInfo.name,
        errorMessage: this.errorInfo.message,
        errorStack: this.errorInfo.stack,
        wallMs,
        blocked: [...this.blocked],
        blockedTotal: this.blockedTotal,
      },
    };
    if (final.screenshot) result.finalScreenshot = final.screenshot;
    return result;
  }
}

async function evaluateExpression(page: Page, expr: string, ms: number): Promise<PageEval> {
  try {
    const v: unknown = await bounded(page.evaluate(expr), ms, () => new Error(`pageExpression did not finish in ${ms} ms`));
    let json = '';
    try {
      json = JSON.stringify(v) ?? '';
    } catch {
      json = JSON.stringify(String(v));
    }
    return { evaluated: true, truthy: !!v, valueJson: json, error: '' };
  } catch (e) {
    return { evaluated: false, truthy: false, valueJson: '', error: (e as Error)?.message ?? String(e) };
  }
}
