// One episode on one browser (DESIGN §5): fresh context with the request guard, init navigation
// with retries, the observe → decide → act → settle loop with its budgets and timeouts, the
// termination class and reason, the final verifier expression and screenshot, and the context
// closed within the close timeout. Never throws for site or browser failures: they become the
// termination of the returned result.
import { DEFAULTS, describeError, isTerminationReason, policyUnavailableReason, type HistoryEntry, type HistoryMode, type TerminationClassName, type TerminationReason } from '@owrl/core';
import type { BrowserContext, Page } from 'playwright-core';
import { bounded, msSince, settleWithin } from './async-util.js';
import type { BrowserInstance } from './browser-instance.js';
import { shortUrl } from './effects.js';
import { BrowserEnvError, BrowserEnvErrorCode, EpisodeEnd } from './errors.js';
import { EpisodeSession } from './episode-session.js';
import { installGuard, type DnsVerdicts } from './guard.js';
import { HISTORY_MODES, historyEntry, parseErrorLine } from './history.js';
import { navigateInitially } from './init-navigation.js';
import { checkUrl } from './net-policy.js';
import { observe, type ObserveResult } from './observe.js';
import type { EnvTimeouts, ResolvedOptions } from './options.js';
import { popupWatchInPage } from './page-helpers.js';
import { executeCall, type ExecContext } from './tools.js';
import type { EpisodeHooks, EpisodePolicy, EpisodeResult, EpisodeSpec, EpisodeStep, EpisodeTermination, PageEval, StepDecision, StepTiming, ToolCallResult } from './types.js';

export interface RunnerDeps {
  inst: BrowserInstance;
  o: ResolvedOptions;
  dns: DnsVerdicts;
  /** Called when a context did not close in time (the pool then recycles the browser). */
  onCloseTimeout(): void;
}

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

/** @throws BrowserEnvError(BROWSER_ENV_BAD_SPEC) naming the field. */
export function validateSpec(spec: EpisodeSpec): void {
  const bad = (field: string, v: unknown, want: string): never => {
    throw new BrowserEnvError(BrowserEnvErrorCode.BAD_SPEC, `episode spec ${field}=${JSON.stringify(v)} must be ${want}`);
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

/** host:port of an http(s) URL, null for anything else. */
function httpHost(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host : null;
  } catch {
    return null;
  }
}

/** Adds the hosts the tabs show now to `seen` (the sites this episode has reached). */
function noteHosts(s: EpisodeSession, seen: Set<string>): void {
  for (const p of s.pages()) {
    const h = httpHost(p.url());
    if (h) seen.add(h);
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

function zeroTiming(): StepTiming {
  return { policyMs: 0, actionMs: 0, settleMs: 0, observeMs: 0 };
}

function addTiming(a: StepTiming, b: StepTiming): void {
  a.policyMs += b.policyMs;
  a.actionMs += b.actionMs;
  a.settleMs += b.settleMs;
  a.observeMs += b.observeMs;
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

export async function runEpisodeOn<T>(deps: RunnerDeps, spec: EpisodeSpec, policy: EpisodePolicy<T>, hooks: EpisodeHooks<T> = {}): Promise<EpisodeResult<T>> {
  const { inst, o } = deps;
  const T: EnvTimeouts = { ...o.timeouts };
  for (const [k, v] of Object.entries(spec.timeouts ?? {})) if (v !== undefined) T[k as keyof EnvTimeouts] = v;
  const log = o.logger;
  const wall0 = performance.now();
  const steps: EpisodeStep<T>[] = [];
  const total = zeroTiming();
  let initAttempts = 0;
  let termination: EpisodeTermination | null = null;
  let errorInfo = { name: '', message: '', stack: '' };
  let finalAnswer = '';
  let calledDone = false;
  let context: BrowserContext | null = null;
  let session: EpisodeSession | null = null;
  let initOk = false;

  const ctl = new AbortController();
  const signal = ctl.signal;
  const endWith = (cls: TerminationClassName, reason: TerminationReason, message: string) => (): void => {
    if (!signal.aborted) ctl.abort(new EpisodeEnd(cls, reason, message));
  };
  const onUserAbort = endWith('SANDBOX_ERROR', 'aborted', 'the episode was aborted by its caller');
  const onLost = (): void =>
    inst.closedByUs
      ? endWith('SANDBOX_ERROR', 'browser_closed', 'the browser pool closed Chromium during the episode')()
      : endWith('SANDBOX_ERROR', 'browser_crash', 'Chromium disconnected during the episode')();
  spec.signal?.addEventListener('abort', onUserAbort, { once: true });
  inst.lostSignal.addEventListener('abort', onLost, { once: true });
  if (spec.signal?.aborted) onUserAbort();
  if (inst.dead) onLost();
  const taskTimer = setTimeout(endWith('ENV_ERROR', 'task_timeout', `the task exceeded ${T.taskMs} ms`), T.taskMs);

  let finished = false;
  const finishStep = async (step: EpisodeStep<T>): Promise<void> => {
    if (finished) return; // a step completing after the episode was cut short is dropped
    steps.push(step);
    addTiming(total, step.timing);
    if (hooks.onStep) {
      try {
        await hooks.onStep(step);
      } catch (e) {
        log.warn({ err: describeError(e), step: step.index }, 'onStep hook failed');
      }
    }
  };

  const decide = async (input: Parameters<EpisodePolicy<T>['decide']>[0], stepDeadline: number): Promise<StepDecision<T>> => {
    const own = new AbortController();
    const ms = Math.max(1, Math.min(T.policyStepMs, stepDeadline - performance.now()));
    try {
      return await bounded(
        policy.decide(input, AbortSignal.any([signal, own.signal])),
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
  };

  const run = async (): Promise<void> => {
    const v = checkUrl(spec.startUrl, o.allowHosts);
    if (!v.ok) throw new EpisodeEnd('INIT_ERROR', v.reason === 'private_address' ? 'blocked_url' : 'bad_url', `startUrl: ${v.detail}`);
    try {
      context = await bounded(
        inst.browser.newContext({
          viewport: o.viewport,
          userAgent: inst.userAgent,
          locale: 'en-US',
          serviceWorkers: 'block', // their requests would bypass the guard
          acceptDownloads: true,
        }),
        T.closeMs,
        () => new Error('creating a browser context timed out'),
        signal,
      );
      await installGuard(context, o.allowHosts, deps.dns, (b) => session?.onBlocked(b));
      await context.addInitScript(popupWatchInPage);
      session = await EpisodeSession.open(context, log);
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (inst.dead) throw new EpisodeEnd('SANDBOX_ERROR', 'browser_crash', 'Chromium disconnected', { cause: e });
      throw new EpisodeEnd('SANDBOX_ERROR', 'context_create', `cannot create a browser context: ${(e as Error)?.message}`, { cause: e });
    }
    const s: EpisodeSession = session;
    await navigateInitially(s, spec.startUrl, { timeouts: T, backoffMs: o.initBackoffMs, signal, log, attempts: (n) => (initAttempts = n) });
    initOk = true;

    const mode: HistoryMode = spec.historyMode ?? 'full';
    const wantShots = policy.needsScreenshot && o.screenshots > 0;
    const shots: Uint8Array[] = [];
    const history: HistoryEntry[] = [];
    let lastEffects: string[] = [];
    let consecutiveParse = 0;
    const exec: ExecContext = { session: s, viewport: o.viewport, allowHosts: o.allowHosts, toolCallMs: T.toolCallMs, stepDeadline: 0, signal };

    const observeNow = async (deadline: number, timing: StepTiming): Promise<ObserveResult> => {
      const t = performance.now();
      const r = await bounded(
        observe(s, { lastEffects, shots, takeScreenshot: wantShots, inspect: spec.stepScreenshots === true, keep: o.screenshots, deadline }),
        Math.max(1, deadline - t) + 1000,
        () => new EpisodeEnd('ENV_ERROR', 'page_unresponsive', 'the observation did not finish in time'),
        signal,
      );
      timing.observeMs += msSince(t);
      return r;
    };
    const settleNow = async (deadline: number, timing: StepTiming): Promise<void> => {
      const t = performance.now();
      await bounded(s.settle(Math.min(t + o.settleMaxMs, deadline)), Math.max(1, deadline - t) + 1000, () => new EpisodeEnd('ENV_ERROR', 'step_timeout', 'settling did not finish'), signal);
      timing.settleMs += msSince(t);
    };

    const first = zeroTiming();
    const firstDeadline = performance.now() + T.stepMs;
    await settleNow(firstDeadline, first);
    let obs = await observeNow(Math.max(firstDeadline, performance.now() + 5000), first);
    addTiming(total, first);
    if (obs.wall) throw new EpisodeEnd('ENV_ERROR', 'bot_wall', `${obs.wall.kind} at ${obs.observation.url} (${obs.wall.marker})`);
    const sitesSeen = new Set<string>();
    noteHosts(s, sitesSeen);

    for (let i = 0; i < spec.maxSteps; i++) {
      const stepDeadline = performance.now() + T.stepMs;
      exec.stepDeadline = stepDeadline;
      const timing = zeroTiming();
      const urlBefore = obs.observation.url;
      const pt = performance.now();
      const d = await decide({ instruction: spec.instruction, observation: obs.observation, history: [...history], step: i, maxSteps: spec.maxSteps }, stepDeadline);
      timing.policyMs = msSince(pt);
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
      const last = i === spec.maxSteps - 1;
      if (d.generationLimit) {
        await finishStep(step);
        const reason: TerminationReason = d.limitReason === 'context_overflow' ? 'context_overflow' : 'generation_limit';
        termination = { cls: 'GENERATION_LIMIT', reason, message: reason === 'context_overflow' ? 'the prompt no longer fits the model context' : 'the policy hit its generation limit' };
        return;
      }
      if (step.parseError) {
        consecutiveParse++;
        await finishStep(step);
        if (consecutiveParse >= DEFAULTS.maxConsecutiveFormatErrors) {
          termination = { cls: 'FORMAT_ERROR', reason: 'format_error', message: `${consecutiveParse} consecutive unparseable outputs` };
          return;
        }
        history.push(historyEntry(step, mode));
        if (last) break;
        lastEffects = [step.parseErrorLine ?? parseErrorLine()];
        obs.observation.lastEffects = [...lastEffects];
        continue;
      }
      consecutiveParse = 0;

      const at = performance.now();
      let fatal: EpisodeEnd | null = null;
      let doneNow = false;
      for (const call of Array.isArray(d.calls) ? d.calls : []) {
        if (performance.now() > stepDeadline) {
          fatal = new EpisodeEnd('ENV_ERROR', 'step_timeout', `step ${i} exceeded ${T.stepMs} ms`);
          break;
        }
        const r = await executeCall(exec, call);
        step.results.push(r);
        if (call.name === 'done' && r.ok) {
          doneNow = true;
          const resp = call.args?.['response'];
          finalAnswer = resp === undefined || resp === null ? '' : String(resp);
          break;
        }
        if (!r.ok) {
          const lines = r.effects.map((e) => e.line).join('; ');
          if (r.errorCode === 'bot_wall' && o.botWall === 'end') fatal = new EpisodeEnd('ENV_ERROR', 'bot_wall', lines);
          else if (r.errorCode === 'timeout' && r.effects[0]?.evidence['limit'] === 'step') fatal = new EpisodeEnd('ENV_ERROR', 'step_timeout', `step ${i} exceeded ${T.stepMs} ms: ${lines}`);
          else if (!NON_FATAL_CODES.has(r.errorCode) && failedOnSeenSite(r, sitesSeen)) fatal = new EpisodeEnd('ENV_ERROR', isTerminationReason(r.errorCode) ? r.errorCode : 'navigation_failed', lines);
          break;
        }
      }
      timing.actionMs = msSince(at);
      const urlAfterActions = s.active.url();
      step.urlAfter = urlAfterActions;
      if (doneNow) {
        calledDone = true;
        await finishStep(step);
        termination = { cls: 'COMPLETED', reason: 'done', message: 'the policy called done' };
        return;
      }
      if (fatal) {
        await finishStep(step);
        throw fatal;
      }
      await settleNow(stepDeadline, timing);
      const lastResult = step.results[step.results.length - 1];
      const urlSettled = s.active.url();
      if (lastResult && urlSettled !== urlAfterActions && !lastResult.effects.some((e) => e.kind === 'navigated')) {
        // a navigation that committed only after the reaction wait (slow server, delayed script)
        lastResult.effects = lastResult.effects.filter((e) => e.kind !== 'no_effect');
        lastResult.effects.push({ kind: 'navigated', line: `navigated to ${shortUrl(urlSettled, urlAfterActions)}`, evidence: { url_before: urlAfterActions, url_after: urlSettled, late: 'true' } });
      }
      lastEffects = step.results.flatMap((r) => r.effects.map((e) => e.line));
      step.urlAfter = urlSettled;
      noteHosts(s, sitesSeen);
      if (last) {
        await finishStep(step);
        break;
      }
      obs = await observeNow(Math.max(stepDeadline, performance.now() + Math.min(T.toolCallMs, 5000)), timing);
      step.urlAfter = obs.observation.url;
      await finishStep(step);
      history.push(historyEntry(step, mode));
      if (obs.wall && o.botWall === 'end') throw new EpisodeEnd('ENV_ERROR', 'bot_wall', `${obs.wall.kind} at ${obs.observation.url} (${obs.wall.marker})`);
    }
    termination = { cls: 'STEP_BUDGET_EXHAUSTED', reason: 'max_steps', message: `no done within ${spec.maxSteps} steps` };
  };

  try {
    await bounded(run(), T.taskMs + 60_000, () => new EpisodeEnd('ENV_ERROR', 'task_timeout', 'the episode did not end'), signal);
  } catch (e) {
    let end: EpisodeEnd;
    const sess = session as EpisodeSession | null;
    if (e instanceof EpisodeEnd) end = e;
    else if (signal.aborted && signal.reason instanceof EpisodeEnd) end = signal.reason;
    else if (inst.dead) end = new EpisodeEnd('SANDBOX_ERROR', inst.closedByUs ? 'browser_closed' : 'browser_crash', 'Chromium disconnected', { cause: e });
    else if (sess?.contextClosed) end = new EpisodeEnd('SANDBOX_ERROR', 'context_crash', 'the browser context closed unexpectedly', { cause: e });
    else if (sess?.crashedPage) end = new EpisodeEnd('ENV_ERROR', 'page_crash', 'the page crashed', { cause: e });
    else end = new EpisodeEnd('SANDBOX_ERROR', 'internal_error', (e as Error)?.message ?? String(e), { cause: e });
    // a crash seen while the step was failing for another reason wins
    if (end.cls !== 'SANDBOX_ERROR' && inst.dead) end = new EpisodeEnd('SANDBOX_ERROR', inst.closedByUs ? 'browser_closed' : 'browser_crash', 'Chromium disconnected', { cause: e });
    termination = { cls: end.cls, reason: end.code, message: end.message };
    const d = describeError(end.cause ?? end);
    errorInfo = { name: d.name, message: d.message, stack: d.stack };
  } finally {
    finished = true;
    clearTimeout(taskTimer);
    spec.signal?.removeEventListener('abort', onUserAbort);
    inst.lostSignal.removeEventListener('abort', onLost);
  }

  // Final page: verifier expression and a small screenshot, when the page is still usable.
  let finalUrl = '';
  let pageEval: PageEval = { evaluated: false, truthy: false, valueJson: '', error: '' };
  let finalScreenshot: Uint8Array | undefined;
  const sess = session as EpisodeSession | null;
  const page = sess?.active;
  if (sess && page && !page.isClosed() && !inst.dead && !sess.contextClosed && sess.crashedPage !== page) {
    finalUrl = page.url();
    if (spec.pageExpression && initOk) pageEval = await evaluateExpression(page, spec.pageExpression, Math.min(T.toolCallMs, 10_000));
    else if (spec.pageExpression) pageEval.error = 'the start page never loaded';
    // no screenshot when the start page never loaded: nothing to judge, and a pending load can stall it
    const shot = spec.finalScreenshot === false || !initOk ? null : await settleWithin(page.screenshot({ type: 'jpeg', quality: 50, timeout: 5000 }), 6000, null);
    if (shot) finalScreenshot = new Uint8Array(shot.buffer, shot.byteOffset, shot.byteLength);
  } else if (page) {
    finalUrl = page.isClosed() ? '' : page.url();
  }
  const ctx = context as BrowserContext | null;
  if (ctx && !inst.dead) {
    const closed = await settleWithin(
      ctx.close().then(() => true),
      T.closeMs,
      false,
    );
    if (!closed) {
      log.warn({ browser: inst.id }, 'browser context did not close in time');
      deps.onCloseTimeout();
    }
  }
  const term: EpisodeTermination = termination ?? { cls: 'SANDBOX_ERROR', reason: 'internal_error', message: 'no termination recorded' };
  const wallMs = msSince(wall0);
  log.info({ termination: term.cls, reason: term.reason, steps: steps.length, wallMs: Math.round(wallMs), browser: inst.id }, 'episode finished');
  const result: EpisodeResult<T> = {
    steps: [...steps],
    termination: term,
    finalAnswer,
    calledDone,
    finalUrl,
    pageEval,
    diagnostics: {
      latencyTotal: total,
      chromiumPssBytes: inst.pssBytes(),
      chromiumRssBytes: inst.rssBytes(),
      browserUptimeS: inst.uptimeS(),
      browserEpisodes: inst.episodes,
      initAttempts,
      httpStatus: sess?.lastDocStatus ?? 0,
      finalUrl,
      errorName: errorInfo.name,
      errorMessage: errorInfo.message,
      errorStack: errorInfo.stack,
      wallMs,
    },
  };
  if (finalScreenshot) result.finalScreenshot = finalScreenshot;
  return result;
}
