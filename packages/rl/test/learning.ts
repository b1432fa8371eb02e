// GRPO rounds of the pointer policy on the fake shop: sample episodes with the TypeScript model
// (the same candidates and features the actors use), score them with the task verifiers, update.
import { mulberry32, type Rng } from '@owrl/core';
import { buildCandidates, toCsr, type PointerModel } from '@owrl/policy';
import { type GroupLike, type GrpoTrainer, type PointerTraceLike, type UpdateStats } from '../src/index.js';
import { FakeSession, makeTask, type Family, type FakeTask } from './fake-shop.js';

export interface Episode {
  reward: number;
  steps: PointerTraceLike[];
  labels: string[];
}

export function runEpisode(model: PointerModel, task: FakeTask, maxSteps: number, rng: Rng): Episode {
  const s = new FakeSession(task);
  const steps: PointerTraceLike[] = [];
  const labels: string[] = [];
  for (let step = 0; step < maxSteps; step++) {
    const obs = s.observe();
    const cands = buildCandidates({ instruction: task.instruction, observation: obs, history: s.history, step, maxSteps }, { dim: model.dim });
    const csr = toCsr(cands.map((c) => c.features));
    const { index, logprob } = model.sample(csr, rng);
    const c = cands[index];
    if (!c) throw new Error('sampled no candidate');
    steps.push({ ...csr, chosen: index, logprob, temperature: model.temperature });
    labels.push(c.label);
    const done = s.act(c.calls, `${c.label} (p=${Math.exp(logprob).toFixed(2)})`, step);
    if (done !== undefined) return { reward: task.verify(done, s.cart), steps, labels };
  }
  return { reward: 0, steps, labels };
}

export interface RoundResult {
  success: number;
  byFamily: Partial<Record<Family, number>>;
  stats: UpdateStats;
}

/** One round: `tasksPerRound` tasks (families round-robin) × `groupSize` episodes, then an update. */
export function runRound(
  trainer: GrpoTrainer,
  families: readonly Family[],
  opts: { round: number; seed: number; tasksPerRound: number; groupSize: number; maxSteps: number; maxGroups?: number },
): RoundResult {
  const rng = mulberry32(opts.seed * 7919 + opts.round);
  const groups: GroupLike[] = [];
  const fam: Record<string, [number, number]> = {};
  let ok = 0;
  let n = 0;
  // Dynamic sampling as the learner does it (maxGroups > tasksPerRound): once a round's groups are
  // back, groups whose rewards all agree are refilled with new tasks, up to maxGroups in all.
  const maxGroups = Math.max(opts.tasksPerRound, opts.maxGroups ?? opts.tasksPerRound);
  let want = opts.tasksPerRound;
  for (let t = 0; t < want; t++) {
    const family = families[(opts.round * maxGroups + t) % families.length] as Family;
    const task = makeTask(rng, family);
    const eps = Array.from({ length: opts.groupSize }, () => runEpisode(trainer.model, task, opts.maxSteps, rng));
    groups.push({ rewards: eps.map((e) => e.reward), trajectories: eps.map((e) => ({ steps: e.steps })) });
    for (const e of eps) {
      ok += e.reward;
      n++;
      const f = (fam[family] ??= [0, 0]);
      f[0] += e.reward;
      f[1]++;
    }
    if (t === want - 1 && want < maxGroups) {
      const kept = groups.filter((g) => g.rewards.some((r) => r !== g.rewards[0])).length;
      want = Math.min(maxGroups, want + Math.max(0, opts.tasksPerRound - kept));
    }
  }
  const stats = trainer.update(groups);
  const byFamily: Partial<Record<Family, number>> = {};
  for (const [k, [a, b]] of Object.entries(fam)) byFamily[k as Family] = a / b;
  return { success: ok / n, byFamily, stats };
}

/** Success rate of the current model without updating (fresh tasks). */
export function evaluate(model: PointerModel, families: readonly Family[], opts: { seed: number; episodes: number; maxSteps: number }): Partial<Record<Family, number>> {
  const rng = mulberry32(opts.seed);
  const out: Partial<Record<Family, number>> = {};
  for (const f of families) {
    let ok = 0;
    for (let i = 0; i < opts.episodes; i++) ok += runEpisode(model, makeTask(rng, f), opts.maxSteps, rng).reward;
    out[f] = ok / opts.episodes;
  }
  return out;
}
