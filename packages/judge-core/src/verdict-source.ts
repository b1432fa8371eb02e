// Verdict sources: pluggable deciders consulted after the format and rule stages. The task's
// programmatic verifier is one; a judge model (docs/design.md §7 `model`) plugs in through the same
// interface. Named VerdictProvider because `VerdictSource` is the wire enum of @owrl/proto.
import { VerdictSource, type Trajectory } from '@owrl/proto';
import type { CheckResult } from './check-result.js';
import type { Verifiers } from './verifiers.js';

export interface VerdictContext {
  judgeVersion: string;
  /** Budget of this source for this trajectory, in milliseconds (also enforced by the pipeline). */
  timeoutMs: number;
  /** Aborted when the budget is spent or the judge shuts down. */
  signal: AbortSignal;
}

export type SourceResult =
  | { kind: 'verdict'; success: boolean; detail: string; /** Model probability of success. */ pSuccess?: number }
  | { kind: 'unavailable'; /** Stable exclusion reason, `judge:<...>`. */ reason: string; detail: string };

export interface VerdictProvider {
  /** Short stable name used in exclusion reasons (`judge:<name>_unavailable`) and logs. */
  readonly name: string;
  /** Wire value recorded in the verdict. */
  readonly source: VerdictSource;
  /** Version written into this source's verdicts (a judge model's version); the judge's otherwise. */
  readonly version?: string;
  /**
   * Judges a trajectory that passed the format and rule stages. Returns null when this source
   * cannot judge it (e.g. the task has no verifier), so the next source is asked. A throw or a
   * timeout becomes an excluded outcome, never a reward.
   */
  judge(traj: Trajectory, ctx: VerdictContext): Promise<SourceResult | null>;
}

function fromCheck(r: CheckResult, prefix: string): SourceResult {
  if (r.status === 'unavailable') return { kind: 'unavailable', reason: r.reason, detail: `${prefix}${r.detail}` };
  return { kind: 'verdict', success: r.status === 'pass', detail: `${prefix}${r.detail}` };
}

/**
 * The task's programmatic verifier as a verdict source. `also_answer` is combined with AND and
 * checked first, so a wrong answer decides without asking the site (an outage then cannot hide a
 * certain failure).
 */
export function verifierSource(verifiers: Verifiers): VerdictProvider {
  return {
    name: 'verifier',
    source: VerdictSource.VERIFIER,
    async judge(traj, ctx) {
      const task = traj.request?.task;
      const v = task?.verifier;
      if (task === undefined || v === undefined) return null;
      if (v.kind.case === undefined && v.alsoAnswer === undefined) return null;
      const details: string[] = [];
      if (v.alsoAnswer !== undefined) {
        const a = fromCheck(verifiers.answer(v.alsoAnswer, traj.finalAnswer), 'also_answer: ');
        if (a.kind === 'unavailable' || !a.success) return a;
        details.push(a.detail);
      }
      let r: CheckResult;
      switch (v.kind.case) {
        case undefined:
          return { kind: 'verdict', success: true, detail: details.join('; ') };
        case 'answer':
          r = verifiers.answer(v.kind.value, traj.finalAnswer);
          break;
        case 'siteState':
          r = await verifiers.siteState(v.kind.value, {
            sessionId: traj.request?.sessionId ?? '',
            baseUrl: task.startUrl,
            timeoutMs: ctx.timeoutMs,
            signal: ctx.signal,
          });
          break;
        case 'pageExpression':
          r = verifiers.pageExpression(v.kind.value, traj.finalPageEval);
          break;
      }
      const main = fromCheck(r, '');
      if (main.kind === 'unavailable') return main;
      return { kind: 'verdict', success: main.success, detail: [main.detail, ...details].join('; ') };
    },
  };
}
