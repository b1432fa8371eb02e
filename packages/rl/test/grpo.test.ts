import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mulberry32, type Rng } from '@owrl/core';
import { PointerModel, SparseGradient, toCsr } from '@owrl/policy';
import { grpoObjective, type GrpoSample } from '../src/index.js';

function randomTrace(rng: Rng, model: PointerModel, c: number, logprobShift: number): GrpoSample['trace'] {
  const feats = Array.from({ length: c }, () => {
    const n = 1 + Math.floor(rng() * 5);
    return { index: Uint32Array.from({ length: n }, () => Math.floor(rng() * model.dim)), value: Float32Array.from({ length: n }, () => rng()) };
  });
  const csr = toCsr(feats);
  const chosen = Math.floor(rng() * c);
  const lp = model.logProbs(csr)[chosen] ?? 0;
  return { ...csr, chosen, logprob: lp + logprobShift, temperature: model.temperature };
}

function fdCheck(model: PointerModel, samples: GrpoSample[]): { maxErr: number; nonzero: number } {
  const g = new SparseGradient(model.dim);
  grpoObjective(model, samples, {}, g);
  const w = model.weights;
  let maxErr = 0;
  let nonzero = 0;
  for (let j = 0; j < model.dim; j++) {
    const w0 = w[j] ?? 0;
    const eps = 1e-3;
    w[j] = w0 + eps;
    const up = grpoObjective(model, samples).loss;
    w[j] = w0 - eps;
    const down = grpoObjective(model, samples).loss;
    w[j] = w0;
    const fd = (up - down) / (Math.fround(w0 + eps) - Math.fround(w0 - eps));
    maxErr = Math.max(maxErr, Math.abs(fd - g.get(j)));
    if (Math.abs(g.get(j)) > 1e-9) nonzero++;
  }
  return { maxErr, nonzero };
}

void describe('grpoObjective', () => {
  void it('has loss -mean(A) and no clipping at ratio 1', () => {
    const rng = mulberry32(1);
    const m = new PointerModel({ dim: 40, weights: Float32Array.from({ length: 40 }, () => rng() - 0.5) });
    const samples = [1.5, -0.5, 0.25].map((advantage) => ({ trace: randomTrace(rng, m, 4, 0), advantage }));
    const r = grpoObjective(m, samples);
    assert.ok(Math.abs(r.loss - -(1.5 - 0.5 + 0.25) / 3) < 1e-12);
    assert.equal(r.clipFraction, 0);
    assert.ok(Math.abs(r.approxKl) < 1e-12);
    assert.equal(r.actions, 3);
  });

  void it('matches finite differences inside the clip range', () => {
    const rng = mulberry32(2);
    const m = new PointerModel({ dim: 30, weights: Float32Array.from({ length: 30 }, () => rng() * 2 - 1), temperature: 0.8 });
    // Ratios exp(-shift) within [0.8, 1.28]: every action is unclipped.
    const samples = [0.1, -0.15, 0.05, -0.05].map((shift, i) => ({ trace: randomTrace(rng, m, 3 + i, shift), advantage: i % 2 ? -1.2 : 0.9 }));
    const r = grpoObjective(m, samples);
    assert.equal(r.clipFraction, 0);
    const { maxErr, nonzero } = fdCheck(m, samples);
    assert.ok(nonzero > 0);
    assert.ok(maxErr < 1e-5, `max error ${maxErr}`);
  });

  void it('has zero gradient where the clipped branch is active, exact elsewhere', () => {
    const rng = mulberry32(3);
    const m = new PointerModel({ dim: 30, weights: Float32Array.from({ length: 30 }, () => rng() * 2 - 1) });
    // ratio = exp(0.5) = 1.65 > 1.28 with A > 0 → clipped; ratio = exp(-0.5) = 0.61 < 0.8 with A < 0 → clipped.
    const clipped = [
      { trace: randomTrace(rng, m, 4, -0.5), advantage: 1 },
      { trace: randomTrace(rng, m, 5, 0.5), advantage: -1 },
    ];
    const r = grpoObjective(m, clipped);
    assert.equal(r.clipFraction, 1);
    assert.ok(Math.abs(r.loss - -(1.28 * 1 + 0.8 * -1) / 2) < 1e-12);
    const g = new SparseGradient(m.dim);
    grpoObjective(m, clipped, {}, g);
    assert.equal(g.l2(), 0);
    // Outside the range on the other side the unclipped branch is the minimum and trains.
    const unclipped = [
      { trace: randomTrace(rng, m, 4, 0.5), advantage: 1 }, // ratio 0.61, A > 0
      { trace: randomTrace(rng, m, 5, -0.5), advantage: -1 }, // ratio 1.65, A < 0
    ];
    assert.equal(grpoObjective(m, unclipped).clipFraction, 0);
    const mixed = [...clipped, ...unclipped];
    assert.equal(grpoObjective(m, mixed).clipFraction, 0.5);
    const { maxErr, nonzero } = fdCheck(m, mixed);
    assert.ok(nonzero > 0);
    assert.ok(maxErr < 1e-5, `max error ${maxErr}`);
  });

  void it('uses asymmetric clip bounds from the options', () => {
    const rng = mulberry32(4);
    const m = new PointerModel({ dim: 20 });
    const s = [{ trace: randomTrace(rng, m, 3, -0.2), advantage: 1 }]; // ratio 1.22
    assert.equal(grpoObjective(m, s).clipFraction, 0);
    assert.equal(grpoObjective(m, s, { clipHigh: 0.1 }).clipFraction, 1);
    assert.throws(() => grpoObjective(m, [{ trace: { ...s[0]!.trace, logprob: NaN }, advantage: 1 }]), /logprob is NaN/);
  });
});
