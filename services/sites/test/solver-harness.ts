// Shared harness of the scripted-solver tests of the bundled sites: a sites server and a BrowserPool
// around a test file, PlanPolicy episodes through the pool, the task's verifiers (answer match, site
// state) and the solved-and-verified assertion; the plans themselves live in @owrl/demos.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { BrowserPool, PlanPolicy, type BrowserEnvOptions, type EpisodeResult, type PlanStep } from '@owrl/browser-env';
import { matchAnswer } from '@owrl/judge-core';
import type { Task } from '@owrl/proto';
import { withSession } from '@owrl/tasks';
import { startSitesServer, type SitesServer } from '../src/index.js';

export interface SolverHarnessOptions {
  /** Data seed of the sites server (shop catalog, flights, wiki, mailbox). */
  seed: number;
  /** Pool options over the defaults (no screenshots, the test timeouts below); `timeouts` is merged. */
  pool?: Omit<BrowserEnvOptions, 'allowHosts'>;
}

const TEST_TIMEOUTS = { initNavigationMs: 10_000, initRetries: 1, toolCallMs: 10_000, stepMs: 20_000, taskMs: 120_000, closeMs: 5000 };

/** The server and pool of one test file, started in its `before` hook and closed in its `after` hook. */
export class SolverHarness {
  #srv: SitesServer | undefined;
  #pool: BrowserPool | undefined;

  get srv(): SitesServer {
    if (this.#srv === undefined) throw new Error('the sites server is not started (use it inside a test)');
    return this.#srv;
  }

  get pool(): BrowserPool {
    if (this.#pool === undefined) throw new Error('the browser pool is not started (use it inside a test)');
    return this.#pool;
  }

  async start(opts: SolverHarnessOptions): Promise<void> {
    this.#srv = await startSitesServer({ port: 0, seed: opts.seed });
    this.#pool = new BrowserPool({
      screenshots: 0,
      ...opts.pool,
      allowHosts: [`127.0.0.1:${this.#srv.port}`],
      timeouts: { ...TEST_TIMEOUTS, ...opts.pool?.timeouts },
    });
    await this.#pool.start();
  }

  async close(): Promise<void> {
    await this.#pool?.close();
    await this.#srv?.close();
  }

  /**
   * Runs `plan`, the family's route (one entry per step of the task's difficulty), in session
   * `solve/<task id>` and asserts a clean episode that the task's own verifier accepts: the answer
   * (while the answer with `wrongSuffix` appended is rejected), the site state (while an untouched
   * session is rejected), or the page expression.
   */
  async assertSolved(task: Task, plan: readonly PlanStep[], wrongSuffix: string): Promise<void> {
    const session = `solve/${task.id}`;
    assert.equal(plan.length, task.difficulty, `${task.id}: the plan is the family's route`);
    const r = await this.run(task, session, plan);
    assertClean(task, r);
    assert.equal(r.steps.length, task.difficulty);
    switch (task.verifier?.kind.case) {
      case 'answer':
        assert.ok(answerOk(task, r.finalAnswer), `${task.id}: answer ${JSON.stringify(r.finalAnswer)} accepted`);
        assert.equal(answerOk(task, `${r.finalAnswer}${wrongSuffix}`), false, `${task.id}: a wrong answer is rejected`);
        break;
      case 'siteState': {
        const res = await siteState(task, session);
        assert.equal(res.ok, true, `${task.id}: ${res.detail}`);
        assert.equal((await siteState(task, `${session}/untouched`)).ok, false, `${task.id}: an untouched session is rejected`);
        break;
      }
      case 'pageExpression':
        assert.equal(r.pageEval.truthy, true, `${task.id}: ${r.pageEval.error} ${r.pageEval.valueJson}`);
        break;
      default:
        assert.fail(`${task.id} has no verifier`);
    }
  }

  /** Runs `plan` as one episode of `task` in `session`; at most `maxSteps` steps (default: one per plan entry). */
  async run(task: Task, session: string, plan: readonly PlanStep[], opts: { maxSteps?: number; startUrl?: string } = {}): Promise<EpisodeResult<undefined>> {
    return await this.runPolicy(task, session, new PlanPolicy(plan), opts.maxSteps ?? plan.length, opts.startUrl);
  }

  /** Runs `policy` (kept by the caller to look at its inputs) as one episode, with the task's page expression. */
  async runPolicy(task: Task, session: string, policy: PlanPolicy, maxSteps: number, startUrl = task.startUrl): Promise<EpisodeResult<undefined>> {
    const v = task.verifier?.kind;
    return await this.pool.runEpisode(
      {
        startUrl: withSession(startUrl, session),
        instruction: task.instruction,
        maxSteps,
        finalScreenshot: false,
        ...(v?.case === 'pageExpression' ? { pageExpression: v.value.expression } : {}),
      },
      policy,
    );
  }
}

/** A harness whose server and pool this test file's `before` / `after` hooks start and close. */
export function useSolverHarness(opts: SolverHarnessOptions): SolverHarness {
  const h = new SolverHarness();
  before(async () => {
    await h.start(opts);
  });
  after(async () => {
    await h.close();
  });
  return h;
}

/** Asks the task's site-state verifier, exactly as the judge does. */
export async function siteState(task: Task, session: string): Promise<{ ok: boolean; detail: string }> {
  const v = task.verifier?.kind;
  if (v?.case !== 'siteState') throw new Error(`${task.id} has no site-state verifier`);
  const res = await fetch(`${v.value.endpoint}?session=${encodeURIComponent(session)}&spec=${encodeURIComponent(v.value.specJson)}`);
  assert.equal(res.status, 200);
  return (await res.json()) as { ok: boolean; detail: string };
}

export function answerOk(task: Task, answer: string): boolean {
  const v = task.verifier?.kind;
  if (v?.case !== 'answer') throw new Error(`${task.id} has no answer verifier`);
  return matchAnswer(v.value, answer).status === 'pass';
}

/** The episode step by step (calls, failures and effects), for assertion messages. */
export function trail(r: EpisodeResult<undefined>): string {
  return r.steps
    .map((s) => `${s.reasoning}: ${s.results.map((c) => `${c.call.name}${c.ok ? '' : `!${c.errorCode}`} → ${c.effects.map((e) => e.line).join(', ')}`).join('; ')}`)
    .join('\n');
}

/** The episode completed and every tool call of it succeeded. */
export function assertClean(task: Task, r: EpisodeResult<undefined>): void {
  assert.equal(r.termination.cls, 'COMPLETED', `${task.id}: ${r.termination.reason} ${r.termination.message} ${r.diagnostics.errorMessage}\n${trail(r)}`);
  const failed = r.steps.flatMap((s) => s.results.filter((c) => !c.ok).map((c) => `step ${s.index + 1} ${c.call.name}: ${c.errorCode}`));
  assert.deepEqual(failed, [], `${task.id}: every tool call succeeds\n${trail(r)}`);
  // the bundled sites are reached through the browser fence (allowlisted), which refused nothing
  assert.deepEqual(r.diagnostics.blocked, [], `${task.id}: the fence refused none of the site's connections`);
}

/** Runs `fn` over `items` two at a time (the pool's Chromium is shared); throws the first error once all ran. */
export async function inPairs<T>(items: readonly T[], fn: (x: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const errors: unknown[] = [];
  const worker = async (): Promise<void> => {
    for (let x = queue.shift(); x !== undefined; x = queue.shift()) {
      try {
        await fn(x);
      } catch (e) {
        errors.push(e);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  if (errors.length > 0) throw errors[0];
}

export { button, checkbox, finish, link, meta, radio, readText, write } from '@owrl/demos';
