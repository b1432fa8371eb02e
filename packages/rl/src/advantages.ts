// Group-relative advantages of GRPO and the dynamic-sampling fate of a group (docs/design.md §1).
import { DEFAULTS } from '@owrl/core';
import { RlError, RlErrorCode } from './errors.js';

function check(rewards: readonly number[]): void {
  if (rewards.length === 0) throw new RlError(RlErrorCode.InvalidArgument, 'rewards is empty; a group needs at least one reward');
  rewards.forEach((r, i) => {
    if (!Number.isFinite(r)) throw new RlError(RlErrorCode.InvalidArgument, `rewards[${i}] is ${r}; expected a finite number`);
  });
}

/** (r − mean) / (std + eps) per reward, with the population standard deviation. */
export function groupAdvantages(rewards: readonly number[], eps: number = DEFAULTS.advantageEps): number[] {
  check(rewards);
  const n = rewards.length;
  const mean = rewards.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / n);
  return rewards.map((r) => (r - mean) / (std + eps));
}

/**
 * 'kept' when rewards differ; groups with identical rewards carry no learning signal and are
 * dropped as all-zero (every reward ≤ 0), all-one (every reward ≥ 1) or, for other equal
 * non-binary rewards, all-equal.
 */
export type GroupFate = 'kept' | 'dropped_all_zero' | 'dropped_all_one' | 'dropped_all_equal';

export function groupFate(rewards: readonly number[]): GroupFate {
  check(rewards);
  const first = rewards[0] ?? 0;
  if (rewards.some((r) => r !== first)) return 'kept';
  if (first <= 0) return 'dropped_all_zero';
  if (first >= 1) return 'dropped_all_one';
  return 'dropped_all_equal';
}
