import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mulberry32 } from '@owrl/core';
import { PointerModel, PolicyError, SparseGradient, exportOnnx, initialModel, readOnnxWeights, toCsr } from '../src/index.js';
import { randomFeatures } from './fixtures.js';

void describe('PointerModel', () => {
  void it('is uniform with zero weights', () => {
    const m = initialModel({ dim: 64 });
    const lp = m.logProbs(randomFeatures(mulberry32(1), 7, 5, 64));
    for (const v of lp) assert.ok(Math.abs(v - Math.log(1 / 7)) < 1e-12);
  });

  void it('computes logits as (w · x) / T', () => {
    const m = new PointerModel({ dim: 4, weights: Float32Array.of(1, -2, 0.5, 3), temperature: 2 });
    const lg = m.logits([
      { index: Uint32Array.of(0, 3), value: Float32Array.of(1, 0.5) },
      { index: Uint32Array.of(1, 1), value: Float32Array.of(1, 1) },
    ]);
    assert.deepEqual(Array.from(lg), [(1 + 1.5) / 2, -4 / 2]);
  });

  void it('has the exact gradient of log softmax (finite differences)', () => {
    const rng = mulberry32(7);
    for (const [c, t] of [[1, 1], [5, 1], [12, 0.7]] as const) {
      const dim = 50; // small: indices repeat within and across candidates
      const weights = Float32Array.from({ length: dim }, () => rng() * 2 - 1);
      const m = new PointerModel({ dim, weights, temperature: t });
      const csr = toCsr(randomFeatures(rng, c, 6, dim));
      const chosen = Math.floor(rng() * c);
      const g = new SparseGradient(dim);
      const lp = m.gradLogProb(csr, chosen, g);
      assert.ok(Math.abs(lp - (m.logProbs(csr)[chosen] ?? 0)) < 1e-12);
      const eps = 1e-2;
      for (let j = 0; j < dim; j++) {
        const w0 = weights[j] ?? 0;
        weights[j] = w0 + eps;
        const up = m.logProbs(csr)[chosen] ?? 0;
        weights[j] = w0 - eps;
        const down = m.logProbs(csr)[chosen] ?? 0;
        weights[j] = w0;
        const fd = (up - down) / (Math.fround(w0 + eps) - Math.fround(w0 - eps));
        assert.ok(Math.abs(fd - g.get(j)) < 2e-4, `C=${c} j=${j}: fd ${fd} vs ${g.get(j)}`);
      }
    }
  });

  void it('samples by inverse CDF with the given rng', () => {
    const m = new PointerModel({ dim: 2, weights: Float32Array.of(0, Math.log(3)) });
    const feats = [{ index: Uint32Array.of(0), value: Float32Array.of(1) }, { index: Uint32Array.of(1), value: Float32Array.of(1) }];
    assert.equal(m.sample(feats, () => 0.2).index, 0); // p = [0.25, 0.75]
    assert.equal(m.sample(feats, () => 0.3).index, 1);
    assert.ok(Math.abs(m.sample(feats, () => 0.3).logprob - Math.log(0.75)) < 1e-7);
  });

  void it('rejects bad CSR and bad arguments with PolicyError', () => {
    const m = initialModel({ dim: 8 });
    assert.throws(() => m.logits({ offsets: [0, 1], featureIndex: [8], featureValue: [1] }), (e: unknown) => e instanceof PolicyError && e.code === 'POLICY_INVALID_TRACE' && /feature_index\[0\] is 8/.test(e.message));
    assert.throws(() => m.logits({ offsets: [0, 2], featureIndex: [1], featureValue: [1] }), /offsets\[1\] is 2/);
    assert.throws(() => m.gradLogProb({ offsets: [0, 1], featureIndex: [1], featureValue: [1] }, 1, new SparseGradient(8)), /chosen is 1/);
    assert.throws(() => new PointerModel({ dim: 8, temperature: 0 }), /temperature is 0/);
  });
});

void describe('ONNX export', () => {
  void it('round-trips weights and the exact temperature', () => {
    const rng = mulberry32(3);
    const m = new PointerModel({ dim: 1000, weights: Float32Array.from({ length: 1000 }, () => rng() - 0.5), temperature: 0.7 });
    const bytes = exportOnnx(m);
    const back = readOnnxWeights(bytes);
    assert.equal(back.dim, 1000);
    assert.equal(back.temperature, 0.7);
    assert.deepEqual(back.weights, m.weights);
    const m2 = PointerModel.fromOnnx(bytes);
    assert.deepEqual(m2.weights, m.weights);
    assert.equal(m2.temperature, 0.7);
  });

  void it('rejects bytes that are not a pointer policy', () => {
    assert.throws(() => readOnnxWeights(Uint8Array.of(1, 2, 3, 4, 5)), (e: unknown) => e instanceof PolicyError && e.code === 'POLICY_INVALID_ARTIFACT');
    assert.throws(() => readOnnxWeights(new Uint8Array(0)), (e: unknown) => e instanceof PolicyError && e.code === 'POLICY_INVALID_ARTIFACT');
  });
});
