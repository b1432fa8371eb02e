// Prints a GRPO learning curve on the fake shop (a tuning tool, not a test):
//   node packages/rl/dist/test/learning-curve.js <families,...|all> [rounds] [seed|first-last] [lr] [temperature] [maxSteps] [trustKl] [trainer options JSON]
// e.g. '{"epochs":2,"minibatches":1}' for the earlier two full-batch epochs; the trainer's defaults
// (DEFAULT_UPDATE) otherwise. Two more keys shape the rounds instead of the update:
// `tasksPerRound` (groups per round, default 8) and `groupSize` (rollouts per group, default 5),
// e.g. '{"tasksPerRound":4,"groupSize":10}' for the same rollouts in fewer, larger groups. After each seed's run a JSON summary: first round, mean of the last
// three, mean over all rounds, held-out success, last-epoch clip fraction (mean, max), KL after.
// A seed range (e.g. 1-10) runs each seed from the uniform policy in turn (one process, one core)
// and ends with a JSON line of the means over the seeds (and the per-seed held-out success).
// Without arguments it does nothing (node --test on the folder runs every file in it).
import { DEFAULT_DIM, initialModel } from '@owrl/policy';
import { Adam, DEFAULT_UPDATE, GrpoTrainer, type GrpoTrainerOptions } from '../src/index.js';
import { FAMILIES, type Family } from './fake-shop.js';
import { evaluate, runRound } from './learning.js';

if (process.argv.length < 3) process.exit(0);
const [famArg = 'price,sku,add_to_cart', roundsArg = '30', seedArg = '1', lrArg = '0.05', tArg = '1', msArg = '15', klArg = String(DEFAULT_UPDATE.trustKl), optArg = '{}'] = process.argv.slice(2);
const families = (famArg === 'all' ? FAMILIES : famArg.split(',')) as Family[];
const { tasksPerRound = 8, groupSize = 5, maxGroups = tasksPerRound, ...extra } = JSON.parse(optArg) as GrpoTrainerOptions & { tasksPerRound?: number; groupSize?: number; maxGroups?: number };
const mean = (a: readonly number[]) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : 0);
const range = /^(\d+)-(\d+)$/.exec(seedArg);
const seeds = range ? Array.from({ length: Number(range[2]) - Number(range[1]) + 1 }, (_, i) => Number(range[1]) + i) : [Number(seedArg)];

interface Summary {
  first: number | undefined;
  last3: number;
  mean: number;
  eval: number;
  clip_last_mean: number;
  clip_last_max: number;
  kl_after_mean: number;
}

function run(seed: number): Summary {
  const model = initialModel({ dim: DEFAULT_DIM, temperature: Number(tArg) });
  const trainer = new GrpoTrainer(model, new Adam(model.dim, { lr: Number(lrArg) }), { trustKl: Number(klArg), ...extra });
  const t0 = Date.now();
  const curve: number[] = [];
  const lastClip: number[] = [];
  const klAfter: number[] = [];
  for (let r = 0; r < Number(roundsArg); r++) {
    const res = runRound(trainer, families, { round: r, seed, tasksPerRound, groupSize, maxSteps: Number(msArg), maxGroups });
    curve.push(res.success);
    const last = res.stats.epochs[res.stats.epochs.length - 1];
    if (last) {
      lastClip.push(last.clipFraction);
      klAfter.push(last.approxKlAfter);
    }
    const fam = Object.entries(res.byFamily).map(([k, v]) => `${k}=${v.toFixed(2)}`).join(' ');
    console.log(`round ${String(r).padStart(2)} success ${res.success.toFixed(2)} kept ${res.stats.fates.kept}/${res.stats.groups} actions ${res.stats.actions} ${fam} ${res.stats.epochs.map((e) => `[clip ${e.clipFraction.toFixed(2)} kl ${e.approxKl.toFixed(3)}→${e.approxKlAfter.toFixed(3)} x${e.stepScale.toFixed(2)}]`).join(' ')} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
  }
  const held = evaluate(model, families, { seed: 999, episodes: 40, maxSteps: Number(msArg) });
  console.log('eval', JSON.stringify(held));
  return {
    first: curve[0],
    last3: Number(mean(curve.slice(-3)).toFixed(3)),
    mean: Number(mean(curve).toFixed(3)),
    eval: Number(mean(Object.values(held)).toFixed(3)),
    clip_last_mean: Number(mean(lastClip).toFixed(3)),
    clip_last_max: Number(Math.max(0, ...lastClip).toFixed(3)),
    kl_after_mean: Number(mean(klAfter).toFixed(4)),
  };
}

const all: Summary[] = [];
for (const seed of seeds) {
  const s = run(seed);
  all.push(s);
  console.log(JSON.stringify(range ? { seed, ...s } : s));
}
if (range) {
  const m = (k: 'last3' | 'mean' | 'eval' | 'clip_last_mean' | 'kl_after_mean') => Number(mean(all.map((s) => s[k])).toFixed(3));
  console.log(
    JSON.stringify({
      seeds: seedArg,
      last3: m('last3'),
      mean: m('mean'),
      eval: m('eval'),
      eval_by_seed: all.map((s) => s.eval),
      clip_last_mean: m('clip_last_mean'),
      clip_last_max: Number(Math.max(...all.map((s) => s.clip_last_max)).toFixed(3)),
      kl_after_mean: m('kl_after_mean'),
    }),
  );
}
