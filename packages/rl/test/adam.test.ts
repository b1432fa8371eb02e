import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SparseGradient } from '@owrl/policy';
import { Adam, RlError } from '../src/index.js';

function grad(dim: number, entries: [number, number][]): SparseGradient {
  const g = new SparseGradient(dim);
  for (const [i, v] of entries) g.add(i, v);
  return g;
}

void describe('Adam', () => {
  void it('matches a hand computation, with per-index bias correction', () => {
    const opt = new Adam(4, { lr: 0.1 });
    const w = new Float32Array(4);
    opt.step(w, grad(4, [[0, 2]]));
    // t=1: m = 0.2, v = 0.004, mHat = 2, vHat = 4 → step = 0.1 · 2 / (2 + 1e-8)
    assert.ok(Math.abs((w[0] ?? 0) - -0.1) < 1e-7);
    opt.step(w, grad(4, [[0, -1], [2, 0.5]]));
    // index 0, t=2: m = 0.9·0.2 − 0.1 = 0.08, v = 0.999·0.004 + 0.001 = 0.004996
    const m = 0.08 / (1 - 0.9 ** 2);
    const v = 0.004996 / (1 - 0.999 ** 2);
    assert.ok(Math.abs((w[0] ?? 0) - (-0.1 - (0.1 * m) / (Math.sqrt(v) + 1e-8))) < 1e-6);
    // index 2 was first touched now: its own t = 1 → a full lr-sized step.
    assert.ok(Math.abs((w[2] ?? 0) - -0.1) < 1e-7);
    assert.equal(w[1], 0);
    assert.equal(opt.steps, 2);
  });

  void it('clips the gradient norm', () => {
    const opt = new Adam(2, { lr: 0.1, maxGradNorm: 1 });
    const s = opt.step(new Float32Array(2), grad(2, [[0, 3], [1, 4]]));
    assert.equal(s.gradNorm, 5);
    assert.equal(s.clipped, true);
    assert.ok(Math.abs((opt.m[1] ?? 0) - 0.1 * 0.8) < 1e-12);
  });

  void it('serialises to bytes and JSON and continues identically', () => {
    const a = new Adam(16, { lr: 0.07, maxGradNorm: 10 });
    const w = new Float32Array(16);
    a.step(w, grad(16, [[1, 0.3], [5, -2]]));
    a.step(w, grad(16, [[5, 1], [9, 0.1]]));
    for (const b of [Adam.fromBytes(a.toBytes()), Adam.fromJSON(JSON.parse(JSON.stringify(a.toJSON())))]) {
      assert.equal(b.steps, 2);
      assert.equal(b.lr, 0.07);
      assert.equal(b.maxGradNorm, 10);
      const w1 = Float32Array.from(w);
      const w2 = Float32Array.from(w);
      const g = grad(16, [[1, 1], [5, 0.2], [15, -0.4]]);
      const a2 = Adam.fromBytes(a.toBytes());
      a2.step(w1, g);
      b.step(w2, g);
      assert.deepEqual(w1, w2);
    }
    assert.throws(() => Adam.fromBytes(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)), (e: unknown) => e instanceof RlError && e.code === 'RL_INVALID_STATE');
    assert.throws(() => new Adam(4, { lr: 0 }), /lr is 0/);
    // The JSON header is checked field by field, not cast.
    const good = new Adam(4).toBytes();
    const dv = new DataView(good.buffer, good.byteOffset, good.byteLength);
    const hlen = dv.getUint32(4, true);
    const withHeader = (header: string): Uint8Array => {
      const h = new TextEncoder().encode(header);
      const out = new Uint8Array(8 + h.length + good.length - 8 - hlen);
      out.set(good.subarray(0, 4), 0);
      new DataView(out.buffer).setUint32(4, h.length, true);
      out.set(h, 8);
      out.set(good.subarray(8 + hlen), 8 + h.length);
      return out;
    };
    assert.equal(Adam.fromBytes(withHeader('{"version":1,"dim":4,"steps":0,"options":{"lr":0.05}}')).dim, 4, 'the re-framing itself is sound');
    for (const [header, message] of [
      ['{"version":1,"dim":"4","steps":0,"options":{}}', 'header dim="4" must be an integer >= 1'],
      ['{"version":1,"dim":4,"steps":-2,"options":{}}', 'header steps=-2 must be an integer >= 0'],
      ['{"version":1,"dim":4,"steps":0,"options":{"lr":"fast"}}', 'header options.lr="fast" must be a finite number'],
      ['[1]', 'the header is not a JSON object'],
    ] as const) {
      assert.throws(() => Adam.fromBytes(withHeader(header)), (e: unknown) => e instanceof RlError && e.code === 'RL_INVALID_STATE' && e.message === `Adam state bytes are invalid: ${message}`, header);
    }
  });
});
