// The most important property of the built-in policy: GRPO from all-zero weights learns the
// shop's task families with the shipped features and hyperparameters (browser-free fake shop,
// fresh random catalog per task so that only generic features can succeed).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_DIM, initialModel } from '@owrl/policy';
import { ADAM_DEFAULTS, Adam, GrpoTrainer } from '../src/index.js';
import { type Family } from './fake-shop.js';
import { evaluate, runRound } from './learning.js';

void describe('GRPO learning on the fake shop', () => {
  void it('goes from < 0.3 to > 0.8 success on price / sku / add_to_cart within 30 rounds', () => {
    const families: Family[] = ['price', 'sku', 'add_to_cart'];
    const model = initialModel({ dim: DEFAULT_DIM });
    const trainer = new GrpoTrainer(model, new Adam(model.dim, { lr: ADAM_DEFAULTS.lr }));
    const curve: number[] = [];
    for (let round = 0; round < 30; round++) {
      curve.push(runRound(trainer, families, { round, seed: 1, tasksPerRound: 8, groupSize: 5, maxSteps: 15 }).success);
    }
    const line = curve.map((s) => s.toFixed(2)).join(' ');
    assert.ok((curve[0] ?? 1) < 0.3 && (curve[1] ?? 1) < 0.3, `starts low: ${line}`);
    const last5 = curve.slice(-5).reduce((a, b) => a + b, 0) / 5;
    assert.ok(last5 > 0.8, `ends high (last 5 rounds ${last5.toFixed(2)}): ${line}`);
    const held = evaluate(model, families, { seed: 12345, episodes: 30, maxSteps: 15 });
    const mean = families.reduce((a, f) => a + (held[f] ?? 0), 0) / families.length;
    assert.ok(mean > 0.8, `fresh tasks: ${JSON.stringify(held)}`);
    for (const f of families) assert.ok((held[f] ?? 0) > 0.6, `fresh ${f} tasks: ${JSON.stringify(held)}`);
  });
});
