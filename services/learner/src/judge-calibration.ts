// Shadow-mode calibration of the judge model as the learner sees it: every scored trajectory whose
// reward came from the task verifier and that carries the model's shadow verdict adds one pair to
// the run's confusion matrix, published in RunState.judge (GetRunState / WatchRun / owrl status).
import { addPair, calibrationFigures, type Confusion } from '@owrl/judge-core';
import { JudgeCalibrationSchema, make, VerdictSource, type RunState, type ScoredTrajectory } from '@owrl/proto';

/** Adds the shadow pair of `scored` to `state.judge`; false when it carries none. */
export function recordShadow(state: RunState, scored: ScoredTrajectory): boolean {
  const shadow = scored.shadow;
  const verdict = scored.verdict;
  if (shadow === undefined || verdict === undefined || verdict.source !== VerdictSource.VERIFIER) return false;
  const j = state.judge ?? make(JudgeCalibrationSchema, {});
  const c: Confusion = { tp: Number(j.tp), fp: Number(j.fp), fn: Number(j.fn), tn: Number(j.tn) };
  const f = calibrationFigures(addPair(c, shadow.success, verdict.success));
  state.judge = make(JudgeCalibrationSchema, {
    n: BigInt(f.n),
    tp: BigInt(f.tp),
    fp: BigInt(f.fp),
    fn: BigInt(f.fn),
    tn: BigInt(f.tn),
    agreement: f.agreement,
    precision: f.precision,
    recall: f.recall,
    f1: f.f1,
    judgeVersion: shadow.judgeVersion,
  });
  return true;
}
