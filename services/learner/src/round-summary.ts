// A round's summary (RunState.rounds, the round line, the report) and its mean reward, computed
// once from the ledger's decided groups: groups still in flight belong to the round that decides them.
import { DifficultyStatSchema, make, RoundSummarySchema, stepCount, SuiteStatSchema, type RoundSummary } from '@owrl/proto';
import type { Logger } from '@owrl/core';
import type { RoundLedger } from './round-ledger.js';
import type { RoundStats } from './round-stats.js';

/** The round's summary, computed once from the ledger's decided groups (the policy version it started from). */
export function summarizeRound(ledger: RoundLedger, round: number, maxSteps: number, stats: RoundStats, policyVersion: number): RoundSummary {
  const summary = make(RoundSummarySchema, { round: BigInt(round), policyVersion: BigInt(policyVersion), maxSteps });
  const byDifficulty = new Map<number, { episodes: number; successes: number }>();
  const bySuite = new Map<string, { episodes: number; successes: number }>();
  let steps = 0;
  for (const g of ledger.groups.values()) {
    // Async: groups still in flight belong to the round that decides them.
    if (g.fate === 'pending') continue;
    if (g.fate === 'kept') summary.groupsKept += 1;
    else if (g.fate === 'dropped_all_zero') summary.groupsDroppedAllZero += 1;
    else if (g.fate === 'dropped_all_one') summary.groupsDroppedAllOne += 1;
    for (const s of g.samples) {
      if (s.status !== 'done' || !s.scored) continue;
      const reward = s.scored.verdict?.reward ?? 0;
      const win = reward > 0.5 ? 1 : 0;
      summary.episodes += 1;
      summary.successes += win;
      steps += s.scored.trajectory ? stepCount(s.scored.trajectory) : 0;
      const d = byDifficulty.get(g.task.difficulty) ?? { episodes: 0, successes: 0 };
      d.episodes += 1;
      d.successes += win;
      byDifficulty.set(g.task.difficulty, d);
      const suite = g.task.suite || '(none)';
      const su = bySuite.get(suite) ?? { episodes: 0, successes: 0 };
      su.episodes += 1;
      su.successes += win;
      bySuite.set(suite, su);
    }
  }
  summary.timeoutsPolicy = stats.timeouts.policy;
  summary.timeoutsSite = stats.timeouts.site;
  summary.groupsExhausted = stats.exhaustedGroups;
  summary.terminations = { ...stats.terminations };
  summary.excluded = { ...stats.excluded };
  summary.successRate = summary.episodes > 0 ? summary.successes / summary.episodes : 0;
  summary.meanSteps = summary.episodes > 0 ? steps / summary.episodes : 0;
  summary.byDifficulty = [...byDifficulty.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([difficulty, v]) => make(DifficultyStatSchema, { difficulty, episodes: v.episodes, successes: v.successes }));
  summary.bySuite = [...bySuite.entries()]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([suite, v]) => make(SuiteStatSchema, { suite, episodes: v.episodes, successes: v.successes }));
  return summary;
}

/** Mean reward of the round's scored rollouts (0 when none). */
export function meanReward(ledger: RoundLedger): number {
  let sum = 0;
  let n = 0;
  for (const g of ledger.groups.values()) {
    if (g.fate === 'pending') continue;
    for (const s of g.samples) {
      if (s.status !== 'done' || !s.scored) continue;
      sum += s.scored.verdict?.reward ?? 0;
      n += 1;
    }
  }
  return n > 0 ? sum / n : 0;
}

/** The round line: the round's outcome once its update is published (`carried`: async mode's groups going on into the next round). */
export function logRoundFinished(logger: Logger, runId: string, round: number, policyVersion: number, summary: RoundSummary, carried: { carried: number; inFlight: number } | null): void {
  logger.info(
    {
      run: runId,
      round,
      policyVersion,
      successRate: Number(summary.successRate.toFixed(3)),
      episodes: summary.episodes,
      kept: summary.groupsKept,
      droppedAllZero: summary.groupsDroppedAllZero,
      droppedAllOne: summary.groupsDroppedAllOne,
      loss: summary.loss,
      wallS: summary.wallS,
      updateS: summary.updateS,
      ...(carried ?? {}),
    },
    'round finished',
  );
}
