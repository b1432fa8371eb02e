// GRPO update of the pointer policy: dynamic sampling (drop groups with equal rewards), group
// advantages applied to every step of a trajectory, `epochs` passes of the clipped objective in
// `minibatches` chunks, each followed by an Adam step.
import { DEFAULTS } from '@owrl/core';
import { SparseGradient, type PointerModel } from '@owrl/policy';
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
  /** PPO epochs per batch; default 2. */
  epochs?: number;
  clipLow?: number;
  clipHigh?: number;
  /** Minibatches per epoch (one Adam step each); default 1. */
  minibatches?: number;
  advantageEps?: number;
}

export interface EpochStats {
  loss: number;
  clipFraction: number;
  approxKl: number;
  gradNorm: number;
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
  private readonly grad: SparseGradient;

  constructor(
    readonly model: PointerModel,
    readonly optimizer: Adam,
    opts: GrpoTrainerOptions = {},
  ) {
    this.epochs = opts.epochs ?? DEFAULTS.ppoEpochs;
    this.minibatches = opts.minibatches ?? 1;
    this.clipLow = opts.clipLow ?? DEFAULTS.clipLow;
    this.clipHigh = opts.clipHigh ?? DEFAULTS.clipHigh;
    this.advantageEps = opts.advantageEps ?? DEFAULTS.advantageEps;
    if (!Number.isInteger(this.epochs) || this.epochs < 1) throw new RlError(RlErrorCode.InvalidArgument, `epochs is ${this.epochs}; expected an integer >= 1`);
    if (!Number.isInteger(this.minibatches) || this.minibatches < 1) {
      throw new RlError(RlErrorCode.InvalidArgument, `minibatches is ${this.minibatches}; expected an integer >= 1`);
    }
    if (optimizer.dim !== model.dim) throw new RlError(RlErrorCode.InvalidArgument, `optimizer dim ${optimizer.dim} differs from model dim ${model.dim}`);
    this.grad = new SparseGradient(model.dim);
  }

  /** Samples of the kept groups (advantage per trajectory applied to each of its steps). */
  samples(groups: readonly GroupLike[]): { samples: GrpoSample[][]; fates: Record<GroupFate, number>; trajectories: number } {
    const fates: Record<GroupFate, number> = { kept: 0, dropped_all_zero: 0, dropped_all_one: 0, dropped_all_equal: 0 };
    const perTrajectory: GrpoSample[][] = [];
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
      });
    });
    return { samples: perTrajectory, fates, trajectories: perTrajectory.length };
  }

  update(groups: readonly GroupLike[]): UpdateStats {
    const { samples, fates, trajectories } = this.samples(groups);
    const all = groups.flatMap((g) => g.rewards);
    const meanReward = all.length ? all.reduce((a, b) => a + b, 0) / all.length : 0;
    // Trajectories are dealt round-robin into minibatches so every chunk mixes groups.
    const chunks: GrpoSample[][] = Array.from({ length: this.minibatches }, () => []);
    samples.forEach((s, i) => chunks[i % this.minibatches]?.push(...s));
    const nonEmpty = chunks.filter((c) => c.length > 0);
    const actions = nonEmpty.reduce((a, c) => a + c.length, 0);
    const epochs: EpochStats[] = [];
    if (actions > 0) {
      for (let e = 0; e < this.epochs; e++) {
        const st: EpochStats = { loss: 0, clipFraction: 0, approxKl: 0, gradNorm: 0 };
        for (const chunk of nonEmpty) {
          this.grad.clear();
          const r = grpoObjective(this.model, chunk, { clipLow: this.clipLow, clipHigh: this.clipHigh }, this.grad);
          const s = this.optimizer.step(this.model.weights, this.grad);
          const w = chunk.length / actions;
          st.loss += r.loss * w;
          st.clipFraction += r.clipFraction * w;
          st.approxKl += r.approxKl * w;
          st.gradNorm = Math.max(st.gradNorm, s.gradNorm);
        }
        epochs.push(st);
      }
      this.grad.clear();
    }
    return { groups: groups.length, fates, trajectories, actions, meanReward, updated: actions > 0, epochs };
  }
}
