// Wraps a trajectory and the judge's outcome into the ScoredTrajectory the learner consumes.
import { make, ScoredTrajectorySchema, type ScoredTrajectory, type Trajectory } from '@owrl/proto';
import type { JudgeOutcome } from './outcome.js';

/** Id of a trajectory: its own field, else the one of its rollout request. */
export function trajectoryIdOf(traj: Trajectory): string {
  return traj.trajectoryId || traj.request?.trajectoryId || '';
}

/**
 * The scored message for `outcome`. Excluded outcomes carry no verdict, `trainable = false` and
 * `excluded_reason`; `nowMs` (epoch milliseconds) becomes `judged_at_ms`.
 */
export function toScored(traj: Trajectory, outcome: JudgeOutcome, nowMs: number): ScoredTrajectory {
  return make(ScoredTrajectorySchema, {
    trajectoryId: trajectoryIdOf(traj),
    trajectory: traj,
    trainable: outcome.kind === 'scored',
    judgedAtMs: BigInt(Math.max(0, Math.floor(nowMs))),
    ...(outcome.kind === 'scored' ? { verdict: outcome.verdict } : { excludedReason: outcome.reason }),
    ...(outcome.kind === 'scored' && outcome.shadow !== undefined ? { shadow: outcome.shadow } : {}),
  });
}
