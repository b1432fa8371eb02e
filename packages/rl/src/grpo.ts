// The clipped GRPO objective over pointer-policy actions with its exact gradient. Each action
// (one step of one trajectory) has ratio = exp(logp_new − logp_old) and contributes
// min(ratio·A, clip(ratio, 1−ε_low, 1+ε_high)·A); the loss is minus the mean over actions.
import { DEFAULTS } from '@owrl/core';
import { type PointerModel, type SparseGradient } from '@owrl/policy';
import { RlError, RlErrorCode } from './errors.js';

/** The fields of proto PointerTrace the learner needs (a proto PointerTrace satisfies it). */
export interface PointerTraceLike {
  offsets: ArrayLike<number>;
  featureIndex: ArrayLike<number>;
  featureValue: ArrayLike<number>;
  chosen: number;
  /** log pi_old(chosen) under the behaviour policy. */
  logprob: number;
  temperature: number;
}

export interface GrpoSample {
  trace: PointerTraceLike;
  advantage: number;
}

export interface ClipOptions {
  clipLow?: number;
  clipHigh?: number;
}

export interface GrpoResult {
  /** −mean over actions of the clipped surrogate. */
  loss: number;
  /** Fraction of actions whose clipped branch is active (zero gradient). */
  clipFraction: number;
  /** Mean of (ratio − 1) − log ratio, an estimate of KL(old ‖ new). */
  approxKl: number;
  meanRatio: number;
  actions: number;
}

/**
 * Evaluates the clipped objective of `samples` under `model` and adds d loss / d weights into
 * `grad` (when given). The new log-probabilities use the model's temperature.
 * @throws RlError RL_INVALID_ARGUMENT for a trace with a non-finite old logprob or bad chosen index.
 */
export function grpoObjective(model: PointerModel, samples: readonly GrpoSample[], opts: ClipOptions = {}, grad?: SparseGradient): GrpoResult {
  const lo = 1 - (opts.clipLow ?? DEFAULTS.clipLow);
  const hi = 1 + (opts.clipHigh ?? DEFAULTS.clipHigh);
  const n = samples.length;
  if (n === 0) return { loss: 0, clipFraction: 0, approxKl: 0, meanRatio: 1, actions: 0 };
  let obj = 0;
  let clipped = 0;
  let kl = 0;
  let ratioSum = 0;
  samples.forEach((s, k) => {
    const { trace, advantage: a } = s;
    if (!Number.isFinite(trace.logprob)) throw new RlError(RlErrorCode.InvalidArgument, `samples[${k}].trace.logprob is ${trace.logprob}; expected a finite number`);
    if (!Number.isFinite(a)) throw new RlError(RlErrorCode.InvalidArgument, `samples[${k}].advantage is ${a}; expected a finite number`);
    const lp = model.logProbs(trace);
    const c = trace.chosen;
    if (!Number.isInteger(c) || c < 0 || c >= lp.length) {
      throw new RlError(RlErrorCode.InvalidArgument, `samples[${k}].trace.chosen is ${c}; expected an index in [0, ${lp.length})`);
    }
    const logRatio = (lp[c] ?? 0) - trace.logprob;
    const r = Math.exp(logRatio);
    ratioSum += r;
    kl += r - 1 - logRatio;
    const rc = Math.min(Math.max(r, lo), hi);
    // min(r·A, clip(r)·A): the clipped branch is strictly smaller only outside the range on the
    // side the advantage pushes toward; there the objective is constant in the weights.
    const clipActive = (a > 0 && r > hi) || (a < 0 && r < lo);
    obj += clipActive ? rc * a : r * a;
    if (clipActive) clipped++;
    else if (grad && a !== 0) model.gradLogProb(trace, c, grad, (-a * r) / n);
  });
  return { loss: -obj / n, clipFraction: clipped / n, approxKl: kl / n, meanRatio: ratioSum / n, actions: n };
}
