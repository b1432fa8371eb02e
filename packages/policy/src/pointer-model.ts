// The pointer policy as a linear model over hashed candidate features: logit_i = (w · x_i) / T,
// pi = softmax(logits). The learner holds it in TypeScript (float64 math, exact gradients); the
// actors run the same function exported to ONNX.
import { type Rng } from '@owrl/core';
import { PolicyError, PolicyErrorCode } from './errors.js';
import { exportOnnx, readOnnxWeights } from './onnx-export.js';
import { type SparseFeatures } from './features.js';
import { csrCount, toCsr, validateCsr, type CsrFeatures, type SparseGradient } from './sparse.js';

export type CandidateFeatures = CsrFeatures | readonly SparseFeatures[];

function asCsr(c: CandidateFeatures): CsrFeatures {
  return Array.isArray(c) ? toCsr(c as readonly SparseFeatures[]) : (c as CsrFeatures);
}

/** log-softmax in float64 with the max subtracted. */
export function logSoftmax(logits: ArrayLike<number>): Float64Array {
  let m = -Infinity;
  for (let i = 0; i < logits.length; i++) m = Math.max(m, logits[i] ?? -Infinity);
  let s = 0;
  for (let i = 0; i < logits.length; i++) s += Math.exp((logits[i] ?? 0) - m);
  const lse = m + Math.log(s);
  const out = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i++) out[i] = (logits[i] ?? 0) - lse;
  return out;
}

/** Inverse-CDF sample of an index from log-probabilities with one draw of `rng`. */
export function sampleIndex(logProbs: ArrayLike<number>, rng: Rng): number {
  const u = rng();
  let acc = 0;
  for (let i = 0; i < logProbs.length; i++) {
    acc += Math.exp(logProbs[i] ?? -Infinity);
    if (u < acc) return i;
  }
  return logProbs.length - 1;
}

export interface PointerModelInit {
  dim: number;
  /** Default: all zeros (the uniform policy). */
  weights?: Float32Array;
  /** Softmax temperature; default 1. */
  temperature?: number;
}

export class PointerModel {
  readonly dim: number;
  weights: Float32Array;
  temperature: number;

  constructor(init: PointerModelInit) {
    if (!Number.isInteger(init.dim) || init.dim < 1) {
      throw new PolicyError(PolicyErrorCode.InvalidArgument, `dim is ${init.dim}; expected a positive integer`);
    }
    const t = init.temperature ?? 1;
    if (!(t > 0) || !Number.isFinite(t)) {
      throw new PolicyError(PolicyErrorCode.InvalidArgument, `temperature is ${t}; expected a finite number > 0`);
    }
    if (init.weights && init.weights.length !== init.dim) {
      throw new PolicyError(PolicyErrorCode.InvalidArgument, `weights has length ${init.weights.length}; expected dim ${init.dim}`);
    }
    this.dim = init.dim;
    this.weights = init.weights ?? new Float32Array(init.dim);
    this.temperature = t;
  }

  /** Rebuilds a model from an ONNX artifact made by {@link exportOnnx}. */
  static fromOnnx(bytes: Uint8Array): PointerModel {
    return new PointerModel(readOnnxWeights(bytes));
  }

  toOnnx(): Uint8Array {
    return exportOnnx(this);
  }

  clone(): PointerModel {
    return new PointerModel({ dim: this.dim, weights: Float32Array.from(this.weights), temperature: this.temperature });
  }

  /** Logits (already divided by the temperature) of every candidate, float64. */
  logits(candidates: CandidateFeatures): Float64Array {
    const csr = asCsr(candidates);
    validateCsr(csr, this.dim);
    const c = csrCount(csr);
    const out = new Float64Array(c);
    const w = this.weights;
    for (let i = 0; i < c; i++) {
      let s = 0;
      for (let k = csr.offsets[i] ?? 0; k < (csr.offsets[i + 1] ?? 0); k++) {
        s += (w[csr.featureIndex[k] ?? 0] ?? 0) * (csr.featureValue[k] ?? 0);
      }
      out[i] = s / this.temperature;
    }
    return out;
  }

  logProbs(candidates: CandidateFeatures): Float64Array {
    return logSoftmax(this.logits(candidates));
  }

  /** Samples a candidate; returns its index and log-probability under the temperature. */
  sample(candidates: CandidateFeatures, rng: Rng): { index: number; logprob: number; logProbs: Float64Array } {
    const lp = this.logProbs(candidates);
    const index = sampleIndex(lp, rng);
    return { index, logprob: lp[index] ?? -Infinity, logProbs: lp };
  }

  /**
   * Exact gradient of log pi(chosen) with respect to the weights, times `scale`, added into
   * `into`: d/dw log pi_c = (x_c − Σ_i pi_i x_i) / T. Returns log pi(chosen).
   */
  gradLogProb(candidates: CandidateFeatures, chosen: number, into: SparseGradient, scale = 1): number {
    const csr = asCsr(candidates);
    const lp = this.logProbs(csr);
    const c = lp.length;
    if (!Number.isInteger(chosen) || chosen < 0 || chosen >= c) {
      throw new PolicyError(PolicyErrorCode.InvalidTrace, `chosen is ${chosen}; expected an index in [0, ${c})`);
    }
    const st = scale / this.temperature;
    for (let i = 0; i < c; i++) {
      const coef = st * ((i === chosen ? 1 : 0) - Math.exp(lp[i] ?? -Infinity));
      if (coef === 0) continue;
      for (let k = csr.offsets[i] ?? 0; k < (csr.offsets[i + 1] ?? 0); k++) {
        into.add(csr.featureIndex[k] ?? 0, coef * (csr.featureValue[k] ?? 0));
      }
    }
    return lp[chosen] ?? -Infinity;
  }
}

/** A fresh model with all-zero weights: the uniform policy over candidates. */
export function initialModel(opts: { dim: number; temperature?: number }): PointerModel {
  return new PointerModel({ dim: opts.dim, temperature: opts.temperature ?? 1 });
}
