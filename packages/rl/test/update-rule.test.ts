// The shipped update rule (DEFAULT_UPDATE: one pass in six minibatches, each Adam step inside the KL
// trust region) keeps the last epoch's clip fraction in the healthy 0.1–0.3 range on the fake
// shop, where the earlier rule (two full-batch epochs, same trust region) overshoots past it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_DIM, initialModel } from '@owrl/policy';
import { Adam, DEFAULT_UPDATE, GrpoTrainer, type GrpoTrainerOptions } from '../src/index.js';
import { type Family } from './fake-shop.js';
import { runRound } from './learning.js';

const families: Family[] = ['price', 'sku', 'add_to_cart'];

function lastEpochClips(opts: GrpoTrainerOptions): { clips: number[]; success: number[] } {
  const model = initialModel({ dim: DEFAULT_DIM });
  const trainer = new GrpoTrainer(model, new Adam(model.dim), opts);
  const clips: number[] = [];
  const success: number[] = [];
  for (let round = 0; round < 10; round++) {
    const r = runRound(trainer, families, { round, seed: 2, tasksPerRound: 8, groupSize: 5, maxSteps: 15 });
    success.push(r.success);
    const last = r.stats.epochs[r.stats.epochs.length - 1];
    if (last) clips.push(last.clipFraction);
  }
  return { clips, success };
}

const mean = (a: readonly number[]) => a.reduce((x, y) => x + y, 0) / a.length;

void describe('the default update rule', () => {
  void it('is one pass of six minibatches inside the 0.1 KL trust region', () => {
    const t = new GrpoTrainer(initialModel({ dim: 8 }), new Adam(8));
    assert.deepEqual(
      { epochs: t.epochs, minibatches: t.minibatches, trustKl: t.trustKl, deal: t.deal, trustScope: t.trustScope, maxStepScale: t.maxStepScale },
      DEFAULT_UPDATE,
    );
    assert.deepEqual(DEFAULT_UPDATE, { epochs: 1, minibatches: 6, trustKl: 0.1, deal: 'trajectory', trustScope: 'minibatch', maxStepScale: 1 });
  });

  void it('keeps the last epoch clip fraction in 0.1–0.3 where two full-batch epochs overshoot', () => {
    const now = lastEpochClips({});
    const before = lastEpochClips({ epochs: 2, minibatches: 1 });
    const fmt = (a: readonly number[]) => a.map((x) => x.toFixed(2)).join(' ');
    assert.ok(now.clips.length >= 5 && before.clips.length >= 5, 'enough rounds updated');
    const m = mean(now.clips);
    assert.ok(m >= 0.1 && m <= 0.3, `default rule: last-epoch clip mean ${m.toFixed(3)} (${fmt(now.clips)})`);
    const mb = mean(before.clips);
    assert.ok(mb > 0.3, `two full-batch epochs: last-epoch clip mean ${mb.toFixed(3)} (${fmt(before.clips)})`);
    // and it learns at least as fast on these rounds
    assert.ok(mean(now.success) >= mean(before.success), `success ${fmt(now.success)} vs ${fmt(before.success)}`);
  });
});
