import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  make,
  decode,
  encode,
  AnswerMatchSchema,
  PageExpressionSchema,
  ScoredTrajectorySchema,
  SiteStateCheckSchema,
  TerminationClass,
  VerdictSource,
  VerifierSchema,
} from '@owrl/proto';
import {
  createVerifiers,
  judgeTrajectory,
  toScored,
  JudgeError,
  type JudgeOutcome,
  type Verifiers,
  type VerdictProvider,
} from '@owrl/judge-core';
import { answerVerifier, pageEval, traj } from './helpers.js';

/** Default verifiers whose site-state check must never be reached, counting calls. */
function countingVerifiers(): Verifiers & { calls: string[] } {
  const base = createVerifiers();
  const calls: string[] = [];
  return {
    calls,
    answer: (m, a) => (calls.push('answer'), base.answer(m, a)),
    siteState: async () => {
      calls.push('siteState');
      return { status: 'unavailable', reason: 'judge:verifier_unavailable', detail: 'site down in this test' };
    },
    pageExpression: (e, p) => (calls.push('pageExpression'), base.pageExpression(e, p)),
  };
}

const deps = (verifiers: Verifiers = createVerifiers(), extra: { sources?: VerdictProvider[]; timeoutMs?: number } = {}) => ({
  verifiers,
  judgeVersion: 'verifier-test-7',
  timeoutMs: extra.timeoutMs ?? 2000,
  ...(extra.sources ? { sources: extra.sources } : {}),
});

function scored(o: JudgeOutcome) {
  assert.equal(o.kind, 'scored', `expected a verdict, got ${JSON.stringify(o)}`);
  if (o.kind !== 'scored') throw new Error('unreachable');
  return o.verdict;
}
function excluded(o: JudgeOutcome): string {
  assert.equal(o.kind, 'excluded', `expected an exclusion, got ${o.kind}`);
  return o.kind === 'excluded' ? o.reason : '';
}

void test('infrastructure terminations are excluded with class:reason and never reach a verifier', async () => {
  const cases: Array<[TerminationClass, string, string]> = [
    [TerminationClass.ENV_ERROR, 'dns', 'env_error:dns'],
    [TerminationClass.SANDBOX_ERROR, 'browser_crash', 'sandbox_error:browser_crash'],
    [TerminationClass.INIT_ERROR, 'bot_wall', 'init_error:bot_wall'],
    [TerminationClass.ENV_ERROR, '', 'env_error:unspecified'],
  ];
  for (const [cls, reason, want] of cases) {
    const v = countingVerifiers();
    const o = await judgeTrajectory(traj({ cls, reason, answer: '42', verifier: answerVerifier(['42']) }), deps(v));
    assert.equal(excluded(o), want);
    assert.deepEqual(v.calls, []);
  }
});

void test('format stage: FORMAT_ERROR and GENERATION_LIMIT score 0 from FORMAT even with a right answer', async () => {
  for (const cls of [TerminationClass.FORMAT_ERROR, TerminationClass.GENERATION_LIMIT]) {
    const v = countingVerifiers();
    const verdict = scored(await judgeTrajectory(traj({ cls, reason: 'format_error', answer: '42', verifier: answerVerifier(['42']) }), deps(v)));
    assert.equal(verdict.reward, 0);
    assert.equal(verdict.success, false);
    assert.equal(verdict.source, VerdictSource.FORMAT);
    assert.equal(verdict.judgeVersion, 'verifier-test-7');
    assert.deepEqual(v.calls, []);
  }
});

void test('rule stage: no done() scores 0 from RULE', async () => {
  const budget = scored(
    await judgeTrajectory(traj({ cls: TerminationClass.STEP_BUDGET_EXHAUSTED, reason: 'step_budget', calledDone: false, answer: '', verifier: answerVerifier(['42']) }), deps()),
  );
  assert.deepEqual([budget.reward, budget.source, budget.judgeVersion], [0, VerdictSource.RULE, 'verifier-test-7']);
  const noDone = scored(await judgeTrajectory(traj({ calledDone: false, answer: '42', verifier: answerVerifier(['42']) }), deps()));
  assert.deepEqual([noDone.reward, noDone.source], [0, VerdictSource.RULE]);
});

void test('an unspecified termination class is an invalid trajectory, not a reward', async () => {
  assert.equal(excluded(await judgeTrajectory(traj({ cls: TerminationClass.UNSPECIFIED, verifier: answerVerifier(['42']), answer: '42' }), deps())), 'judge:invalid_trajectory');
});

void test('answer verifier: right answer 1, wrong answer 0, with the judge version', async () => {
  const ok = scored(await judgeTrajectory(traj({ answer: 'The price is $1,299.', verifier: answerVerifier(['1299'], { contains: true }) }), deps()));
  assert.deepEqual([ok.reward, ok.success, ok.source, ok.judgeVersion], [1, true, VerdictSource.VERIFIER, 'verifier-test-7']);
  const bad = scored(await judgeTrajectory(traj({ answer: '$1,199', verifier: answerVerifier(['1299']) }), deps()));
  assert.deepEqual([bad.reward, bad.success, bad.source], [0, false, VerdictSource.VERIFIER]);
  assert.match(bad.detail, /1,199/);
});

void test('page expression: missing evaluation is excluded, truthy 1, falsy 0, thrown 0', async () => {
  const pe = make(VerifierSchema, { kind: { case: 'pageExpression', value: make(PageExpressionSchema, { expression: 'document.title === "Paid"' }) } });
  assert.equal(excluded(await judgeTrajectory(traj({ verifier: pe }), deps())), 'judge:page_eval_missing');
  assert.equal(excluded(await judgeTrajectory(traj({ verifier: pe, pageEval: pageEval({ evaluated: false, error: 'page closed' }) }), deps())), 'judge:page_eval_missing');
  assert.equal(scored(await judgeTrajectory(traj({ verifier: pe, pageEval: pageEval({ evaluated: true, truthy: true, valueJson: 'true' }) }), deps())).reward, 1);
  assert.equal(scored(await judgeTrajectory(traj({ verifier: pe, pageEval: pageEval({ evaluated: true, truthy: false, valueJson: 'false' }) }), deps())).reward, 0);
  const threw = scored(await judgeTrajectory(traj({ verifier: pe, pageEval: pageEval({ evaluated: true, error: 'TypeError: x is null' }) }), deps()));
  assert.equal(threw.reward, 0);
  assert.match(threw.detail, /TypeError/);
});

void test('also_answer is ANDed with the main check and decides first', async () => {
  const withAlso = (accepted: string) =>
    make(VerifierSchema, {
      kind: { case: 'pageExpression', value: make(PageExpressionSchema, { expression: 'true' }) },
      alsoAnswer: make(AnswerMatchSchema, { accepted: [accepted], normalize: true }),
    });
  const truthy = pageEval({ evaluated: true, truthy: true });
  assert.equal(scored(await judgeTrajectory(traj({ verifier: withAlso('blue'), answer: 'Blue', pageEval: truthy }), deps())).reward, 1);
  assert.equal(scored(await judgeTrajectory(traj({ verifier: withAlso('blue'), answer: 'red', pageEval: truthy }), deps())).reward, 0);
  assert.equal(scored(await judgeTrajectory(traj({ verifier: withAlso('blue'), answer: 'blue', pageEval: pageEval({ evaluated: true, truthy: false }) }), deps())).reward, 0);

  // A wrong answer is a certain failure: the (down) site is not even asked.
  const site = make(VerifierSchema, {
    kind: { case: 'siteState', value: make(SiteStateCheckSchema, { endpoint: 'http://127.0.0.1:9/verify', specJson: '{}' }) },
    alsoAnswer: make(AnswerMatchSchema, { accepted: ['blue'], normalize: true }),
  });
  const v = countingVerifiers();
  assert.equal(scored(await judgeTrajectory(traj({ verifier: site, answer: 'red' }), deps(v))).reward, 0);
  assert.deepEqual(v.calls, ['answer']);
  // A right answer with the site down is excluded, never 0.
  const v2 = countingVerifiers();
  assert.equal(excluded(await judgeTrajectory(traj({ verifier: site, answer: 'blue' }), deps(v2))), 'judge:verifier_unavailable');
  assert.deepEqual(v2.calls, ['answer', 'siteState']);
  // also_answer alone (no main kind) is an answer check.
  const only = make(VerifierSchema, { alsoAnswer: make(AnswerMatchSchema, { accepted: ['blue'] }) });
  assert.equal(scored(await judgeTrajectory(traj({ verifier: only, answer: 'blue' }), deps())).reward, 1);
});

void test('no verifier and no other source: excluded judge:no_verdict_source', async () => {
  assert.equal(excluded(await judgeTrajectory(traj({ answer: 'x' }), deps())), 'judge:no_verdict_source');
  assert.equal(excluded(await judgeTrajectory(traj({ answer: 'x', verifier: make(VerifierSchema, {}) }), deps())), 'judge:no_verdict_source');
});

void test('a plugged-in source judges what the verifier cannot; its failures and timeouts are exclusions', async () => {
  const model = (impl: VerdictProvider['judge']): VerdictProvider => ({ name: 'model', source: VerdictSource.MODEL, judge: impl });
  const yes = model(async () => ({ kind: 'verdict', success: true, detail: 'p=0.91', pSuccess: 0.91 }));
  const v = scored(await judgeTrajectory(traj({ answer: 'x' }), deps(undefined, { sources: [yes] })));
  assert.deepEqual([v.reward, v.source, v.pSuccess, v.judgeVersion], [1, VerdictSource.MODEL, 0.91, 'verifier-test-7']);

  // The verifier decides first when the task has one.
  const fromVerifier = scored(await judgeTrajectory(traj({ answer: 'no', verifier: answerVerifier(['yes']) }), deps(undefined, { sources: [yes] })));
  assert.equal(fromVerifier.source, VerdictSource.VERIFIER);
  assert.equal(fromVerifier.reward, 0);

  const declines = model(async () => null);
  assert.equal(excluded(await judgeTrajectory(traj({ answer: 'x' }), deps(undefined, { sources: [declines] }))), 'judge:no_verdict_source');

  const crashes = model(async () => {
    throw new Error('onnx session died');
  });
  const crashed = await judgeTrajectory(traj({ answer: 'x' }), deps(undefined, { sources: [crashes] }));
  assert.equal(excluded(crashed), 'judge:model_error');
  assert.match(crashed.kind === 'excluded' ? (crashed.detail ?? '') : '', /onnx session died/);

  // A source that ignores its abort signal still cannot hold the trajectory past the deadline.
  const hangs = model(() => new Promise(() => {}));
  const t0 = performance.now();
  const hung = await judgeTrajectory(traj({ answer: 'x' }), deps(undefined, { sources: [hangs], timeoutMs: 100 }));
  assert.equal(excluded(hung), 'judge:model_unavailable');
  assert.ok(performance.now() - t0 < 1500, 'returned near the 100 ms deadline');
});

void test('bad pipeline configuration throws a JudgeError naming the value', async () => {
  await assert.rejects(judgeTrajectory(traj(), { ...deps(), timeoutMs: 0 }), (e: unknown) => e instanceof JudgeError && /got 0/.test(e.message));
  await assert.rejects(judgeTrajectory(traj(), { ...deps(), judgeVersion: '' }), JudgeError);
});

void test('toScored: verdicts are trainable, exclusions carry the reason and no verdict; both survive the wire', async () => {
  const t = traj({ id: 'runA/3/1/2/0', answer: '42', verifier: answerVerifier(['42']) });
  const s1 = toScored(t, await judgeTrajectory(t, deps()), 1_700_000_000_123.7);
  const back1 = decode(ScoredTrajectorySchema, encode(ScoredTrajectorySchema, s1));
  assert.equal(back1.trajectoryId, 'runA/3/1/2/0');
  assert.equal(back1.trainable, true);
  assert.equal(back1.excludedReason, '');
  assert.equal(back1.verdict?.reward, 1);
  assert.equal(back1.verdict?.judgeVersion, 'verifier-test-7');
  assert.equal(back1.judgedAtMs, 1_700_000_000_123n);
  assert.equal(back1.trajectory?.finalAnswer, '42');
  assert.equal(back1.schemaVersion, 1);

  const bad = traj({ id: 'runA/3/1/3/0', cls: TerminationClass.ENV_ERROR, reason: 'connection_reset' });
  const s2 = toScored(bad, await judgeTrajectory(bad, deps()), 5);
  const back2 = decode(ScoredTrajectorySchema, encode(ScoredTrajectorySchema, s2));
  assert.equal(back2.trainable, false);
  assert.equal(back2.excludedReason, 'env_error:connection_reset');
  assert.equal(back2.verdict, undefined);
});
