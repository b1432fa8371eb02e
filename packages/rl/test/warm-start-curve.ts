// Compares update rules from a warm start on the fake shop (a tuning tool, not a test): trains
// `warmRounds` rounds with two full-batch epochs, then from those weights 12 rounds with a fresh
// Adam under each rule (as after the demo's warm-up), one JSON line per rule:
//   node packages/rl/dist/test/warm-start-curve.js <families,...|all> [warmRounds] [seed] [name=trainer options JSON ...]
// e.g. 'group={"deal":"group"}' adds a rule to the two compared by default; an `lr` key in a rule's
// JSON sets its Adam learning rate (default ADAM_DEFAULTS.lr), e.g. 'big={"lr":0.1,"trustKl":0.2}'.
// Without arguments it does nothing (node --test on the folder runs every file in it).
import { DEFAULT_DIM, initialModel } from '@owrl/policy';
import { Adam, GrpoTrainer, type GrpoTrainerOptions } from '../src/index.js';
import { FAMILIES, type Family } from './fake-shop.js';
import { evaluate, runRound } from './learning.js';

if (process.argv.length < 3) process.exit(0);
const [famArg = 'all', warmArg = '25', seedArg = '1', ...ruleArgs] = process.argv.slice(2);
const families = (famArg === 'all' ? FAMILIES : famArg.split(',')) as Family[];
const seed = Number(seedArg);
const model = initialModel({ dim: DEFAULT_DIM });
const warm = new GrpoTrainer(model, new Adam(model.dim), { epochs: 2, minibatches: 1 });
for (let r = 0; r < Number(warmArg); r++) runRound(warm, families, { round: r, seed, tasksPerRound: 8, groupSize: 5, maxSteps: 15 });
const start = Float32Array.from(model.weights);
const mean = (a: readonly number[]) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : 0);
type Rule = GrpoTrainerOptions & { lr?: number };
const rules: [string, Rule][] = [
  ['2 epochs x 1 minibatch', { epochs: 2, minibatches: 1 }],
  ['default', {}],
  ...ruleArgs.map((a): [string, Rule] => {
    const eq = a.indexOf('=');
    return [a.slice(0, eq), JSON.parse(a.slice(eq + 1)) as Rule];
  }),
];
for (const [name, { lr, ...opts }] of rules) {
  model.weights.set(start);
  const t = new GrpoTrainer(model, new Adam(model.dim, lr === undefined ? {} : { lr }), opts);
  const curve: number[] = [];
  const clips: number[] = [];
  for (let r = 0; r < 12; r++) {
    const res = runRound(t, families, { round: 100 + r, seed, tasksPerRound: 8, groupSize: 5, maxSteps: 15 });
    curve.push(res.success);
    const last = res.stats.epochs[res.stats.epochs.length - 1];
    if (last) clips.push(last.clipFraction);
  }
  const held = evaluate(model, families, { seed: 999, episodes: 40, maxSteps: 15 });
  console.log(JSON.stringify({ rule: name, seed, first: curve[0], last3: Number(mean(curve.slice(-3)).toFixed(3)), mean: Number(mean(curve).toFixed(3)), eval: Number(mean(Object.values(held)).toFixed(3)), clip_last_mean: Number(mean(clips).toFixed(3)) }));
}
