// Warm-up of the built-in pointer policy before RL: the scripted solvers' demonstrations on
// training tasks become (candidates, chosen candidate) samples, behaviour cloning (cross-entropy
// with Adam) fits the pointer model to them, and the warmed-up policy is measured on held-out
// tasks through the same browser environment and the tasks' own verifiers.
import { mulberry32 } from '@owrl/core';
import type { BrowserPool } from '@owrl/browser-env';
import { buildCandidates, matchCandidate, PointerModel, toCsr } from '@owrl/policy';
import { Adam, behaviourClone, bcEvaluate, type BcEpochStats, type BcSample } from '@owrl/rl';
import type { Task } from '@owrl/proto';
import { withSession } from '@owrl/tasks';
import { PointerEpisodePolicy } from './pointer-episode.js';
import { recordDemonstration, verifyEpisode, type Demonstration } from './record.js';

/** Samples of the successful demonstrations' steps that the pointer policy can express. */
export function bcSamples(demos: readonly Demonstration[], dim: number): { samples: BcSample[]; steps: number; unmatched: number } {
  const samples: BcSample[] = [];
  let steps = 0;
  let unmatched = 0;
  for (const d of demos) {
    if (d.verdict.status !== 'pass') continue;
    for (const s of d.steps) {
      steps++;
      const cands = buildCandidates(s.input, { dim });
      const target = matchCandidate(cands, s.calls);
      if (target < 0) {
        unmatched++;
        continue;
      }
      samples.push({ candidates: toCsr(cands.map((c) => c.features)), target });
    }
  }
  return { samples, steps, unmatched };
}

export interface SuccessFigure {
  tasks: number;
  success: number;
  rate: number;
  by_difficulty: Record<string, { tasks: number; success: number; rate: number }>;
}

/** Runs `model` (sampling, seeded) once on every task and scores the episodes with the tasks' verifiers. */
export async function measureSuccess(pool: BrowserPool, model: PointerModel, tasks: readonly Task[], opts: { maxSteps: number; seed: number; label: string; parallel?: number }): Promise<SuccessFigure> {
  const fig: SuccessFigure = { tasks: 0, success: 0, rate: 0, by_difficulty: {} };
  const queue = tasks.map((t, i) => ({ t, i }));
  const worker = async (): Promise<void> => {
    for (let x = queue.shift(); x !== undefined; x = queue.shift()) {
      const { t, i } = x;
      const session = `${opts.label}/${i}`;
      const v = t.verifier?.kind;
      const r = await pool.runEpisode(
        {
          startUrl: withSession(t.startUrl, session),
          instruction: t.instruction,
          maxSteps: opts.maxSteps,
          finalScreenshot: false,
          ...(v?.case === 'pageExpression' ? { pageExpression: v.value.expression } : {}),
        },
        new PointerEpisodePolicy(model, { seed: opts.seed + i }),
      );
      const ok = (await verifyEpisode(t, r, session)).status === 'pass';
      const d = (fig.by_difficulty[String(t.difficulty)] ??= { tasks: 0, success: 0, rate: 0 });
      d.tasks++;
      fig.tasks++;
      if (ok) {
        d.success++;
        fig.success++;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.parallel ?? 2 }, worker));
  fig.rate = fig.tasks ? fig.success / fig.tasks : 0;
  for (const d of Object.values(fig.by_difficulty)) d.rate = d.tasks ? d.success / d.tasks : 0;
  return fig;
}

export interface WarmupOptions {
  pool: BrowserPool;
  /** Tasks whose scripted solutions are cloned. */
  train: readonly Task[];
  /** Tasks the warmed-up policy is measured on (none of them in `train`). */
  heldOut: readonly Task[];
  dim: number;
  temperature: number;
  epochs: number;
  lr: number;
  seed: number;
  /** Step budget of held-out episodes. */
  maxSteps: number;
  /** Also measure the untrained (uniform) policy on the held-out tasks. */
  baseline?: boolean;
  parallel?: number;
  log?: (line: string) => void;
}

export interface WarmupResult {
  model: PointerModel;
  demos: { tasks: number; solved: number; steps: number; samples: number; unmatched: number };
  epochs: BcEpochStats[];
  /** Cross-entropy and accuracy of the held-out demonstrations' steps: after warm-up, and of the untrained policy. */
  heldOutFit: BcEpochStats;
  heldOutFitBefore: BcEpochStats;
  /** Training demonstrations the solver did not complete (task id: detail). */
  failures: string[];
  heldOut: SuccessFigure;
  baseline?: SuccessFigure;
  wallS: number;
}

async function recordAll(pool: BrowserPool, tasks: readonly Task[], label: string, parallel: number): Promise<Demonstration[]> {
  const out: Demonstration[] = [];
  const queue = [...tasks];
  const worker = async (): Promise<void> => {
    for (let t = queue.shift(); t !== undefined; t = queue.shift()) out.push(await recordDemonstration(pool, t, { session: `${label}/${t.id}` }));
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return out;
}

/** Clones the scripted solvers on `train` into a fresh pointer model and measures it on `heldOut`. */
export async function warmUp(o: WarmupOptions): Promise<WarmupResult> {
  const t0 = Date.now();
  const log = o.log ?? (() => undefined);
  const parallel = o.parallel ?? 2;
  const train = await recordAll(o.pool, o.train, `warmup-${o.seed}`, parallel);
  const solved = train.filter((d) => d.verdict.status === 'pass').length;
  const { samples, steps, unmatched } = bcSamples(train, o.dim);
  log(`warm-up: ${solved}/${train.length} demonstrations solved, ${samples.length}/${steps} steps expressible by the pointer policy`);
  const model = new PointerModel({ dim: o.dim, temperature: o.temperature });
  const epochs = behaviourClone(model, new Adam(o.dim, { lr: o.lr }), samples, { epochs: o.epochs, rng: mulberry32(o.seed) });
  const last = epochs[epochs.length - 1];
  if (last) log(`warm-up: behaviour cloning ${o.epochs} epochs, train loss ${last.loss.toFixed(3)}, accuracy ${(last.accuracy * 100).toFixed(1)} %`);
  const heldDemos = await recordAll(o.pool, o.heldOut, `warmup-held-${o.seed}`, parallel);
  const heldSamples = bcSamples(heldDemos, o.dim).samples;
  const heldOutFit = bcEvaluate(model, heldSamples);
  const heldOutFitBefore = bcEvaluate(new PointerModel({ dim: o.dim, temperature: o.temperature }), heldSamples);
  const heldOut = await measureSuccess(o.pool, model, o.heldOut, { maxSteps: o.maxSteps, seed: o.seed, label: `warmup-eval-${o.seed}`, parallel });
  log(`warm-up: held-out success ${(heldOut.rate * 100).toFixed(1)} % (${heldOut.success}/${heldOut.tasks}), held-out action accuracy ${(heldOutFit.accuracy * 100).toFixed(1)} %`);
  const res: WarmupResult = {
    model,
    demos: { tasks: train.length, solved, steps, samples: samples.length, unmatched },
    epochs,
    heldOutFit,
    heldOutFitBefore,
    failures: train.filter((d) => d.verdict.status !== 'pass').map((d) => `${d.task.id}: ${d.verdict.detail} ${d.result.termination.message}`.trim()),
    heldOut,
    wallS: (Date.now() - t0) / 1000,
  };
  if (o.baseline) {
    res.baseline = await measureSuccess(o.pool, new PointerModel({ dim: o.dim, temperature: o.temperature }), o.heldOut, {
      maxSteps: o.maxSteps,
      seed: o.seed,
      label: `warmup-base-${o.seed}`,
      parallel,
    });
    log(`warm-up: the untrained policy's held-out success ${(res.baseline.rate * 100).toFixed(1)} %`);
  }
  return res;
}
