// Shadow mode: the model judges alongside the verifier without changing the reward, and the
// calibration figures are computed from the pairs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TerminationClass, VerdictSource } from '@owrl/proto';
import {
  addPair,
  calibrationFigures,
  confusionTable,
  createVerifiers,
  emptyConfusion,
  judgeTrajectory,
  toScored,
  type VerdictProvider,
} from '@owrl/judge-core';
import { answerVerifier, traj } from './helpers.js';

function model(answer: (calls: number) => 'yes' | 'no' | 'throw' | 'hang'): VerdictProvider & { calls: number } {
  const m = {
    calls: 0,
    name: 'model',
    source: VerdictSource.MODEL,
    async judge(_t: unknown, ctx: { signal: AbortSignal }) {
      m.calls++;
      const a = answer(m.calls);
      if (a === 'throw') throw new Error('worker crashed');
      if (a === 'hang') await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      return { kind: 'verdict' as const, success: a === 'yes', detail: `model says ${a}`, pSuccess: a === 'yes' ? 0.9 : 0.1 };
    },
  };
  return m;
}

const deps = (shadow: VerdictProvider, timeoutMs = 2000) => ({ verifiers: createVerifiers(), judgeVersion: 'judge-v3', timeoutMs, shadow });

void test('the verifier decides the reward and the model verdict rides along as the shadow', async () => {
  const m = model(() => 'no');
  const o = await judgeTrajectory(traj({ answer: '$5.00', verifier: answerVerifier(['$5.00']) }), deps(m));
  assert.equal(o.kind, 'scored');
  if (o.kind !== 'scored') return;
  assert.equal(o.verdict.source, VerdictSource.VERIFIER);
  assert.equal(o.verdict.reward, 1);
  assert.equal(o.shadow?.source, VerdictSource.MODEL);
  assert.equal(o.shadow?.success, false);
  assert.equal(o.shadow?.pSuccess, 0.1);
  assert.equal(o.shadow?.judgeVersion, 'judge-v3');
  assert.equal(m.calls, 1);
  const s = toScored(traj(), o, 1);
  assert.equal(s.shadow?.success, false);
  assert.equal(s.verdict?.reward, 1);
});

void test('no shadow where the rule filter decides or the task has no verifier', async () => {
  const m = model(() => 'yes');
  const noDone = await judgeTrajectory(traj({ calledDone: false, cls: TerminationClass.STEP_BUDGET_EXHAUSTED, verifier: answerVerifier(['x']) }), deps(m));
  assert.equal(noDone.kind === 'scored' && noDone.shadow, undefined);
  const noVerifier = await judgeTrajectory(traj({ answer: 'x' }), deps(m));
  assert.equal(noVerifier.kind, 'excluded');
  assert.equal(m.calls, 0);
});

void test('a failing or hanging shadow never changes the reward', async () => {
  for (const mode of ['throw', 'hang'] as const) {
    const o = await judgeTrajectory(traj({ answer: 'wrong', verifier: answerVerifier(['right']) }), deps(model(() => mode), 200));
    assert.equal(o.kind, 'scored', mode);
    if (o.kind !== 'scored') continue;
    assert.equal(o.verdict.reward, 0);
    assert.equal(o.shadow, undefined);
    assert.match(o.shadowUnavailable ?? '', /^judge:model_/, mode);
  }
});

void test('calibration figures from a confusion matrix', () => {
  const c = emptyConfusion();
  const pairs: Array<[boolean, boolean]> = [[true, true], [true, true], [true, false], [false, true], [false, false], [false, false], [false, false]];
  for (const [p, r] of pairs) addPair(c, p, r);
  const f = calibrationFigures(c);
  assert.deepEqual([f.tp, f.fp, f.fn, f.tn, f.n], [2, 1, 1, 3, 7]);
  assert.equal(f.agreement, 5 / 7);
  assert.equal(f.precision, 2 / 3);
  assert.equal(f.recall, 2 / 3);
  assert.ok(Math.abs(f.f1 - 2 / 3) < 1e-12);
  const empty = calibrationFigures(emptyConfusion());
  assert.deepEqual([empty.agreement, empty.precision, empty.recall, empty.f1], [0, 0, 0, 0]);
  const table = confusionTable(c);
  assert.match(table, /ref success\s+2\s+1/);
  assert.match(table, /ref failure\s+1\s+3/);
});
