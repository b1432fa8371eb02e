// Behaviour cloning of the pointer policy: cross-entropy on demonstrated actions. Each sample is
// one step's candidates (hashed features) and the index of the candidate the demonstrator chose;
// the loss is −mean log π(chosen) under the model's temperature, minimised with the same Adam the
// RL update uses, so a warmed-up policy continues into GRPO as its first version.
import { type Rng } from '@owrl/core';
import { SparseGradient, type CandidateFeatures, type PointerModel } from '@owrl/policy';
import { type Adam } from './adam.js';
import { RlError, RlErrorCode } from './errors.js';

export interface BcSample {
  candidates: CandidateFeatures;
  /** Index of the demonstrated candidate. */
  target: number;
}

export interface BcEpochStats {
  /** Mean −log π(target) over the epoch, before each minibatch's step. */
  loss: number;
  /** Fraction of samples whose target was the model's most likely candidate (after the epoch). */
  accuracy: number;
}

/** Mean cross-entropy and top-1 accuracy of `model` on `samples` (no update). */
export function bcEvaluate(model: PointerModel, samples: readonly BcSample[]): BcEpochStats {
  if (samples.length === 0) return { loss: 0, accuracy: 0 };
  let loss = 0;
  let hits = 0;
  for (const s of samples) {
    const lp = model.logProbs(s.candidates);
    const t = lp[s.target];
    if (t === undefined) throw new RlError(RlErrorCode.InvalidArgument, `target ${s.target} is outside the ${lp.length} candidates`);
    loss -= t;
    let best = 0;
    for (let i = 1; i < lp.length; i++) if ((lp[i] ?? -Infinity) > (lp[best] ?? -Infinity)) best = i;
    if (best === s.target) hits++;
  }
  return { loss: loss / samples.length, accuracy: hits / samples.length };
}

export interface BcOptions {
  epochs: number;
  /** Samples per Adam step; default 32. */
  batchSize?: number;
  /** Shuffles the samples each epoch. */
  rng: Rng;
}

/**
 * Trains `model` in place on `samples` for `epochs` passes of minibatch cross-entropy steps.
 * Returns the loss and accuracy after each epoch.
 */
export function behaviourClone(model: PointerModel, optimizer: Adam, samples: readonly BcSample[], opts: BcOptions): BcEpochStats[] {
  const batch = opts.batchSize ?? 32;
  if (!Number.isInteger(opts.epochs) || opts.epochs < 0) throw new RlError(RlErrorCode.InvalidArgument, `epochs is ${opts.epochs}; expected an integer >= 0`);
  if (!Number.isInteger(batch) || batch < 1) throw new RlError(RlErrorCode.InvalidArgument, `batchSize is ${batch}; expected an integer >= 1`);
  if (optimizer.dim !== model.dim) throw new RlError(RlErrorCode.InvalidArgument, `optimizer dim ${optimizer.dim} differs from model dim ${model.dim}`);
  const grad = new SparseGradient(model.dim);
  const order = samples.map((_, i) => i);
  const stats: BcEpochStats[] = [];
  for (let e = 0; e < opts.epochs; e++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(opts.rng() * (i + 1));
      [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
    }
    for (let b = 0; b < order.length; b += batch) {
      const idx = order.slice(b, b + batch);
      grad.clear();
      // d(−mean log π)/dw: the gradient of log π scaled by −1/n
      for (const k of idx) {
        const s = samples[k];
        if (s) model.gradLogProb(s.candidates, s.target, grad, -1 / idx.length);
      }
      optimizer.step(model.weights, grad);
    }
    stats.push(bcEvaluate(model, samples));
  }
  grad.clear();
  return stats;
}
