// The recipe's rules for failures, applied to each result before it enters the round (pure):
// - a task timeout is blamed from the episode's own timings: the share of its wall time spent in
//   the policy (the step in progress when it was cut off included) against browser and network
//   time. Blamed on the policy, it is scored 0 and trained (a policy that dawdles keeps its
//   penalty); blamed on the site, it stays excluded and is re-dispatched. `site` and `policy`
//   blame every timeout one way.
// - an episode whose serving engine cannot record token-level traces (engine_incompatible) ends
//   the run: nothing of the run could be trained.
// - a sample that spends its attempts drops its whole group (round-ledger.ts), counted.
import { REASON_ENGINE_INCOMPATIBLE } from '@owrl/core';
import { create, FailureRulesSchema, TerminationClass, VerdictSchema, VerdictSource, type FailureRules as WireFailureRules, type ScoredTrajectory } from '@owrl/proto';

export type TimeoutBlame = 'timings' | 'site' | 'policy';

export interface FailureRules {
  timeoutBlame: TimeoutBlame;
  /** With `timings`: the policy's share of the wall time from which a timeout is the policy's. */
  timeoutPolicyShare: number;
  /** Attempts per sample slot (the first and its re-dispatches). */
  maxAttempts: number;
  /** A group one of whose samples spent its attempts is dropped whole. */
  exhaustedGroups: 'drop';
}

export const DEFAULT_TIMEOUT_POLICY_SHARE = 0.5;

/** Written into the verdict of a timeout the rules blamed on the policy. */
export const FAILURE_RULES_JUDGE = 'owrl-learner/failure-rules';

/** The rules as the run state shows them. */
export function failureRulesState(r: FailureRules): WireFailureRules {
  return create(FailureRulesSchema, { timeoutBlame: r.timeoutBlame, timeoutPolicyShare: r.timeoutPolicyShare, maxAttempts: r.maxAttempts, exhaustedGroups: r.exhaustedGroups });
}

/** Who a task timeout is blamed on, and the policy's share of the episode's wall time. */
export function blameTimeout(st: ScoredTrajectory, r: Pick<FailureRules, 'timeoutBlame' | 'timeoutPolicyShare'>): { blame: 'policy' | 'site'; policyShare: number; wallMs: number } {
  const d = st.trajectory?.diagnostics;
  const t = d?.latencyTotal;
  const policyMs = t?.policyMs ?? 0;
  const measured = policyMs + (t?.actionMs ?? 0) + (t?.settleMs ?? 0) + (t?.observeMs ?? 0);
  // the episode's wall time holds the start-page load and closing too; without it, what was measured
  const wallMs = Math.max(d?.wallMs ?? 0, measured);
  const policyShare = wallMs > 0 ? policyMs / wallMs : 0;
  if (r.timeoutBlame !== 'timings') return { blame: r.timeoutBlame, policyShare, wallMs };
  return { blame: policyShare >= r.timeoutPolicyShare ? 'policy' : 'site', policyShare, wallMs };
}

function isTaskTimeout(st: ScoredTrajectory): boolean {
  const term = st.trajectory?.termination;
  return !st.trainable && term?.reason === 'task_timeout' && term.class === TerminationClass.ENV_ERROR;
}

/**
 * Applies the timeout rule to `st` (in place: a timeout blamed on the policy becomes trainable
 * with reward 0 and a verdict saying why). Returns who a task timeout was blamed on, or undefined
 * for any other result.
 */
export function applyTimeoutRule(st: ScoredTrajectory, r: FailureRules): 'policy' | 'site' | undefined {
  if (!isTaskTimeout(st)) return undefined;
  const b = blameTimeout(st, r);
  if (b.blame === 'site') return 'site';
  st.trainable = true;
  st.excludedReason = '';
  st.verdict = create(VerdictSchema, {
    reward: 0,
    success: false,
    source: VerdictSource.RULE,
    judgeVersion: FAILURE_RULES_JUDGE,
    detail: `task timeout blamed on the policy: ${Math.round(b.policyShare * 100)} % of the episode's ${Math.round(b.wallMs / 1000)} s was spent deciding (rule ${r.timeoutBlame}${r.timeoutBlame === 'timings' ? `, from ${Math.round(r.timeoutPolicyShare * 100)} %` : ''})`,
  });
  return 'policy';
}

/** The reason to end the run when `st` says its engine cannot record token-level traces, else undefined. */
export function engineIncompatible(st: ScoredTrajectory): string | undefined {
  const t = st.trajectory;
  if (t?.termination?.reason !== REASON_ENGINE_INCOMPATIBLE) return undefined;
  return `the serving engine cannot record token-level traces, so nothing of this run could be trained (actor ${t.actorId || '?'}, trajectory ${st.trajectoryId}): ${t.termination.message}`;
}
