import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PointerModel, toCsr } from '@owrl/policy';
import { Adam, GrpoTrainer, type PointerTraceLike } from '../src/index.js';

// One decision between two candidates with disjoint features; choosing candidate 1 is rewarded.
function step(model: PointerModel, chosen: number): PointerTraceLike {
  const csr = toCsr([
    { index: Uint32Array.of(0), value: Float32Array.of(1) },
    { index: Uint32Array.of(1), value: Float32Array.of(1) },
  ]);
  return { ...csr, chosen, logprob: model.logProbs(csr)[chosen] ?? 0, temperature: model.temperature };
}

void describe('GrpoTrainer', () => {
  void it('drops equal-reward groups and leaves the weights alone', () => {
    const m = new PointerModel({ dim: 4 });
    const t = new GrpoTrainer(m, new Adam(4));
    const s = t.update([
      { rewards: [0, 0], trajectories: [{ steps: [step(m, 0)] }, { steps: [step(m, 1)] }] },
      { rewards: [1, 1], trajectories: [{ steps: [step(m, 0)] }, { steps: [step(m, 1)] }] },
    ]);
    assert.equal(s.updated, false);
    assert.deepEqual(s.fates, { kept: 0, dropped_all_zero: 1, dropped_all_one: 1, dropped_all_equal: 0 });
    assert.deepEqual(Array.from(m.weights), [0, 0, 0, 0]);
  });

  void it('raises the probability of rewarded actions, over every step of a trajectory', () => {
    const m = new PointerModel({ dim: 4 });
    const t = new GrpoTrainer(m, new Adam(4, { lr: 0.1 }), { epochs: 2 });
    for (let round = 0; round < 5; round++) {
      const s = t.update([{ rewards: [1, 0, 0], trajectories: [{ steps: [step(m, 1), step(m, 1)] }, { steps: [step(m, 0)] }, { steps: [step(m, 0), step(m, 1)] }] }]);
      assert.equal(s.updated, true);
      assert.equal(s.actions, 5);
      assert.equal(s.epochs.length, 2);
      assert.ok(Math.abs(s.epochs[0]?.approxKl ?? 1) < 1e-12, 'first epoch is on-policy');
    }
    const p1 = Math.exp(m.logProbs(toCsr([{ index: Uint32Array.of(0), value: Float32Array.of(1) }, { index: Uint32Array.of(1), value: Float32Array.of(1) }]))[1] ?? 0);
    assert.ok(p1 > 0.8, `p(rewarded) = ${p1}`);
  });

  void it('rejects groups whose rewards and trajectories disagree', () => {
    const m = new PointerModel({ dim: 4 });
    const t = new GrpoTrainer(m, new Adam(4));
    assert.throws(() => t.update([{ rewards: [1, 0], trajectories: [{ steps: [] }] }]), /groups\[0\] has 2 rewards but 1 trajectories/);
  });
});
