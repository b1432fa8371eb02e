// An update's UpdateStats as the learner records them: from the batch it sent (groups, samples,
// steps, mean reward) and the epochs the trainer reported.
import type { TrainResult } from '@owrl/proto';
import type { EpochStats, UpdateStats } from '@owrl/rl';
import type { TrainBatch } from './train-batch.js';

/** What an update's stats need of its batch. */
export interface BatchFigures {
  groups: number;
  samples: number;
  steps: number;
  meanReward: number;
}

export function figuresOf(b: TrainBatch): BatchFigures {
  return { groups: b.groups.length, samples: b.groups.reduce((n, g) => n + g.samples.length, 0), steps: b.steps, meanReward: b.meanReward };
}

/** Stats of an update of the kept groups `f` describes. */
export function statsOf(f: BatchFigures, epochs: EpochStats[]): UpdateStats {
  return {
    groups: f.groups,
    fates: { kept: f.groups, dropped_all_zero: 0, dropped_all_one: 0, dropped_all_equal: 0 },
    trajectories: f.samples,
    actions: f.steps,
    meanReward: f.meanReward,
    updated: true,
    epochs,
  };
}

/** Update health as the contract reports it (no trust-region fields: the step was the trainer's). */
export function epochsOf(r: TrainResult): EpochStats[] {
  return r.epochs.map((e) => ({
    epoch: e.epoch,
    loss: e.loss,
    clipFraction: e.clipFraction,
    approxKl: e.approxKl,
    approxKlAfter: e.approxKl,
    gradNorm: e.gradNorm,
    meanRatio: e.meanRatio,
    learningRate: e.learningRate,
    stepScale: 1,
    backtracks: 0,
    actions: Number(e.actions),
  }));
}

/** Stats of an update trained from a stored request after a restart (its groups are not in memory). */
export function replayedStats(trajectories: number, actions: number, epochs: EpochStats[]): UpdateStats {
  return { groups: 0, fates: { kept: 0, dropped_all_zero: 0, dropped_all_one: 0, dropped_all_equal: 0 }, trajectories, actions, meanReward: 0, updated: true, epochs };
}
