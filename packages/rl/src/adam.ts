// Adam for the sparse linear policy: only indices with a gradient are updated, each with its own
// step count for bias correction ("lazy" Adam), so rarely seen features move as fast as common
// ones. State serialises to compact bytes (sparse) or JSON for checkpoints.
import { type SparseGradient } from '@owrl/policy';
import { RlError, RlErrorCode } from './errors.js';

export interface AdamOptions {
  /** Learning rate; default 0.05 (tuned for the pointer policy). */
  lr?: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  /** Rescale the gradient to this L2 norm when it is larger; default none. */
  maxGradNorm?: number;
}

export const ADAM_DEFAULTS = { lr: 0.05, beta1: 0.9, beta2: 0.999, eps: 1e-8 } as const;

export interface AdamStepStats {
  gradNorm: number;
  clipped: boolean;
  touched: number;
}

export interface AdamStateJson {
  version: 1;
  dim: number;
  steps: number;
  options: Required<Omit<AdamOptions, 'maxGradNorm'>> & { maxGradNorm?: number };
  indices: number[];
  m: number[];
  v: number[];
  counts: number[];
}

const MAGIC = 0x4f574144; // "OWAD"

export class Adam {
  readonly dim: number;
  readonly lr: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly maxGradNorm: number | undefined;
  /** Number of step() calls. */
  steps = 0;
  readonly m: Float64Array;
  readonly v: Float64Array;
  /** Per-index update count (bias correction). */
  readonly counts: Uint32Array;

  constructor(dim: number, opts: AdamOptions = {}) {
    if (!Number.isInteger(dim) || dim < 1) throw new RlError(RlErrorCode.InvalidArgument, `dim is ${dim}; expected a positive integer`);
    this.dim = dim;
    this.lr = opts.lr ?? ADAM_DEFAULTS.lr;
    this.beta1 = opts.beta1 ?? ADAM_DEFAULTS.beta1;
    this.beta2 = opts.beta2 ?? ADAM_DEFAULTS.beta2;
    this.eps = opts.eps ?? ADAM_DEFAULTS.eps;
    this.maxGradNorm = opts.maxGradNorm;
    if (!(this.lr > 0)) throw new RlError(RlErrorCode.InvalidArgument, `lr is ${this.lr}; expected > 0`);
    for (const [k, b] of [['beta1', this.beta1], ['beta2', this.beta2]] as const) {
      if (!(b >= 0 && b < 1)) throw new RlError(RlErrorCode.InvalidArgument, `${k} is ${b}; expected a number in [0, 1)`);
    }
    if (this.maxGradNorm !== undefined && !(this.maxGradNorm > 0)) {
      throw new RlError(RlErrorCode.InvalidArgument, `maxGradNorm is ${this.maxGradNorm}; expected > 0`);
    }
    this.m = new Float64Array(dim);
    this.v = new Float64Array(dim);
    this.counts = new Uint32Array(dim);
  }

  /** One descent step on `weights` (in place) along `grad` (a gradient of a loss to minimise). */
  step(weights: Float32Array, grad: SparseGradient): AdamStepStats {
    if (weights.length !== this.dim || grad.dim !== this.dim) {
      throw new RlError(RlErrorCode.InvalidArgument, `weights (${weights.length}) and gradient (${grad.dim}) must both have dim ${this.dim}`);
    }
    const gradNorm = grad.l2();
    const scale = this.maxGradNorm !== undefined && gradNorm > this.maxGradNorm ? this.maxGradNorm / gradNorm : 1;
    this.steps++;
    const { beta1: b1, beta2: b2 } = this;
    for (const i of grad.indices) {
      const g = grad.get(i) * scale;
      const m = b1 * (this.m[i] ?? 0) + (1 - b1) * g;
      const v = b2 * (this.v[i] ?? 0) + (1 - b2) * g * g;
      this.m[i] = m;
      this.v[i] = v;
      const t = (this.counts[i] ?? 0) + 1;
      this.counts[i] = t;
      const mHat = m / (1 - b1 ** t);
      const vHat = v / (1 - b2 ** t);
      weights[i] = (weights[i] ?? 0) - (this.lr * mHat) / (Math.sqrt(vHat) + this.eps);
    }
    return { gradNorm, clipped: scale !== 1, touched: grad.indices.length };
  }

  private options(): AdamStateJson['options'] {
    const o: AdamStateJson['options'] = { lr: this.lr, beta1: this.beta1, beta2: this.beta2, eps: this.eps };
    if (this.maxGradNorm !== undefined) o.maxGradNorm = this.maxGradNorm;
    return o;
  }

  private touchedIndices(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.dim; i++) if (this.counts[i] !== 0) out.push(i);
    return out;
  }

  toJSON(): AdamStateJson {
    const indices = this.touchedIndices();
    return {
      version: 1,
      dim: this.dim,
      steps: this.steps,
      options: this.options(),
      indices,
      m: indices.map((i) => this.m[i] ?? 0),
      v: indices.map((i) => this.v[i] ?? 0),
      counts: indices.map((i) => this.counts[i] ?? 0),
    };
  }

  /** @throws RlError RL_INVALID_STATE when the JSON is not an Adam state. */
  static fromJSON(s: AdamStateJson): Adam {
    if (s?.version !== 1 || !Array.isArray(s.indices) || s.m.length !== s.indices.length || s.v.length !== s.indices.length || s.counts.length !== s.indices.length) {
      throw new RlError(RlErrorCode.InvalidState, 'Adam state JSON is malformed (version 1 with equal-length indices/m/v/counts expected)');
    }
    const a = new Adam(s.dim, s.options);
    a.steps = s.steps;
    s.indices.forEach((i, k) => {
      if (!Number.isInteger(i) || i < 0 || i >= s.dim) throw new RlError(RlErrorCode.InvalidState, `Adam state index ${i} outside [0, ${s.dim})`);
      a.m[i] = s.m[k] ?? 0;
      a.v[i] = s.v[k] ?? 0;
      a.counts[i] = s.counts[k] ?? 0;
    });
    return a;
  }

  /** Compact binary form: magic, JSON header, then the touched indices with m, v (float64) and counts. */
  toBytes(): Uint8Array {
    const indices = this.touchedIndices();
    const header = new TextEncoder().encode(JSON.stringify({ version: 1, dim: this.dim, steps: this.steps, options: this.options() }));
    const n = indices.length;
    const size = 12 + header.length + n * (4 + 8 + 8 + 4);
    const buf = new Uint8Array(size);
    const dv = new DataView(buf.buffer);
    dv.setUint32(0, MAGIC, true);
    dv.setUint32(4, header.length, true);
    buf.set(header, 8);
    let o = 8 + header.length;
    dv.setUint32(o, n, true);
    o += 4;
    for (const i of indices) {
      dv.setUint32(o, i, true);
      dv.setFloat64(o + 4, this.m[i] ?? 0, true);
      dv.setFloat64(o + 12, this.v[i] ?? 0, true);
      dv.setUint32(o + 20, this.counts[i] ?? 0, true);
      o += 24;
    }
    return buf;
  }

  /** @throws RlError RL_INVALID_STATE when the bytes are not an Adam state. */
  static fromBytes(bytes: Uint8Array): Adam {
    const bad = (why: string): never => {
      throw new RlError(RlErrorCode.InvalidState, `Adam state bytes are invalid: ${why}`);
    };
    if (bytes.length < 12) bad(`only ${bytes.length} bytes`);
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (dv.getUint32(0, true) !== MAGIC) bad('wrong magic');
    const hlen = dv.getUint32(4, true);
    if (8 + hlen + 4 > bytes.length) bad(`header length ${hlen} exceeds the data`);
    let raw: unknown;
    try {
      raw = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + hlen)));
    } catch (cause) {
      throw new RlError(RlErrorCode.InvalidState, 'Adam state header is not JSON', { cause });
    }
    const header = adamHeader(raw, bad);
    const a = new Adam(header.dim, header.options);
    a.steps = header.steps;
    let o = 8 + hlen;
    const n = dv.getUint32(o, true);
    o += 4;
    if (o + n * 24 !== bytes.length) bad(`${n} entries do not match ${bytes.length} bytes`);
    for (let k = 0; k < n; k++) {
      const i = dv.getUint32(o, true);
      if (i >= a.dim) bad(`index ${i} outside [0, ${a.dim})`);
      a.m[i] = dv.getFloat64(o + 4, true);
      a.v[i] = dv.getFloat64(o + 12, true);
      a.counts[i] = dv.getUint32(o + 20, true);
      o += 24;
    }
    return a;
  }
}

/** The JSON header of an Adam state, checked field by field (`bad` throws naming what is wrong). */
function adamHeader(raw: unknown, bad: (why: string) => never): { version: 1; dim: number; steps: number; options: AdamOptions } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return bad('the header is not a JSON object');
  const h = raw as Record<string, unknown>;
  if (h['version'] !== 1) bad(`unknown version ${JSON.stringify(h['version'])}`);
  const dim = h['dim'];
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim < 1) return bad(`header dim=${JSON.stringify(dim)} must be an integer >= 1`);
  const steps = h['steps'];
  if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 0) return bad(`header steps=${JSON.stringify(steps)} must be an integer >= 0`);
  const o = h['options'] ?? {};
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return bad('header options must be a JSON object');
  const options: AdamOptions = {};
  for (const k of ['lr', 'beta1', 'beta2', 'eps', 'maxGradNorm'] as const) {
    const v = (o as Record<string, unknown>)[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) bad(`header options.${k}=${JSON.stringify(v)} must be a finite number`);
    options[k] = v as number;
  }
  return { version: 1, dim, steps, options };
}
