import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mulberry32 } from '@owrl/core';
import { PointerModel, SparseGradient, toCsr } from '@owrl/policy';
import { Adam, bcEvaluate, behaviourClone, type BcSample } from '../src/index.js';

const f = (...ix: number[]) => ({ index: Uint32Array.from(ix), value: Float32Array.from(ix.map(() => 1)) });

// Three candidates per decision; the demonstrator always picks the one carrying feature 5,
// wherever it sits in the list.
function samples(n: number): BcSample[] {
  return Array.from({ length: n }, (_, i) => {
    const target = i % 3;
    const cands = [0, 1, 2].map((k) => (k === target ? f(5, k) : f(6 + k, k)));
    return { candidates: toCsr(cands), target };
  });
}

void describe('behaviourClone', () => {
  void it('fits the demonstrated choices: loss falls from log 3 and top-1 accuracy reaches 1', () => {
    const m = new PointerModel({ dim: 16 });
    const before = bcEvaluate(m, samples(12));
    assert.ok(Math.abs(before.loss - Math.log(3)) < 1e-9);
    const stats = behaviourClone(m, new Adam(16, { lr: 0.1 }), samples(12), { epochs: 20, batchSize: 4, rng: mulberry32(1) });
    assert.equal(stats.length, 20);
    const last = stats[19];
    assert.ok(last && last.loss < 0.2, `loss ${last?.loss}`);
    assert.equal(last.accuracy, 1);
    assert.ok((m.weights[5] ?? 0) > 0, 'the demonstrated feature gains weight');
  });

  void it('descends the cross-entropy: the step moves the weights against the gradient of −log π', () => {
    const m = new PointerModel({ dim: 16 });
    const s = samples(3);
    const g = new SparseGradient(16);
    for (const x of s) m.gradLogProb(x.candidates, x.target, g, 1);
    behaviourClone(m, new Adam(16, { lr: 0.01 }), s, { epochs: 1, batchSize: 3, rng: mulberry32(2) });
    for (let i = 0; i < 16; i++) {
      const d = g.values[i] ?? 0;
      if (Math.abs(d) > 1e-9) assert.equal(Math.sign(m.weights[i] ?? 0), Math.sign(d), `feature ${i}`);
    }
  });

  void it('rejects a target outside the candidates and bad settings', () => {
    const m = new PointerModel({ dim: 16 });
    assert.throws(() => bcEvaluate(m, [{ candidates: toCsr([f(1)]), target: 3 }]), /target 3 is outside the 1 candidates/);
    assert.throws(() => behaviourClone(m, new Adam(16), samples(3), { epochs: 1, batchSize: 0, rng: mulberry32(1) }), /batchSize is 0/);
    assert.throws(() => behaviourClone(m, new Adam(8), samples(3), { epochs: 1, rng: mulberry32(1) }), /optimizer dim 8 differs from model dim 16/);
  });
});
