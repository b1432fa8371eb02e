// Synthetic episodes (OWRL_SYNTHETIC=1): an episode runner without a browser, so that one actor
// process can stand in for thousands of browser slots against the real bus, judge and learner
// (the fleet benchmark). Everything around the episode stays the real actor's: the same consumer,
// in-flight bound, working(), publish-then-ack, registration and heartbeat, policy hot-swap.
//
// An episode waits for a duration drawn from a long-tailed model of real episode times, divided
// by a time-compression factor, and returns steps of realistic size: reasoning text, tool calls
// with typed effects and evidence, a pointer-policy trace the learner can train on, and (when step
// screenshots are kept) one JPEG-framed picture per step. Its outcome is one the judge's verifier
// path decides: done() with an accepted answer (or the page-expression result) for a success,
// a wrong answer or an exhausted step budget for a failure, and a few site failures (ENV_ERROR,
// re-dispatched by the learner). The model and where its numbers come from: docs/sizing.md.
import type { EffectRecord, EpisodeHooks, EpisodePolicy, EpisodeResult, EpisodeSpec, EpisodeStep, ToolCallResult } from '@owrl/browser-env';
import { fnv1a, mulberry32 } from '@owrl/core';
import { DEFAULT_DIM } from '@owrl/policy';
import { make, PointerTraceSchema, PolicyTraceSchema, sealTrace, type PolicyTrace, type RolloutRequest } from '@owrl/proto';

/** The episode-time model and its compression (all durations in real, uncompressed seconds). */
export interface SyntheticOptions {
  /** Time compression: an episode of `d` real seconds waits `d / speedup`. */
  speedup: number;
  /** Median seconds per step (policy + action + settle + observe), the lognormal's exp(mu). */
  stepMedianS: number;
  /** Lognormal sigma of an episode's seconds per step (how slow a slow site or a long output is). */
  stepSigma: number;
  /** Fewest steps an episode takes (at most the request's max_steps). */
  minSteps: number;
  /** Bytes of each step's screenshot (0: none, the trajectory carries no screenshot references). */
  shotBytes: number;
  /** Share of episodes ending with a site failure (ENV_ERROR), which the learner re-dispatches. */
  envErrorRate: number;
  /** Longest episode in real seconds (the paper's task timeout); beyond it: ENV_ERROR task_timeout. */
  taskTimeoutS: number;
  /**
   * The first this many episodes (one per slot: give the actor's slot count) wait only the rest
   * of an episode already under way — a uniform share of a length-biased draw from the model —
   * so a fleet whose slots all start at once finishes episodes at its steady rate from the start
   * instead of in a wave (0: off). Their trajectories are still the request's own.
   */
  staggerFirst: number;
}

/**
 * Defaults: 5 s median per step with sigma 0.6 and 5 to max_steps steps gives, at the paper's 15
 * and 30-step budgets, median episodes of about 50 s and 85 s with a p99 of about 3.5 times the
 * median (see docs/sizing.md for the sources).
 */
export const SYNTHETIC_DEFAULTS: SyntheticOptions = {
  speedup: 1,
  stepMedianS: 5,
  stepSigma: 0.6,
  minSteps: 5,
  shotBytes: 48 * 1024,
  envErrorRate: 0.03,
  taskTimeoutS: 600,
  staggerFirst: 0,
};

/** What one synthetic episode will be, drawn before it runs (pure: a function of the request). */
export interface EpisodePlan {
  steps: number;
  /** Real seconds the episode takes. */
  realS: number;
  /** Seconds actually waited (realS / speedup). */
  waitS: number;
  outcome: 'success' | 'wrong_answer' | 'step_budget' | 'env_error' | 'task_timeout';
}

/** The probability that the policy solves `taskId`: a fixed value in [0.1, 0.9] per task, so most groups of 5 are mixed. */
export function taskSuccessRate(taskId: string): number {
  return 0.1 + 0.8 * (fnv1a(taskId) / 2 ** 32);
}

/** A standard normal draw from two uniforms (Box-Muller). */
function normal(rng: () => number): number {
  const u = Math.max(rng(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/**
 * Draws the plan of the episode of `req` from its seed: step count uniform in
 * [min(minSteps, max_steps), max_steps], seconds per step lognormal(ln stepMedianS, stepSigma)
 * for the whole episode, the outcome from the task's success rate.
 * @throws RangeError naming an option out of range.
 */
export function planEpisode(req: RolloutRequest, o: SyntheticOptions): EpisodePlan {
  checkOptions(o);
  const rng = mulberry32(Number((req.seed ^ 0x5bd1e995n) % 4294967296n));
  const maxSteps = Math.max(1, req.maxSteps);
  const lo = Math.min(Math.max(1, o.minSteps), maxSteps);
  let steps = lo + Math.floor(rng() * (maxSteps - lo + 1));
  const perStep = o.stepMedianS * Math.exp(o.stepSigma * normal(rng));
  let outcome: EpisodePlan['outcome'];
  const r = rng();
  if (r < o.envErrorRate) {
    outcome = 'env_error';
    steps = 1 + Math.floor(rng() * steps);
  } else if (rng() < taskSuccessRate(req.task?.id ?? req.trajectoryId)) {
    outcome = 'success';
  } else {
    outcome = rng() < 0.5 ? 'wrong_answer' : 'step_budget';
    if (outcome === 'step_budget') steps = maxSteps;
  }
  let realS = steps * perStep;
  if (realS > o.taskTimeoutS) {
    realS = o.taskTimeoutS;
    outcome = 'task_timeout';
    steps = Math.max(1, Math.floor(o.taskTimeoutS / perStep));
  }
  return { steps, realS, waitS: realS / o.speedup, outcome };
}

function checkOptions(o: SyntheticOptions): void {
  const positive: Array<keyof SyntheticOptions> = ['speedup', 'stepMedianS', 'taskTimeoutS'];
  for (const k of positive) if (!(Number.isFinite(o[k]) && o[k] > 0)) throw new RangeError(`synthetic option ${k}=${o[k]} must be a positive number`);
  if (!(o.stepSigma >= 0 && Number.isFinite(o.stepSigma))) throw new RangeError(`synthetic option stepSigma=${o.stepSigma} must be >= 0`);
  if (!(o.envErrorRate >= 0 && o.envErrorRate <= 1)) throw new RangeError(`synthetic option envErrorRate=${o.envErrorRate} must be within [0, 1]`);
  if (!Number.isInteger(o.staggerFirst) || o.staggerFirst < 0) throw new RangeError(`synthetic option staggerFirst=${o.staggerFirst} must be an integer >= 0`);
  if (!Number.isInteger(o.minSteps) || o.minSteps < 1) throw new RangeError(`synthetic option minSteps=${o.minSteps} must be an integer >= 1`);
  if (!Number.isInteger(o.shotBytes) || o.shotBytes < 0) throw new RangeError(`synthetic option shotBytes=${o.shotBytes} must be an integer >= 0`);
}

/**
 * Seconds (as run) left of an episode found under way at a random instant of a steady fleet (the
 * stationary residual of the renewal process): an episode of `req`'s kind drawn with probability
 * proportional to its length (rejection against the task timeout, the longest), times a uniform share.
 */
export function residualWaitS(req: RolloutRequest, o: SyntheticOptions, rng: () => number): number {
  for (let i = 0; i < 10_000; i++) {
    const seed = BigInt(Math.floor(rng() * 2 ** 32)) * 4294967296n + BigInt(Math.floor(rng() * 2 ** 32));
    const d = planEpisode({ ...req, seed }, o);
    if (rng() * o.taskTimeoutS <= d.realS) return (rng() * d.realS) / o.speedup;
  }
  return (rng() * planEpisode(req, o).realS) / o.speedup;
}

/**
 * A JPEG-framed picture of `bytes` bytes (SOI, a baseline frame header of 1280x720, filler, EOI)
 * whose content is unique per (seed, step), as real screenshots are: the store is content-addressed.
 */
export function syntheticScreenshot(bytes: number, rng: () => number): Uint8Array {
  const n = Math.max(bytes, 32);
  const b = new Uint8Array(n);
  // SOI, SOF0 (length 17: precision 8, height 720, width 1280, 3 components)
  b.set([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x02, 0xd0, 0x05, 0x00, 0x03], 0);
  const dv = new DataView(b.buffer);
  for (let i = 12; i + 4 <= n - 2; i += 4) dv.setUint32(i, Math.floor(rng() * 4294967296));
  b[n - 2] = 0xff;
  b[n - 1] = 0xd9;
  return b;
}

const TOOLS = ['click', 'write', 'scroll', 'press_keys', 'hover', 'go_back'] as const;
const WORDS = 'the page shows a list of results so I should open the first matching item then check its price against the instruction before answering'.split(' ');

function sentence(rng: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rng() * WORDS.length)] as string);
  return out.join(' ');
}

/** A pointer trace of a uniform choice among 12-40 candidates of 24 hashed features each (what the built-in policy records). */
function pointerTrace(rng: () => number, temperature: number): PolicyTrace {
  const candidates = 12 + Math.floor(rng() * 29);
  const perCandidate = 24;
  const offsets: number[] = [];
  const featureIndex: number[] = [];
  const featureValue: number[] = [];
  for (let c = 0; c < candidates; c++) {
    offsets.push(featureIndex.length);
    for (let f = 0; f < perCandidate; f++) {
      featureIndex.push(Math.floor(rng() * DEFAULT_DIM));
      featureValue.push(1);
    }
  }
  offsets.push(featureIndex.length);
  return make(PolicyTraceSchema, {
    kind: {
      case: 'pointer',
      value: make(PointerTraceSchema, {
        numCandidates: candidates,
        offsets,
        featureIndex,
        featureValue,
        chosen: Math.floor(rng() * candidates),
        // The behaviour log-probability of a uniform choice (the initial policy); later versions'
        // importance ratios then stay near 1 (the features are random, the logits small).
        logprob: -Math.log(candidates),
        temperature: temperature > 0 ? temperature : 1,
      }),
    },
  });
}

function stepOf(index: number, startUrl: string, rng: () => number, last: boolean, answer: string | null, reasoning: string): EpisodeStep<PolicyTrace> {
  const urlBefore = `${startUrl.replace(/\/$/, '')}/p/${index}`;
  const urlAfter = `${startUrl.replace(/\/$/, '')}/p/${index + 1}`;
  const calls: ToolCallResult[] = [];
  if (last && answer !== null) {
    calls.push({ call: { name: 'done', args: { response: answer } }, ok: true, errorCode: '', effects: [{ kind: 'done', line: `done: ${answer}`, evidence: {} }], latencyMs: 1 });
  } else {
    const n = 1 + Math.floor(rng() * 2);
    for (let i = 0; i < n; i++) {
      const name = TOOLS[Math.floor(rng() * TOOLS.length)] ?? 'click';
      const point: [number, number] = [Math.floor(rng() * 1280), Math.floor(rng() * 720)];
      const effect: EffectRecord =
        name === 'write'
          ? { kind: 'value_set', line: `value set to "${sentence(rng, 3)}"`, evidence: { expected: 'x', actual: 'x', element: `e${Math.floor(rng() * 200)}` } }
          : { kind: 'navigated', line: `navigated to ${urlAfter}`, evidence: { url_before: urlBefore, url_after: urlAfter } };
      calls.push({
        call: { name, args: name === 'write' ? { message: sentence(rng, 3) } : { point_2d: point } },
        ok: true,
        errorCode: '',
        effects: [effect, { kind: 'dom_changed', line: 'dom changed: +12 -9 elements', evidence: { added: '12', removed: '9' } }],
        latencyMs: 50 + rng() * 400,
        points: [point],
      });
    }
  }
  return {
    index,
    reasoning,
    results: calls,
    urlBefore,
    urlAfter,
    trace: undefined,
    raw: '',
    parseError: false,
    timing: { policyMs: 0, actionMs: 0, settleMs: 0, observeMs: 0 },
  };
}

/**
 * Pointer traces and step reasoning drawn per episode from a pool made once per runner (per
 * sampling temperature), not anew per step: what a step holds is content the browser and the
 * policy would have produced, work this stand-in does not have to repeat to stand in for it. Made
 * anew per step, the random traces and texts were a quarter of a synthetic actor's CPU and most
 * of its garbage (the bus bench, 2026-12-01), charged to the path it measures. The pooled traces
 * are sealed (sealTrace): encoded once, their bytes copied into each trajectory, where writing
 * the same trace again was 145 of a trajectory's 200 µs of encoding (2026-12-03); a browser actor
 * writes each of its traces once, on its own node. Every trajectory is still built, encoded and
 * published whole, as a browser actor's is.
 */
const POOL = 64;

/**
 * The episode runner of a synthetic actor (see the module comment). Waits run on timers, so one
 * process holds thousands of episodes at once; hurry() ends every wait at once (an actor told to
 * stop publishes what it holds without waiting out the long tail).
 */
export class SyntheticEpisodes {
  private readonly o: SyntheticOptions;
  private readonly waiting = new Set<() => void>();
  private hurried = false;
  /** Episodes started (the first options.staggerFirst wait a residual). */
  private started = 0;
  /** POOL step texts, and POOL pointer traces per temperature (see POOL). */
  private readonly texts: string[];
  private readonly traces = new Map<number, PolicyTrace[]>();

  /** @throws RangeError naming an option out of range. */
  constructor(opts: Partial<SyntheticOptions> = {}) {
    this.o = { ...SYNTHETIC_DEFAULTS, ...opts };
    checkOptions(this.o);
    const rng = mulberry32(0x7e17);
    this.texts = Array.from({ length: POOL }, () => sentence(rng, 60 + Math.floor(rng() * 60)));
  }

  private tracesAt(temperature: number): PolicyTrace[] {
    let pool = this.traces.get(temperature);
    if (!pool) {
      if (this.traces.size >= 8) this.traces.clear();
      const rng = mulberry32(0x7ace);
      pool = Array.from({ length: POOL }, () => sealTrace(pointerTrace(rng, temperature)));
      this.traces.set(temperature, pool);
    }
    return pool;
  }

  get options(): Readonly<SyntheticOptions> {
    return this.o;
  }

  /** Nothing to start (the BrowserPool's counterpart launches Chromium). */
  async start(): Promise<void> {}

  /** Ends what still waits (as hurry()). */
  async close(): Promise<void> {
    this.hurry();
  }

  /** Ends every running wait now and every later one at once (the actor is draining). */
  hurry(): void {
    this.hurried = true;
    for (const wake of [...this.waiting]) wake();
  }

  private wait(ms: number): Promise<void> {
    if (this.hurried || ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiting.add(wake);
    });
  }

  async runEpisode(spec: EpisodeSpec, policy: EpisodePolicy<PolicyTrace>, hooks: EpisodeHooks<PolicyTrace> | undefined, request?: RolloutRequest): Promise<EpisodeResult<PolicyTrace>> {
    void policy;
    if (!request) throw new Error('a synthetic episode needs its rollout request');
    const plan = planEpisode(request, this.o);
    const rng = mulberry32(Number(request.seed % 4294967296n));
    const started = Date.now();
    const task = request.task;
    const accepted = task?.verifier?.kind.case === 'answer' ? (task.verifier.kind.value.accepted[0] ?? '') : 'ok';
    const also = task?.verifier?.alsoAnswer?.accepted[0];
    const answer = plan.outcome === 'success' ? (also ?? accepted) : plan.outcome === 'wrong_answer' ? `not ${accepted}` : null;
    const steps: EpisodeStep<PolicyTrace>[] = [];
    const traces = this.tracesAt(request.temperature);
    // A slot's first episode of a staggered start waits only what is left of one under way.
    const waitS = this.started++ < this.o.staggerFirst ? residualWaitS(request, this.o, mulberry32(Number((request.seed ^ 0x2545f491n) % 4294967296n))) : plan.waitS;
    const perStepMs = (waitS * 1000) / plan.steps;
    // Below the timers' 1 ms resolution (a run compressed for the bus bench) one wait for the
    // whole episode: a wake-up per step would time how busy the machine is, not the episode.
    const stepWaitMs = perStepMs >= 1 ? perStepMs : 0;
    for (let i = 0; i < plan.steps; i++) {
      // The wait is spread over the steps so working() and the step hook run as in a real episode.
      if (stepWaitMs > 0) await this.wait(stepWaitMs);
      const last = i === plan.steps - 1;
      const s = stepOf(i, spec.startUrl, rng, last, last ? answer : null, this.texts[Math.floor(rng() * POOL)] as string);
      s.trace = traces[Math.floor(rng() * POOL)];
      const stepMs = (plan.realS * 1000) / plan.steps;
      s.timing = { policyMs: stepMs * 0.6, actionMs: stepMs * 0.15, settleMs: stepMs * 0.15, observeMs: stepMs * 0.1 };
      // A draining actor (hurry) publishes its trajectories at once, without the remaining steps' pictures.
      if (spec.stepScreenshots && this.o.shotBytes > 0 && !this.hurried) s.screenshot = syntheticScreenshot(this.o.shotBytes, rng);
      steps.push(s);
      await hooks?.onStep?.(s);
    }
    if (stepWaitMs === 0) await this.wait(waitS * 1000);
    const calledDone = answer !== null && (plan.outcome === 'success' || plan.outcome === 'wrong_answer');
    const termination =
      plan.outcome === 'env_error'
        ? { cls: 'ENV_ERROR' as const, reason: 'http_5xx' as const, message: 'synthetic site failure (HTTP 503)' }
        : plan.outcome === 'task_timeout'
          ? { cls: 'ENV_ERROR' as const, reason: 'task_timeout' as const, message: `synthetic episode over the ${this.o.taskTimeoutS} s task budget` }
          : plan.outcome === 'step_budget'
            ? { cls: 'STEP_BUDGET_EXHAUSTED' as const, reason: 'max_steps' as const, message: `${plan.steps} steps` }
            : { cls: 'COMPLETED' as const, reason: 'done' as const, message: '' };
    const finalUrl = steps.at(-1)?.urlAfter ?? spec.startUrl;
    const success = plan.outcome === 'success';
    return {
      steps,
      termination,
      finalAnswer: calledDone ? (answer ?? '') : '',
      calledDone,
      finalUrl,
      pageEval: spec.pageExpression ? { evaluated: true, truthy: success, valueJson: JSON.stringify(success), error: '' } : { evaluated: false, truthy: false, valueJson: '', error: '' },
      diagnostics: {
        latencyTotal: { policyMs: plan.realS * 600, actionMs: plan.realS * 150, settleMs: plan.realS * 150, observeMs: plan.realS * 100 },
        chromiumPssBytes: 0,
        chromiumRssBytes: 0,
        browserUptimeS: 0,
        browserEpisodes: 0,
        initAttempts: 1,
        httpStatus: plan.outcome === 'env_error' ? 503 : 200,
        finalUrl,
        errorName: '',
        errorMessage: '',
        errorStack: '',
        wallMs: Date.now() - started,
        blocked: [],
        blockedTotal: 0,
      },
    };
  }
}
