// Scripted-solver demonstrations end to end (real sites server, real Chromium): recorded episodes
// of every bundled suite pass their own verifiers, their steps map onto pointer-policy candidates,
// SFT records carry the openai backend's prompt plus the demonstrated reply, and the warm-up's
// behaviour cloning beats the untrained policy on held-out tasks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bcSamples, fetchSuiteTasks, recordDemonstration, sftRecords, warmUp, SOLVER_SUITES, type Demonstration } from '@owrl/demos';
import { DEFAULT_RENDER_OPTIONS } from '@owrl/llm-policy';
import { DEFAULT_DIM } from '@owrl/policy';
import type { Task } from '@owrl/proto';
import { useSolverHarness } from './solver-harness.js';

const h = useSolverHarness({ seed: 1, pool: { settleMaxMs: 800, screenshots: 1 } });

async function tasksOf(seed: number, n: number, difficulties: number[]): Promise<Task[]> {
  const per = await Promise.all(SOLVER_SUITES.map((s) => fetchSuiteTasks(h.srv.url, s, { seed, n, difficulties })));
  return per.flat();
}

void test('solver demonstrations of every suite pass, map onto pointer candidates and render as SFT records', async () => {
  const tasks = await tasksOf(3, 1, [2]);
  assert.equal(tasks.length, 4);
  const demos: Demonstration[] = [];
  for (const t of tasks) demos.push(await recordDemonstration(h.pool, t, { screenshots: t.suite === 'shop' }));
  for (const d of demos) {
    assert.equal(d.verdict.status, 'pass', `${d.task.id}: ${d.verdict.detail}`);
    assert.equal(d.steps.length, d.task.difficulty);
    assert.doesNotMatch(d.steps[0]?.reasoning ?? '', /plan step/, 'recorded reasoning says what the step does');
  }
  const { samples, steps } = bcSamples(demos, DEFAULT_DIM);
  assert.equal(steps, 8);
  assert.ok(samples.length >= 4, `${samples.length}/8 steps expressible`);

  const shop = demos.find((d) => d.task.suite === 'shop');
  assert.ok(shop);
  const saved: string[] = [];
  const recs = sftRecords(shop.task, shop.steps, { source: 'solver', verdictSource: 'verifier' }, {
    render: { ...DEFAULT_RENDER_OPTIONS, model: 'policy' },
    images: 'files',
    saveImage: (_b, sha) => {
      saved.push(sha);
      return `images/${sha}.jpg`;
    },
  });
  assert.equal(recs.length, 2);
  const second = recs[1];
  assert.ok(second);
  const roles = second.messages.map((m) => m.role);
  assert.deepEqual(roles, ['system', 'user', 'assistant', 'user', 'assistant'], 'history turn, then the demonstrated reply');
  const last = second.messages[4]?.content;
  assert.equal(typeof last, 'string');
  assert.match(String(last), /<tool_call>/);
  assert.match(JSON.stringify(second.messages[3]), /images\/[0-9a-f]{64}\.jpg/, 'the current screenshot as a file');
  assert.equal(saved.length, 2);
  assert.ok(second.tools && second.tools.length === 13);
});

void test('warm-up: behaviour cloning on solver demonstrations fits held-out demonstrations better than the untrained policy', async () => {
  const train = await tasksOf(11, 2, [1]);
  const ids = new Set(train.map((t) => t.id));
  const held = (await tasksOf(29, 2, [1])).filter((t) => !ids.has(t.id)).slice(0, 4);
  assert.ok(held.length >= 2);
  const r = await warmUp({ pool: h.pool, train, heldOut: held, dim: DEFAULT_DIM, temperature: 1, epochs: 30, lr: 0.05, seed: 5, maxSteps: 2 });
  // A solver may miss a task (e.g. a message below the inbox's first page); it is left out, not cloned.
  assert.equal(r.failures.length, train.length - r.demos.solved);
  assert.ok(r.demos.solved >= train.length - 2, r.failures.join('\n'));
  const last = r.epochs[r.epochs.length - 1];
  assert.ok(last && last.accuracy > 0.8, `train accuracy ${last?.accuracy}`);
  assert.ok(r.heldOutFit.loss < r.heldOutFitBefore.loss, `held-out cross-entropy ${r.heldOutFit.loss} vs untrained ${r.heldOutFitBefore.loss}`);
  assert.equal(r.heldOut.tasks, held.length);
  assert.equal(r.heldOut.rate, r.heldOut.success / r.heldOut.tasks);
});
