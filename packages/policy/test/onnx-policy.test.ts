// The TypeScript forward pass equals the ONNX one run by onnxruntime-node (real runtime, no mocks).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { mulberry32 } from '@owrl/core';
import { decode, encode, PolicyTraceSchema } from '@owrl/proto';
import {
  OnnxPointerPolicy,
  POLICY_KIND,
  PointerModel,
  PolicyError,
  buildCandidates,
  createPointerSession,
  exportOnnx,
  runPointerSession,
  toCsr,
} from '../src/index.js';
import { productPage, randomFeatures } from './fixtures.js';

void describe('ONNX forward == TypeScript forward', () => {
  const sessions: { release(): Promise<void> }[] = [];
  after(async () => {
    for (const s of sessions) await s.release();
  });

  for (const [dim, temperature] of [[512, 1], [1 << 18, 0.6]] as const) {
    void it(`matches to 1e-5 (dim ${dim}, T ${temperature}) on random candidate sets`, async () => {
      const rng = mulberry32(dim);
      const m = new PointerModel({ dim, temperature, weights: Float32Array.from({ length: dim }, () => rng() * 2 - 1) });
      const session = await createPointerSession(exportOnnx(m));
      sessions.push(session);
      for (const [c, maxF] of [[1, 1], [1, 30], [3, 4], [17, 40], [60, 80]] as const) {
        const csr = toCsr(randomFeatures(rng, c, maxF, dim));
        const { logits, logProbs } = await runPointerSession(session, csr);
        const tl = m.logits(csr);
        const tp = m.logProbs(csr);
        assert.equal(logits.length, c);
        for (let i = 0; i < c; i++) {
          assert.ok(Math.abs((logits[i] ?? 0) - (tl[i] ?? 0)) < 1e-5, `C=${c} logit ${i}: ${logits[i]} vs ${tl[i]}`);
          assert.ok(Math.abs((logProbs[i] ?? 0) - (tp[i] ?? 0)) < 1e-5, `C=${c} logprob ${i}: ${logProbs[i]} vs ${tp[i]}`);
        }
      }
    });
  }
});

void describe('OnnxPointerPolicy', () => {
  void it('decides with a pointer trace the learner can recompute', async () => {
    const rng = mulberry32(11);
    const m = new PointerModel({ dim: 1 << 18, temperature: 0.8, weights: Float32Array.from({ length: 1 << 18 }, () => rng() - 0.5) });
    const policy = await OnnxPointerPolicy.load(exportOnnx(m), { version: 7, seed: 42 });
    try {
      assert.equal(policy.kind, POLICY_KIND);
      assert.equal(policy.needsScreenshot, false);
      assert.equal(policy.version, 7n);
      const input = { instruction: 'Add "Blue Ceramic Mug" to the cart.', observation: productPage(), history: [], step: 1, maxSteps: 15 };
      const d = await policy.decide(input);
      assert.equal(d.trace.kind.case, 'pointer');
      const t = d.trace.kind.value;
      assert.ok(t && d.trace.kind.case === 'pointer');
      const cands = buildCandidates(input);
      assert.equal(t.numCandidates, cands.length);
      assert.deepEqual(t.candidateLabels, cands.map((c) => c.label));
      assert.deepEqual(d.calls, cands[t.chosen]?.calls);
      assert.equal(t.temperature, 0.8);
      // The recorded log-probability is the TypeScript one under the same weights and temperature.
      const lp = m.logProbs(t);
      assert.ok(Math.abs((lp[t.chosen] ?? 0) - t.logprob) < 1e-5);
      assert.match(d.reasoning, /\(p=\d\.\d\d\)$/);
      // The trace survives the wire.
      const back = decode(PolicyTraceSchema, encode(PolicyTraceSchema, d.trace));
      assert.equal(back.kind.case, 'pointer');
      assert.deepEqual(back.kind.value?.offsets, t.offsets);
      // Same seed, same decisions.
      const again = await OnnxPointerPolicy.load(exportOnnx(m), { version: 7, seed: 42 });
      const d2 = await again.decide(input);
      await again.release();
      assert.deepEqual(d2.calls, d.calls);
    } finally {
      await policy.release();
    }
  });

  void it('samples according to the model probabilities', async () => {
    const rng = mulberry32(5);
    const m = new PointerModel({ dim: 1 << 18, weights: Float32Array.from({ length: 1 << 18 }, () => (rng() - 0.5) * 3) });
    const policy = await OnnxPointerPolicy.load(exportOnnx(m), { version: 1, seed: 1 });
    try {
      const input = { instruction: 'What is the SKU of "Blue Ceramic Mug"?', observation: productPage(), history: [], step: 0, maxSteps: 5 };
      const n = 600;
      const counts = new Map<number, number>();
      let probs: Float64Array | undefined;
      for (let i = 0; i < n; i++) {
        const d = await policy.decide(input);
        assert.ok(d.trace.kind.case === 'pointer');
        probs ??= m.logProbs(d.trace.kind.value).map(Math.exp);
        counts.set(d.trace.kind.value.chosen, (counts.get(d.trace.kind.value.chosen) ?? 0) + 1);
      }
      assert.ok(probs);
      probs.forEach((p, i) => {
        const f = (counts.get(i) ?? 0) / n;
        // 4 standard deviations of a binomial frequency.
        assert.ok(Math.abs(f - p) <= 4 * Math.sqrt((p * (1 - p)) / n) + 1e-9, `candidate ${i}: frequency ${f} vs p ${p}`);
      });
    } finally {
      await policy.release();
    }
  });

  void it('honours abort signals and release', async () => {
    const policy = await OnnxPointerPolicy.load(exportOnnx(new PointerModel({ dim: 64 })), { version: 1 });
    const ac = new AbortController();
    ac.abort(new Error('step timeout'));
    const input = { instruction: 'x', observation: productPage(), history: [], step: 0, maxSteps: 5 };
    await assert.rejects(policy.decide(input, ac.signal), (e: unknown) => e instanceof PolicyError && e.code === 'POLICY_ABORTED');
    await policy.release();
    await assert.rejects(policy.decide(input), (e: unknown) => e instanceof PolicyError && e.code === 'POLICY_RELEASED');
  });

  void it('rejects artifacts that are not pointer policies', async () => {
    await assert.rejects(OnnxPointerPolicy.load(Uint8Array.of(9, 9, 9), { version: 1 }), (e: unknown) => e instanceof PolicyError && e.code === 'POLICY_INVALID_ARTIFACT');
  });
});
