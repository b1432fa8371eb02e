// The judge model as a judge-core verdict source (docs/design.md §7 `model`): concurrent judge() calls
// are gathered for a short window into one scoreBatch; P(yes) ≥ threshold is a success. Timeouts
// and failures are `unavailable` outcomes (excluded by the pipeline), never a reward of 0.
import type { SourceResult, VerdictContext, VerdictProvider } from '@owrl/judge-core';
import { VerdictSource, type Trajectory } from '@owrl/proto';
import { isJudgeModelError, JudgeModelError, JudgeModelErrorCode } from './errors.js';
import type { BatchScorer, JudgeScore } from './judge.js';
import { judgeInputFromTrajectory, type JudgeInput } from './prompt.js';

export const ModelReason = {
  Timeout: 'judge:model_timeout',
  Error: 'judge:model_error',
  /** API judge: the reply held no yes/no verdict. */
  BadReply: 'judge:model_bad_reply',
  /** API judge: no answer after the retries (connection failures, 5xx, 429). */
  Unreachable: 'judge:model_unreachable',
} as const;

export interface ModelSourceOptions {
  /** P(yes) at or above which the verdict is a success. Default: the judge's threshold. */
  threshold?: number;
  /** How long the first call of a batch waits for others, ms. Default 5. */
  batchWindowMs?: number;
  /** Largest batch sent at once. Default: the judge's maxBatch. */
  maxBatch?: number;
  /**
   * The model's budget per trajectory, ms. Default: 95 % of the pipeline's budget, so that a slow
   * model is reported as `judge:model_timeout` before the pipeline's own deadline fires.
   */
  timeoutMs?: number;
}

interface Pending {
  input: JudgeInput;
  deadline: number;
  done: boolean;
  finish(r: SourceResult): void;
}

const REASON_OF: Partial<Record<JudgeModelErrorCode, string>> = {
  [JudgeModelErrorCode.Timeout]: ModelReason.Timeout,
  [JudgeModelErrorCode.BadReply]: ModelReason.BadReply,
  [JudgeModelErrorCode.Unreachable]: ModelReason.Unreachable,
};

function unavailable(e: unknown): SourceResult {
  const reason = (isJudgeModelError(e) ? REASON_OF[e.code] : undefined) ?? ModelReason.Error;
  const detail = e instanceof Error ? `${e.name}${isJudgeModelError(e) ? ` ${e.code}` : ''}: ${e.message}` : String(e);
  return { kind: 'unavailable', reason, detail };
}

/** How a score was obtained, for the verdict detail. */
function basisOf(s: JudgeScore): string {
  if (s.basis === 'answer') return ` from the answer ${JSON.stringify(s.answer ?? '')} (no probabilities: ${s.fallback ?? 'none returned'})`;
  if (s.basis === 'logprobs') return ` from logprobs ${(s.candidates ?? []).join(' ')}`;
  return '';
}

/** The pipeline gave up on the call (its deadline, or shutdown). */
function abandoned(signal: AbortSignal): SourceResult {
  const why = signal.reason as Error | undefined;
  const reason = why?.name === 'TimeoutError' ? ModelReason.Timeout : ModelReason.Error;
  return { kind: 'unavailable', reason, detail: `judge model call abandoned: ${why?.message ?? 'aborted'}` };
}

export function modelVerdictSource(judge: BatchScorer, opts: ModelSourceOptions = {}): VerdictProvider {
  const threshold = opts.threshold ?? judge.threshold;
  const windowMs = opts.batchWindowMs ?? 5;
  const maxBatch = opts.maxBatch ?? judge.maxBatch;
  if (!(threshold >= 0 && threshold <= 1)) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `threshold must be within [0, 1], got ${threshold}`);
  if (!(windowMs >= 0)) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `batchWindowMs must be >= 0, got ${windowMs}`);
  if (!Number.isInteger(maxBatch) || maxBatch <= 0) throw new JudgeModelError(JudgeModelErrorCode.InvalidArgument, `maxBatch must be a positive integer, got ${maxBatch}`);

  let queue: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;

  const verdict = (s: JudgeScore): SourceResult => ({
    kind: 'verdict',
    success: s.pYes >= threshold,
    pSuccess: s.pYes,
    detail:
      `model ${judge.version}: p_yes=${s.pYes.toFixed(4)}${basisOf(s)} threshold=${threshold} (${s.promptTokens} prompt tokens` +
      `${s.droppedSteps > 0 ? `, ${s.droppedSteps} oldest steps left out` : ''})`,
  });

  const send = (batch: Pending[]) => {
    const budget = Math.max(...batch.map((p) => p.deadline)) - Date.now();
    judge.scoreEach(
      batch.map((p) => p.input),
      { timeoutMs: Math.max(1, budget) },
    ).then(
      (scores) =>
        batch.forEach((p, i) => {
          const s = scores[i] ?? new JudgeModelError(JudgeModelErrorCode.InferenceFailed, `no score for batch row ${i}`);
          p.finish(s instanceof JudgeModelError ? unavailable(s) : verdict(s));
        }),
      (e: unknown) => batch.forEach((p) => p.finish(unavailable(e))),
    );
  };

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const live = queue.filter((p) => !p.done);
    queue = [];
    for (let i = 0; i < live.length; i += maxBatch) send(live.slice(i, i + maxBatch));
  };

  return {
    name: 'model',
    source: VerdictSource.MODEL,
    version: judge.version,
    judge(traj: Trajectory, ctx: VerdictContext): Promise<SourceResult> {
      if (ctx.signal.aborted) return Promise.resolve(abandoned(ctx.signal));
      const budget = Math.max(1, opts.timeoutMs ?? Math.floor(ctx.timeoutMs * 0.95));
      return new Promise<SourceResult>((resolve) => {
        const p: Pending = {
          input: judgeInputFromTrajectory(traj),
          deadline: Date.now() + budget,
          done: false,
          finish(r) {
            if (p.done) return;
            p.done = true;
            clearTimeout(ownTimer);
            ctx.signal.removeEventListener('abort', onAbort);
            resolve(r);
          },
        };
        const onAbort = () => p.finish(abandoned(ctx.signal));
        const ownTimer = setTimeout(
          () => p.finish({ kind: 'unavailable', reason: ModelReason.Timeout, detail: `judge model did not answer within ${budget} ms` }),
          budget,
        );
        ctx.signal.addEventListener('abort', onAbort, { once: true });
        queue.push(p);
        if (queue.length >= maxBatch) flush();
        else timer ??= setTimeout(flush, windowMs);
      });
    },
  };
}
