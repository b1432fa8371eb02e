// Prints a GRPO learning curve on the fake shop (a tuning tool, not a test):
//   node packages/rl/dist/test/learning-curve.js <families,...|all> [rounds] [seed] [lr] [temperature] [maxSteps] [trustKl] [trainer options JSON]
// e.g. '{"epochs":2,"minibatches":1}' for the earlier two full-batch epochs; the trainer's defaults
// (DEFAULT_UPDATE) otherwise. The last line is a JSON summary: first round, mean of the last
// three, mean over all rounds, held-out success, last-epoch clip fraction (mean, max), KL after.
// Without arguments it does nothing (node --test on the folder runs every file in it).
import { DEFAULT_DIM, initialModel } from '@owrl/policy';
import { Adam, DEFAULT_UPDATE, GrpoTrainer, type GrpoTrainerOptions } from '../src/index.js';
import { FAMILIES, type Family } from './fake-shop.js';
import { evaluate, runRound } from './learning.js';

if (process.argv.length < 3) process.exit(0);
const [famArg = 'price,sku,add_to_cart', roundsArg = '30', seedArg = '1', lrArg = '0.05', tArg = '1', msArg = '15', klArg = String(DEFAULT_UPDATE.trustKl), optArg = '{}'] = process.argv.slice(2);
const families = (famArg === 'all' ? FAMILIES : famArg.split(',')) as Family[];
const model = initialModel({ dim: DEFAULT_DIM, temperature: Number(tArg) });
const extra = JSON.parse(optArg) as GrpoTrainerOptions;
const trainer = new GrpoTrainer(model, new Adam(model.dim, { lr: Number(lrArg) }), { trustKl: Number(klArg), ...extra });
const t0 = Date.now();
const curve: number[] = [];
const lastClip: number[] = [];
const klAfter: number[] = [];
for (let r = 0; r < Number(roundsArg); r++) {
  const res = runRound(trainer, families, { round: r, seed: Number(seedArg), tasksPerRound: 8, groupSize: 5, maxSteps: Number(msArg) });
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
const mean = (a: readonly number[]) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : 0);
console.log('eval', JSON.stringify(held));
console.log(
  JSON.stringify({
    first: curve[0],
    last3: Number(mean(curve.slice(-3)).toFixed(3)),
    mean: Number(mean(curve).toFixed(3)),
    eval: Number(mean(Object.values(held)).toFixed(3)),
    clip_last_mean: Number(mean(lastClip).toFixed(3)),
    clip_last_max: Number(Math.max(0, ...lastClip).toFixed(3)),
    kl_after_mean: Number(mean(klAfter).toFixed(4)),
  }),
);
