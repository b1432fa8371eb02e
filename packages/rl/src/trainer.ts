// GRPO update of the pointer policy: dynamic sampling (drop groups with equal rewards), group
// advantages applied to every step of a trajectory, `epochs` passes of the clipped objective in
// `minibatches` chunks, each followed by an Adam step inside a KL trust region: when a step takes
// the policy further than `trustKl` from the behaviour policy (approximate KL over the chunk's
// actions, on top of any divergence the batch already had, e.g. from staleness), the step is
// halved (backtracking line search) until it fits.
// The shipped step rule (DEFAULT_UPDATE): one pass of six smaller steps instead of two full-batch
// epochs. Two full-batch epochs let the first Adam step carry the policy past the clip range for
// most actions (the second epoch clipped 41 % of actions on the four-site demo, up to 70 %), so
// the second epoch learned from a few; six chunks of one pass each take a step whose size the
// trust region bounds, and a chunk's clip fraction shows how far the earlier chunks moved it.
// Variants for sweeps (not the default): whole groups per chunk (`deal`), the trust region over
// the whole batch (`trustScope`), steps stretched while far inside the region (`maxStepScale`).
import { DEFAULTS } from '@owrl/core';
import { SparseGradient, type PointerModel } from '@owrl/policy';
import { EpochStatSchema, make, type EpochStat } from '@owrl/proto';
import { type Adam } from './adam.js';
import { groupAdvantages, groupFate, type GroupFate } from './advantages.js';
import { RlError, RlErrorCode } from './errors.js';
import { grpoObjective, type GrpoSample, type PointerTraceLike } from './grpo.js';

export interface TrajectoryLike {
  steps: readonly PointerTraceLike[];
}

export interface GroupLike {
  rewards: readonly number[];
  trajectories: readonly TrajectoryLike[];
}

export interface GrpoTrainerOptions {
  /** PPO epochs per batch; default DEFAULT_UPDATE.epochs. */
  epochs?: number;
  clipLow?: number;
  clipHigh?: number;
  /** Minibatches per epoch (one Adam step each); default DEFAULT_UPDATE.minibatches. */
  minibatches?: number;
  advantageEps?: number;
  /**
   * Trust region: the most approximate KL(behaviour ‖ new) the update may add over a minibatch's
   * actions (from where they stood when the update reached that minibatch); a step beyond it is
   * halved until it fits. 0 turns the rule off. Default DEFAULT_UPDATE.trustKl.
   */
  trustKl?: number;
  /** Halvings of one step before it is dropped (scale 0); default 10. */
  maxBacktracks?: number;
  /**
   * How trajectories are dealt into minibatches: 'trajectory' (round-robin, so a group's
   * trajectories land in different minibatches) or 'group' (whole groups round-robin, so each
   * minibatch holds every trajectory of its groups and their advantages still sum to zero).
   * 'group' needs the group of each trajectory (update() knows it; updateSamples takes it).
   * Default DEFAULT_UPDATE.deal.
   */
  deal?: 'trajectory' | 'group';
  /**
   * Where the trust region is measured: 'minibatch' (the step's own actions) or 'batch' (every
   * action of the update, so the whole update stays within trustKl of the behaviour policy).
   * Default DEFAULT_UPDATE.trustScope.
   */
  trustScope?: 'minibatch' | 'batch';
  /**
   * Largest multiple of Adam's step the trust region may stretch a step to: when a full step ends
   * far inside the region (KL below half the room) it is doubled while it fits, up to this factor.
   * 1 turns stretching off. Default DEFAULT_UPDATE.maxStepScale.
   */
  maxStepScale?: number;
  /**
   * Loss aggregation: 'token_mean' (the mean over a minibatch's actions, DAPO) or 'seq_mean' (the
   * mean over its trajectories of each one's mean). Default 'token_mean'.
   */
  lossAgg?: 'token_mean' | 'seq_mean';
  /** Skip the remaining epochs once an epoch starts with an approximate KL above this (0 = never). Default 0. */
  klStop?: number;
}

/** Default trust region of one step (approximate KL per action). */
export const DEFAULT_TRUST_KL = 0.1;

/**
 * The update rule the pointer policy ships with: one pass over the batch in six minibatches (one
 * Adam step each, inside the trust region). Chosen with test/learning-curve.ts on the fake shop
 * (see the README's settings): the last epoch's clip fraction stays in 0.1–0.3 where two
 * full-batch epochs reach 0.3–0.4 there (0.41 on the four-site demo). None of the variants
 * (deal 'group', trustScope 'batch', maxStepScale, 2–12 minibatches) learned more from the
 * uniform policy on the 8-family mix over 10 seeds without losing on the 3-family mix (README).
 */
export const DEFAULT_UPDATE = {
  epochs: 1,
  minibatches: 6,
  trustKl: DEFAULT_TRUST_KL,
  deal: 'trajectory',
  trustScope: 'minibatch',
  maxStepScale: 1,
} as const satisfies Required<Pick<GrpoTrainerOptions, 'epochs' | 'minibatches' | 'trustKl' | 'deal' | 'trustScope' | 'maxStepScale'>>;

/** Update health of one PPO epoch (the fields of proto EpochStat). */
export interface EpochStats {
  /** 1-based epoch number. */
  epoch: number;
  /** Clipped surrogate loss before the epoch's step(s), action-weighted over minibatches. */
  loss: number;
  /** Fraction of actions whose clipped branch is active, before the epoch's step(s). */
  clipFraction: number;
  /** Approximate KL(behaviour ‖ current) before the epoch's step(s). */
  approxKl: number;
  /** Approximate KL(behaviour ‖ new) after the epoch's step(s). */
  approxKlAfter: number;
  /** Largest L2 norm of a minibatch gradient. */
  gradNorm: number;
  /** Mean importance ratio before the epoch's step(s) (1 in the first epoch of an on-policy update). */
  meanRatio: number;
  /** Effective learning rate: Adam's lr times the mean step scale the trust region allowed. */
  learningRate: number;
  /** Mean fraction of the Adam step kept by the trust region (1 = full step). */
  stepScale: number;
  /** Backtracking halvings made in this epoch (all minibatches). */
  backtracks: number;
  actions: number;
}

/** An epoch's health as the wire message (run state, trainer answers); the trust-region fields stay behind. */
export function epochStatMessage(e: EpochStats): EpochStat {
  return make(EpochStatSchema, {
    epoch: e.epoch,
    loss: e.loss,
    clipFraction: e.clipFraction,
    approxKl: e.approxKl,
    gradNorm: e.gradNorm,
    meanRatio: e.meanRatio,
    learningRate: e.learningRate,
    actions: BigInt(e.actions),
  });
}

export interface UpdateStats {
  groups: number;
  fates: Record<GroupFate, number>;
  /** Trajectories and actions (steps) that trained. */
  trajectories: number;
  actions: number;
  meanReward: number;
  /** False when every group was dropped (the weights are untouched). */
  updated: boolean;
  epochs: EpochStats[];
}

export class GrpoTrainer {
  readonly epochs: number;
  readonly minibatches: number;
  readonly clipLow: number;
  readonly clipHigh: number;
  readonly advantageEps: number;
  readonly trustKl: number;
  readonly maxBacktracks: number;
  readonly deal: 'trajectory' | 'group';
  readonly trustScope: 'minibatch' | 'batch';
  readonly maxStepScale: number;
  readonly lossAgg: 'token_mean' | 'seq_mean';
  readonly klStop: number;
  private readonly grad: SparseGradient;
  /** One trajectory's gradient under seq_mean (allocated on first use). */
  private part: SparseGradient | null = null;

  constructor(
    readonly model: PointerModel,
    readonly optimizer: Adam,
    opts: GrpoTrainerOptions = {},
  ) {
    this.epochs = opts.epochs ?? DEFAULT_UPDATE.epochs;
    this.minibatches = opts.minibatches ?? DEFAULT_UPDATE.minibatches;
    this.clipLow = opts.clipLow ?? DEFAULTS.clipLow;
    this.clipHigh = opts.clipHigh ?? DEFAULTS.clipHigh;
    this.advantageEps = opts.advantageEps ?? DEFAULTS.advantageEps;
    this.trustKl = opts.trustKl ?? DEFAULT_UPDATE.trustKl;
    this.maxBacktracks = opts.maxBacktracks ?? 10;
    this.deal = opts.deal ?? DEFAULT_UPDATE.deal;
    this.trustScope = opts.trustScope ?? DEFAULT_UPDATE.trustScope;
    this.maxStepScale = opts.maxStepScale ?? DEFAULT_UPDATE.maxStepScale;
    this.lossAgg = opts.lossAgg ?? 'token_mean';
    this.klStop = opts.klStop ?? 0;
    if (this.lossAgg !== 'token_mean' && this.lossAgg !== 'seq_mean') {
      throw new RlError(RlErrorCode.InvalidArgument, `lossAgg is ${String(this.lossAgg)}; expected 'token_mean' or 'seq_mean'`);
    }
    if (!(this.klStop >= 0) || !Number.isFinite(this.klStop)) throw new RlError(RlErrorCode.InvalidArgument, `klStop is ${this.klStop}; expected a finite number >= 0`);
    if (this.deal !== 'trajectory' && this.deal !== 'group') throw new RlError(RlErrorCode.InvalidArgument, `deal is ${String(this.deal)}; expected 'trajectory' or 'group'`);
    if (this.trustScope !== 'minibatch' && this.trustScope !== 'batch') {
      throw new RlError(RlErrorCode.InvalidArgument, `trustScope is ${String(this.trustScope)}; expected 'minibatch' or 'batch'`);
    }
    if (!(this.maxStepScale >= 1) || !Number.isFinite(this.maxStepScale)) {
      throw new RlError(RlErrorCode.InvalidArgument, `maxStepScale is ${this.maxStepScale}; expected a finite number >= 1`);
    }
    if (!(this.trustKl >= 0) || !Number.isFinite(this.trustKl)) throw new RlError(RlErrorCode.InvalidArgument, `trustKl is ${this.trustKl}; expected a finite number >= 0`);
    if (!Number.isInteger(this.maxBacktracks) || this.maxBacktracks < 0) {
      throw new RlError(RlErrorCode.InvalidArgument, `maxBacktracks is ${this.maxBacktracks}; expected an integer >= 0`);
    }
    if (!Number.isInteger(this.epochs) || this.epochs < 1) throw new RlError(RlErrorCode.InvalidArgument, `epochs is ${this.epochs}; expected an integer >= 1`);
    if (!Number.isInteger(this.minibatches) || this.minibatches < 1) {
      throw new RlError(RlErrorCode.InvalidArgument, `minibatches is ${this.minibatches}; expected an integer >= 1`);
    }
    if (optimizer.dim !== model.dim) throw new RlError(RlErrorCode.InvalidArgument, `optimizer dim ${optimizer.dim} differs from model dim ${model.dim}`);
    this.grad = new SparseGradient(model.dim);
  }

  /** Samples of the kept groups (advantage per trajectory applied to each of its steps). */
  samples(groups: readonly GroupLike[]): { samples: GrpoSample[][]; groupOf: number[]; fates: Record<GroupFate, number>; trajectories: number } {
    const fates: Record<GroupFate, number> = { kept: 0, dropped_all_zero: 0, dropped_all_one: 0, dropped_all_equal: 0 };
    const perTrajectory: GrpoSample[][] = [];
    const groupOf: number[] = [];
    groups.forEach((g, gi) => {
      if (g.rewards.length !== g.trajectories.length) {
        throw new RlError(RlErrorCode.InvalidArgument, `groups[${gi}] has ${g.rewards.length} rewards but ${g.trajectories.length} trajectories`);
      }
      const fate = groupFate(g.rewards);
      fates[fate]++;
      if (fate !== 'kept') return;
      const adv = groupAdvantages(g.rewards, this.advantageEps);
      g.trajectories.forEach((t, ti) => {
        const a = adv[ti] ?? 0;
        perTrajectory.push(t.steps.map((trace) => ({ trace, advantage: a })));
        groupOf.push(gi);
      });
    });
    return { samples: perTrajectory, groupOf, fates, trajectories: perTrajectory.length };
  }

  update(groups: readonly GroupLike[]): UpdateStats {
    const { samples, groupOf, fates, trajectories } = this.samples(groups);
    const all = groups.flatMap((g) => g.rewards);
    const meanReward = all.length ? all.reduce((a, b) => a + b, 0) / all.length : 0;
    const { actions, epochs } = this.updateSamples(samples, groupOf);
    return { groups: groups.length, fates, trajectories, actions, meanReward, updated: actions > 0, epochs };
  }

  /**
   * The PPO epochs over samples whose advantages are already decided (one array of steps per
   * trajectory, e.g. from the trainer contract's TrainSample.advantage). `groupOf[i]` names the
   * group of trajectory i (any ids; deal 'group' keeps a group in one minibatch); without it each
   * trajectory is its own group.
   */
  updateSamples(samples: readonly (readonly GrpoSample[])[], groupOf?: readonly number[]): { actions: number; epochs: EpochStats[] } {
    if (groupOf !== undefined && groupOf.length !== samples.length) {
      throw new RlError(RlErrorCode.InvalidArgument, `groupOf has ${groupOf.length} entries for ${samples.length} trajectories`);
    }
    // Trajectories (or whole groups) are dealt round-robin into minibatches so every chunk mixes groups.
    const dealt: (readonly GrpoSample[])[][] = Array.from({ length: this.minibatches }, () => []);
    if (this.deal === 'group') {
      const slot = new Map<number, number>();
      samples.forEach((s, i) => {
        const g = groupOf?.[i] ?? -1 - i;
        let k = slot.get(g);
        if (k === undefined) slot.set(g, (k = slot.size % this.minibatches));
        dealt[k]?.push(s);
      });
    } else {
      samples.forEach((s, i) => dealt[i % this.minibatches]?.push(s));
    }
    // Per chunk its trajectories (seq_mean) and its actions.
    const trajOf = dealt.map((c) => c.filter((t) => t.length > 0)).filter((c) => c.length > 0);
    const nonEmpty = trajOf.map((c) => c.flat());
    const all = nonEmpty.flat();
    const actions = all.length;
    const epochs: EpochStats[] = [];
    if (actions > 0) {
      const clip = { clipLow: this.clipLow, clipHigh: this.clipHigh };
      // KL each chunk (or the batch) had before this update (0 on-policy; > 0 for stale behaviour log-probs).
      const klStart: number[] = [];
      const batchStart = this.trustScope === 'batch' ? grpoObjective(this.model, all, clip).approxKl : 0;
      for (let e = 0; e < this.epochs; e++) {
        const st: EpochStats = {
          epoch: e + 1,
          loss: 0,
          clipFraction: 0,
          approxKl: 0,
          approxKlAfter: 0,
          gradNorm: 0,
          meanRatio: 0,
          learningRate: 0,
          stepScale: 0,
          backtracks: 0,
          actions,
        };
        nonEmpty.forEach((chunk, ci) => {
          this.grad.clear();
          const r = this.lossAgg === 'seq_mean' ? this.seqMeanObjective(trajOf[ci] ?? [], clip) : grpoObjective(this.model, chunk, clip, this.grad);
          if (e === 0) klStart[ci] = r.approxKl;
          const s =
            this.trustScope === 'batch' ? this.trustStep(all, batchStart + this.trustKl) : this.trustStep(chunk, (klStart[ci] ?? 0) + this.trustKl);
          const w = chunk.length / actions;
          st.loss += r.loss * w;
          st.clipFraction += r.clipFraction * w;
          st.approxKl += r.approxKl * w;
          st.meanRatio += r.meanRatio * w;
          st.stepScale += s.scale * w;
          st.backtracks += s.backtracks;
          st.gradNorm = Math.max(st.gradNorm, s.gradNorm);
          if (this.trustScope === 'minibatch') st.approxKlAfter += s.klAfter * w;
        });
        // Batch scope: the KL the whole update has reached after this epoch.
        if (this.trustScope === 'batch') st.approxKlAfter = grpoObjective(this.model, all, clip).approxKl;
        st.learningRate = this.optimizer.lr * st.stepScale;
        epochs.push(st);
        if (this.klStop > 0 && st.approxKl > this.klStop) break;
      }
      this.grad.clear();
    }
    return { actions, epochs };
  }

  /**
   * seq_mean: the gradient of the mean over `trajectories` of each one's mean objective, into
   * `this.grad`. Loss is that mean; clip fraction, KL and mean ratio stay per action.
   */
  private seqMeanObjective(trajectories: readonly (readonly GrpoSample[])[], clip: { clipLow: number; clipHigh: number }): { loss: number; clipFraction: number; approxKl: number; meanRatio: number } {
    const part = (this.part ??= new SparseGradient(this.model.dim));
    const actions = trajectories.reduce((a, t) => a + t.length, 0);
    const out = { loss: 0, clipFraction: 0, approxKl: 0, meanRatio: 0 };
    for (const traj of trajectories) {
      part.clear();
      const r = grpoObjective(this.model, traj, clip, part);
      for (const i of part.indices) this.grad.add(i, part.get(i) / trajectories.length);
      const w = traj.length / actions;
      out.loss += r.loss / trajectories.length;
      out.clipFraction += r.clipFraction * w;
      out.approxKl += r.approxKl * w;
      out.meanRatio += r.meanRatio * w;
    }
    return out;
  }

  /**
   * One Adam step along the gradient in `this.grad`, shortened (halved, up to maxBacktracks
   * times, then dropped) while the approximate KL of `measure` from the behaviour policy exceeds
   * `limit`, or stretched (doubled, up to maxStepScale) while a full step leaves more than half
   * the room unused. Adam's moments keep the full gradient; only the applied displacement is scaled.
   */
  private trustStep(measure: readonly GrpoSample[], limit: number): { gradNorm: number; scale: number; backtracks: number; klAfter: number } {
    const weights = this.model.weights;
    const clip = { clipLow: this.clipLow, clipHigh: this.clipHigh };
    const idx = this.grad.indices.slice();
    const before = Float32Array.from(idx, (i) => weights[i] ?? 0);
    const { gradNorm } = this.optimizer.step(weights, this.grad);
    let klAfter = grpoObjective(this.model, measure, clip).approxKl;
    if (this.trustKl === 0) return { gradNorm, scale: 1, backtracks: 0, klAfter };
    const delta = Float32Array.from(idx, (i, k) => (weights[i] ?? 0) - (before[k] ?? 0));
    const place = (x: number) => idx.forEach((i, k) => (weights[i] = (before[k] ?? 0) + x * (delta[k] ?? 0)));
    let scale = 1;
    let backtracks = 0;
    if (klAfter <= limit) {
      // limit − trustKl is where the measured actions stood before the update.
      while (scale * 2 <= this.maxStepScale && klAfter - (limit - this.trustKl) < this.trustKl / 2) {
        place(scale * 2);
        const kl = grpoObjective(this.model, measure, clip).approxKl;
        if (kl > limit) {
          place(scale);
          break;
        }
        scale *= 2;
        klAfter = kl;
      }
      return { gradNorm, scale, backtracks, klAfter };
    }
    while (klAfter > limit) {
      if (backtracks === this.maxBacktracks) {
        scale = 0;
        place(0);
        klAfter = grpoObjective(this.model, measure, clip).approxKl;
        break;
      }
      scale /= 2;
      backtracks++;
      place(scale);
      klAfter = grpoObjective(this.model, measure, clip).approxKl;
    }
    return { gradNorm, scale, backtracks, klAfter };
  }
}
