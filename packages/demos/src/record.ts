// Demonstrations of the scripted solvers: a task's plan played through the environment's tools
// (BrowserPool + PlanPolicy in real Chromium) while every step's input (observation, history) and
// decision (reasoning, tool calls) is recorded, then the task's own verifier decides whether the
// episode succeeded, exactly as the judge's programmatic verdict does.
import { PlanPolicy, type BrowserPool, type EpisodePolicy, type EpisodeResult, type PolicyInput, type StepDecision } from '@owrl/browser-env';
import { createVerifiers, ExcludedReason, type CheckResult } from '@owrl/judge-core';
import { create, PageEvalSchema, type Task } from '@owrl/proto';
import { parseTaskLine, withSession } from '@owrl/tasks';
import { planFor } from './plans/index.js';
import { describeStep } from './sft.js';
import type { DemoStep } from './demo-step.js';

export type { DemoStep } from './demo-step.js';

export interface Demonstration {
  task: Task;
  /** Session the episode ran in (the site state of the run is kept under it). */
  session: string;
  steps: DemoStep[];
  result: EpisodeResult<undefined>;
  /** The task's verifier on the episode (`pass` for a successful demonstration). */
  verdict: CheckResult;
}

/** Records the inputs and decisions of a policy it wraps; screenshots are taken when `screenshots`. */
class RecordingPolicy implements EpisodePolicy<undefined> {
  readonly steps: DemoStep[] = [];
  constructor(
    private readonly inner: EpisodePolicy<undefined>,
    readonly needsScreenshot: boolean,
  ) {}

  async decide(input: PolicyInput, signal: AbortSignal): Promise<StepDecision<undefined>> {
    const d = await this.inner.decide(input, signal);
    // A plan's own reasoning is a step counter; the recorded (and replayed) reasoning says what the step does.
    const reasoning = describeStep({ input, reasoning: d.reasoning, calls: d.calls });
    this.steps.push({ input, reasoning, calls: d.calls });
    return { ...d, reasoning };
  }
}

const verifiers = createVerifiers();

/**
 * The verdict of the task's programmatic verifier on an episode: answer match, site state (asked
 * of the site with the episode's session) or the page expression evaluated in the final page.
 * A task without a verifier is `unavailable`.
 */
export async function verifyEpisode(task: Task, result: EpisodeResult<unknown>, session: string, timeoutMs = 10_000): Promise<CheckResult> {
  if (result.termination.cls !== 'COMPLETED') return { status: 'fail', detail: `episode ended ${result.termination.cls} (${result.termination.reason})` };
  const v = task.verifier?.kind;
  switch (v?.case) {
    case 'answer':
      return verifiers.answer(v.value, result.finalAnswer);
    case 'siteState':
      return await verifiers.siteState(v.value, { sessionId: session, baseUrl: task.startUrl, timeoutMs });
    case 'pageExpression':
      return verifiers.pageExpression(v.value, create(PageEvalSchema, result.pageEval));
    default:
      return { status: 'unavailable', reason: ExcludedReason.NoVerdictSource, detail: `${task.id} has no programmatic verifier` };
  }
}

export interface RecordOptions {
  /** Session id of the episode (default `demo/<task id>`; must be a valid session id). */
  session?: string;
  /** Take screenshots for the observations (for image SFT data); default false. */
  screenshots?: boolean;
  /** Extra steps allowed beyond the plan (default 0: exactly the family's route). */
  slack?: number;
}

/** Plays the task's scripted solver once and returns the recorded demonstration with its verdict. */
export async function recordDemonstration(pool: BrowserPool, task: Task, opts: RecordOptions = {}): Promise<Demonstration> {
  const session = opts.session ?? `demo/${task.id}`;
  const plan = planFor(task);
  const rec = new RecordingPolicy(new PlanPolicy(plan), opts.screenshots ?? false);
  const v = task.verifier?.kind;
  const result = await pool.runEpisode(
    {
      startUrl: withSession(task.startUrl, session),
      instruction: task.instruction,
      maxSteps: plan.length + (opts.slack ?? 0),
      finalScreenshot: false,
      ...(v?.case === 'pageExpression' ? { pageExpression: v.value.expression } : {}),
    },
    rec,
  );
  return { task, session, steps: rec.steps, result, verdict: await verifyEpisode(task, result, session) };
}

/** Tasks of a bundled suite from a sites server (`/__owrl/tasks`, generated with the server's data seed). */
export async function fetchSuiteTasks(sitesUrl: string, suite: string, opts: { seed: number; n: number; difficulties?: readonly number[] }): Promise<Task[]> {
  const url = new URL('/__owrl/tasks', sitesUrl);
  url.searchParams.set('suite', suite);
  url.searchParams.set('seed', String(opts.seed));
  url.searchParams.set('n', String(opts.n));
  if (opts.difficulties && opts.difficulties.length > 0) url.searchParams.set('difficulties', opts.difficulties.join(','));
  const res = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`cannot get tasks of suite ${suite} from ${url.href}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  return text
    .split('\n')
    .map((l, i) => ({ l, i }))
    .filter((x) => x.l.trim() !== '')
    .map((x) => parseTaskLine(x.l, x.i + 1));
}
