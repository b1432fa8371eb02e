// The learner folds shadow verdicts into RunState.judge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { make, RunStateSchema, type RunState, ScoredTrajectorySchema, VerdictSchema, VerdictSource } from '@owrl/proto';
import { recordShadow } from '../src/judge-calibration.js';

const scored = (verifier: boolean, model: boolean | undefined, source = VerdictSource.VERIFIER) =>
  make(ScoredTrajectorySchema, {
    verdict: make(VerdictSchema, { success: verifier, reward: verifier ? 1 : 0, source }),
    ...(model === undefined ? {} : { shadow: make(VerdictSchema, { success: model, source: VerdictSource.MODEL, judgeVersion: 'tiny-judge@1' }) }),
  });

void test('shadow pairs build the confusion matrix and figures; others are ignored', () => {
  const st = make(RunStateSchema, {});
  assert.equal(recordShadow(st, scored(true, undefined)), false);
  assert.equal(recordShadow(st, scored(true, true, VerdictSource.MODEL)), false);
  assert.equal(st.judge, undefined);
  const pairs: Array<[boolean, boolean]> = [[true, true], [true, false], [false, false], [false, false], [false, true]];
  for (const [v, m] of pairs) assert.equal(recordShadow(st, scored(v, m)), true);
  const judgeOf = (r: RunState) => r.judge; // (re-read: the assert above narrowed st.judge)
  const j = judgeOf(st);
  assert.ok(j);
  assert.deepEqual([j.n, j.tp, j.fp, j.fn, j.tn], [5n, 1n, 1n, 1n, 2n]);
  assert.equal(j.agreement, 3 / 5);
  assert.equal(j.precision, 1 / 2);
  assert.equal(j.recall, 1 / 2);
  assert.equal(j.f1, 1 / 2);
  assert.equal(j.judgeVersion, 'tiny-judge@1');
});
