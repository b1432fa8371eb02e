import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createVerifiers, judgeTrajectory, type JudgeOutcome } from '@owrl/judge-core';
import {
  make,
  EffectKind,
  EffectSchema,
  RolloutRequestSchema,
  StepSchema,
  TaskSchema,
  TerminationClass,
  TerminationSchema,
  ToolCallSchema,
  ToolResultSchema,
  TrajectorySchema,
  VerdictSource,
  type Trajectory,
} from '@owrl/proto';
import {
  judgeInputFromTrajectory,
  modelVerdictSource,
  OnnxJudge,
  type BatchScorer,
  type JudgeInput,
} from '@owrl/judge-model';
import {
  writeTinyDecoderJudge,
  writeTinyVlmJudge,
} from '@owrl/judge-model/testing';
import { tempDir } from './helpers.js';

const root = tempDir('source');
after(() => fs.rmSync(root, { recursive: true, force: true }));

let judge: OnnxJudge;
before(async () => {
  const m = writeTinyDecoderJudge(path.join(root, 'small'), { numLogitsToKeep: true });
  judge = await OnnxJudge.load({ modelDir: m.dir, device: 'cpu', threads: 1 });
});
after(() => judge.close());

/** The real judge, with its scoreBatch calls recorded (batch sizes). */
function counting(inner: OnnxJudge): BatchScorer & { calls: number[] } {
  const calls: number[] = [];
  return {
    calls,
    version: inner.version,
    threshold: inner.threshold,
    maxBatch: inner.maxBatch,
    scoreEach: (inputs: JudgeInput[], opts) => (calls.push(inputs.length), inner.scoreEach(inputs, opts)),
  };
}

function traj(init: { id?: string; instruction?: string; answer?: string; calledDone?: boolean; steps?: number; screenshot?: Uint8Array } = {}): Trajectory {
  const id = init.id ?? 'run/0/0/0/0';
  return make(TrajectorySchema, {
    trajectoryId: id,
    request: make(RolloutRequestSchema, {
      runId: 'run',
      trajectoryId: id,
      task: make(TaskSchema, { id: 'open/1', suite: 'open', startUrl: 'http://127.0.0.1:9/shop', instruction: init.instruction ?? 'find the price of the red mug' }),
    }),
    steps: Array.from({ length: init.steps ?? 2 }, (_, i) =>
      make(StepSchema, {
        index: i,
        reasoning: `I open product ${i}`,
        urlAfter: `/shop/p/${i}`,
        results: [
          make(ToolResultSchema, {
            call: make(ToolCallSchema, { name: 'click', argsJson: `{"ref":${i}}` }),
            ok: i % 2 === 0,
            errorCode: i % 2 === 0 ? '' : 'element_not_found',
            effects: i % 2 === 0 ? [make(EffectSchema, { kind: EffectKind.NAVIGATED, line: `navigated to /shop/p/${i}` })] : [],
          }),
        ],
      }),
    ),
    finalAnswer: init.answer ?? '12.50',
    calledDone: init.calledDone ?? true,
    termination: make(TerminationSchema, { class: init.calledDone === false ? TerminationClass.STEP_BUDGET_EXHAUSTED : TerminationClass.COMPLETED, reason: 'done' }),
    ...(init.screenshot !== undefined ? { finalScreenshot: init.screenshot } : {}),
  });
}

const deps = (source: ReturnType<typeof modelVerdictSource>, timeoutMs = 5000) => ({
  verifiers: createVerifiers(),
  judgeVersion: judge.version,
  timeoutMs,
  sources: [source],
});

function excludedReason(o: JudgeOutcome): string {
  assert.equal(o.kind, 'excluded', `expected an exclusion, got ${JSON.stringify(o)}`);
  return o.kind === 'excluded' ? o.reason : '';
}

void test('judgeInputFromTrajectory reads the instruction, each step, its calls and effects, the answer and the screenshot', () => {
  const shot = new Uint8Array([0xff, 0xd8, 0xff]);
  const input = judgeInputFromTrajectory(traj({ steps: 2, screenshot: shot }));
  assert.deepEqual(input, {
    instruction: 'find the price of the red mug',
    startUrl: 'http://127.0.0.1:9/shop',
    steps: [
      { reasoning: 'I open product 0', url: '/shop/p/0', actions: [{ name: 'click', argsJson: '{"ref":0}', ok: true, errorCode: '', effects: ['navigated to /shop/p/0'] }] },
      { reasoning: 'I open product 1', url: '/shop/p/1', actions: [{ name: 'click', argsJson: '{"ref":1}', ok: false, errorCode: 'element_not_found', effects: [] }] },
    ],
    finalAnswer: '12.50',
    screenshot: shot,
  });
  assert.equal('screenshot' in judgeInputFromTrajectory(traj()), false);
});

void test('the rule filter decides first: without done() the reward is 0 and the model is never called', async () => {
  const scorer = counting(judge);
  const outcome = await judgeTrajectory(traj({ calledDone: false }), deps(modelVerdictSource(scorer)));
  assert.equal(outcome.kind, 'scored');
  if (outcome.kind !== 'scored') return;
  assert.equal(outcome.verdict.source, VerdictSource.RULE);
  assert.equal(outcome.verdict.reward, 0);
  assert.deepEqual(scorer.calls, []);
});

void test('concurrent judgements are micro-batched into one forward pass; P(yes) against the threshold decides', async () => {
  const trajs = [traj({ id: 'a', steps: 1 }), traj({ id: 'b', steps: 3, answer: 'no price' }), traj({ id: 'c', steps: 5, instruction: 'find the blue lamp' })];
  const alone = await Promise.all(trajs.map(async (t) => (await judge.scoreBatch([judgeInputFromTrajectory(t)]))[0]?.pYes ?? NaN));
  const sorted = [...alone].sort((x, y) => x - y);
  const threshold = sorted[1] ?? 0.5;
  const scorer = counting(judge);
  const source = modelVerdictSource(scorer, { threshold, batchWindowMs: 20 });
  const outcomes = await Promise.all(trajs.map((t) => judgeTrajectory(t, deps(source))));
  assert.deepEqual(scorer.calls, [3], 'one scoreBatch of three');
  outcomes.forEach((o, i) => {
    assert.equal(o.kind, 'scored', JSON.stringify(o));
    if (o.kind !== 'scored') return;
    const p = alone[i] ?? NaN;
    assert.equal(o.verdict.source, VerdictSource.MODEL);
    assert.ok(Math.abs(o.verdict.pSuccess - p) < 1e-6, `row ${i}: ${o.verdict.pSuccess} vs ${p}`);
    assert.equal(o.verdict.success, p >= threshold);
    assert.equal(o.verdict.reward, p >= threshold ? 1 : 0);
    assert.equal(o.verdict.judgeVersion, judge.version);
    assert.match(o.verdict.detail, /p_yes=0\.\d{4} threshold=/);
  });
  assert.equal(outcomes.filter((o) => o.kind === 'scored' && o.verdict.success).length, 2);
});

void test('a model timeout is an excluded outcome (judge:model_timeout), never a reward', async () => {
  const slow = writeTinyDecoderJudge(path.join(root, 'slow'), { hidden: 256, vocab: 4096, maxPositions: 2048 });
  const slowJudge = await OnnxJudge.load({ modelDir: slow.dir, device: 'cpu', threads: 1 });
  try {
    const long = traj({ steps: 15 });
    await slowJudge.scoreBatch([judgeInputFromTrajectory(long)]);
    // Budgets of a quarter of what scoring this trajectory just took.
    const budget = Math.max(1, Math.floor(slowJudge.stats().inferenceMs / 4));
    const explicit = await judgeTrajectory(long, deps(modelVerdictSource(slowJudge, { timeoutMs: budget })));
    assert.equal(excludedReason(explicit), 'judge:model_timeout');
    // With the default budget the pipeline's own deadline is the bound; still an exclusion.
    const byPipeline = await judgeTrajectory(long, deps(modelVerdictSource(slowJudge), budget));
    assert.match(excludedReason(byPipeline), /^judge:model_(timeout|unavailable)$/);
  } finally {
    await slowJudge.close();
  }
});

void test('a row that cannot be judged is excluded (judge:model_error) without failing the rows batched with it', async () => {
  const vlm = writeTinyVlmJudge(path.join(root, 'vlm'));
  const vlmJudge = await OnnxJudge.load({ modelDir: vlm.dir, device: 'cpu', threads: 1 });
  try {
    const scorer = counting(vlmJudge);
    const source = modelVerdictSource(scorer, { batchWindowMs: 20 });
    const [bad, good] = await Promise.all([
      judgeTrajectory(traj({ id: 'bad', screenshot: new Uint8Array([1, 2, 3]) }), deps(source)),
      judgeTrajectory(traj({ id: 'good', steps: 3 }), deps(source)),
    ]);
    assert.deepEqual(scorer.calls, [2], 'both went in one batch');
    assert.ok(bad);
    assert.equal(excludedReason(bad), 'judge:model_error');
    assert.match(bad.kind === 'excluded' ? (bad.detail ?? '') : '', /not a decodable JPEG/);
    assert.equal(good?.kind, 'scored');
    const [alone] = await vlmJudge.scoreBatch([judgeInputFromTrajectory(traj({ id: 'good', steps: 3 }))]);
    assert.ok(good?.kind === 'scored' && Math.abs(good.verdict.pSuccess - (alone?.pYes ?? NaN)) < 1e-6);
  } finally {
    await vlmJudge.close();
  }
});
