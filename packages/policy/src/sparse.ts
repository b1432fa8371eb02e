// CSR layout of candidate features (the layout of proto PointerTrace) and a sparse gradient
// accumulator backed by a dense float64 array with a list of touched indices.
import { PolicyError, PolicyErrorCode } from './errors.js';
import { type SparseFeatures } from './features.js';

/** Features of C candidates: candidate i owns [offsets[i], offsets[i+1]) of index/value. */
export interface CsrFeatures {
  offsets: ArrayLike<number>;
  featureIndex: ArrayLike<number>;
  featureValue: ArrayLike<number>;
}

export interface Csr extends CsrFeatures {
  offsets: Uint32Array;
  featureIndex: Uint32Array;
  featureValue: Float32Array;
}

/** Packs per-candidate sparse features into CSR. */
export function toCsr(features: readonly SparseFeatures[]): Csr {
  const offsets = new Uint32Array(features.length + 1);
  let n = 0;
  features.forEach((f, i) => {
    n += f.index.length;
    offsets[i + 1] = n;
  });
  const featureIndex = new Uint32Array(n);
  const featureValue = new Float32Array(n);
  features.forEach((f, i) => {
    featureIndex.set(f.index, offsets[i]);
    featureValue.set(f.value, offsets[i]);
  });
  return { offsets, featureIndex, featureValue };
}

/** Number of candidates of a CSR set. */
export function csrCount(csr: CsrFeatures): number {
  return Math.max(0, csr.offsets.length - 1);
}

/**
 * Checks CSR invariants against a weight dimension.
 * @throws PolicyError POLICY_INVALID_TRACE naming the offending field.
 */
export function validateCsr(csr: CsrFeatures, dim: number): void {
  const c = csrCount(csr);
  const bad = (msg: string): never => {
    throw new PolicyError(PolicyErrorCode.InvalidTrace, msg);
  };
  if (c < 1) bad(`offsets has length ${csr.offsets.length}; need at least 2 (one candidate)`);
  if (csr.offsets[0] !== 0) bad(`offsets[0] is ${csr.offsets[0]}, expected 0`);
  if (csr.featureIndex.length !== csr.featureValue.length) {
    bad(`feature_index has ${csr.featureIndex.length} entries but feature_value has ${csr.featureValue.length}`);
  }
  for (let i = 0; i < c; i++) {
    if ((csr.offsets[i + 1] ?? 0) < (csr.offsets[i] ?? 0)) bad(`offsets decrease at ${i + 1}: ${csr.offsets[i]} > ${csr.offsets[i + 1]}`);
  }
  if (csr.offsets[c] !== csr.featureIndex.length) {
    bad(`offsets[${c}] is ${csr.offsets[c]} but there are ${csr.featureIndex.length} features`);
  }
  for (let k = 0; k < csr.featureIndex.length; k++) {
    const j = csr.featureIndex[k] ?? -1;
    if (!Number.isInteger(j) || j < 0 || j >= dim) bad(`feature_index[${k}] is ${j}, outside [0, ${dim})`);
  }
}

/** Sparse gradient: dense float64 storage plus the list of touched indices, reusable via clear(). */
export class SparseGradient {
  readonly values: Float64Array;
  private readonly mark: Uint8Array;
  private readonly list: number[] = [];

  constructor(readonly dim: number) {
    this.values = new Float64Array(dim);
    this.mark = new Uint8Array(dim);
  }

  add(index: number, v: number): void {
    if (this.mark[index] === 0) {
      this.mark[index] = 1;
      this.list.push(index);
    }
    this.values[index] = (this.values[index] ?? 0) + v;
  }

  /** Touched indices in first-touch order. */
  get indices(): readonly number[] {
    return this.list;
  }

  get(index: number): number {
    return this.values[index] ?? 0;
  }

  scale(s: number): void {
    for (const i of this.list) this.values[i] = (this.values[i] ?? 0) * s;
  }

  l2(): number {
    let s = 0;
    for (const i of this.list) s += (this.values[i] ?? 0) ** 2;
    return Math.sqrt(s);
  }

  clear(): void {
    for (const i of this.list) {
      this.values[i] = 0;
      this.mark[i] = 0;
    }
    this.list.length = 0;
  }

  toDense(): Float32Array {
    return Float32Array.from(this.values);
  }
}
