// Prints a GRPO learning curve on the fake shop (a tuning tool, not a test):
//   node packages/rl/dist/test/learning-curve.js <families,...|all> [rounds] [seed] [lr] [temperature] [maxSteps] [trustKl]
// Without arguments it does nothing (node --test on the folder runs every file in it).
import { DEFAULT_DIM, initialModel } from '@owrl/policy';
import { Adam, DEFAULT_TRUST_KL, GrpoTrainer } from '../src/index.js';
import { FAMILIES, type Family } from './fake-shop.js';
import { evaluate, runRound } from './learning.js';

if (process.argv.length < 3) process.exit(0);
const [famArg = 'price,sku,add_to_cart', roundsArg = '30', seedArg = '1', lrArg = '0.05', tArg = '1', msArg = '15', klArg = String(DEFAULT_TRUST_KL)] = process.argv.slice(2);
const families = (famArg === 'all' ? FAMILIES : famArg.split(',')) as Family[];
const model = initialModel({ dim: DEFAULT_DIM, temperature: Number(tArg) });
const trainer = new GrpoTrainer(model, new Adam(model.dim, { lr: Number(lrArg) }), { epochs: 2, trustKl: Number(klArg) });
const t0 = Date.now();
for (let r = 0; r < Number(roundsArg); r++) {
  const res = runRound(trainer, families, { round: r, seed: Number(seedArg), tasksPerRound: 8, groupSize: 5, maxSteps: Number(msArg) });
  const fam = Object.entries(res.byFamily).map(([k, v]) => `${k}=${v.toFixed(2)}`).join(' ');
  console.log(`round ${String(r).padStart(2)} success ${res.success.toFixed(2)} kept ${res.stats.fates.kept}/${res.stats.groups} actions ${res.stats.actions} ${fam} ${res.stats.epochs.map((e) => `[clip ${e.clipFraction.toFixed(2)} kl ${e.approxKl.toFixed(3)}→${e.approxKlAfter.toFixed(3)} x${e.stepScale.toFixed(2)}]`).join(' ')} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
}
console.log('eval', JSON.stringify(evaluate(model, families, { seed: 999, episodes: 40, maxSteps: Number(msArg) })));
