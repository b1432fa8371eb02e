// Scripted solvers of every wiki family, run through the environment's tools (BrowserPool +
// PlanPolicy in real Chromium). Each plan follows the family's route, one PlanPolicy step per route
// step, navigating by the task's metadata and reading every answer from the observed page; the
// episode must take exactly the family's difficulty in steps and the task's own verifier must
// accept it. Wrong answers, a half-sorted table and a wrong reading list are rejected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlanPolicy, type EpisodeResult, type PlanStep, type PolicyInput } from '@owrl/browser-env';
import { matchAnswer } from '@owrl/judge-core';
import type { Task } from '@owrl/proto';
import { hasPopup, timelineYear, titleOf, wikiPlan as planFor } from '@owrl/demos';
import { generateWikiTasks, WIKI_FAMILIES } from '@owrl/tasks/wiki';
import { button, finish, inPairs, link, meta, siteState, trail, useSolverHarness } from './solver-harness.js';

const SEED = 2;
const h = useSolverHarness({ seed: SEED, pool: { settleMaxMs: 1000 } });

async function run(task: Task, session: string, plan: PlanStep[]): Promise<{ r: EpisodeResult<undefined>; p: PlanPolicy }> {
  const p = new PlanPolicy(plan);
  return { r: await h.runPolicy(task, session, p, task.difficulty + 2), p };
}

const oneOfEach = (): Task[] =>
  WIKI_FAMILIES.flatMap((f) => generateWikiTasks({ seed: 7, n: 1, baseUrl: h.srv.url, families: [f.name], dataSeed: SEED }));

void test('a scripted agent solves one task of every family in exactly its difficulty, and the verifiers accept', async () => {
  const tasks = oneOfEach();
  assert.equal(tasks.length, WIKI_FAMILIES.length);
  await inPairs(tasks, async (task) => {
    const session = `wiki-solver/${task.id}`;
    const { r, p } = await run(task, session, planFor(task));
    const trace = `${task.id} (${task.instruction}): ${r.termination.cls} ${r.termination.message}\n${trail(r)}`;
    assert.equal(r.termination.cls, 'COMPLETED', trace);
    assert.equal(r.steps.length, task.difficulty, `${trace}: steps`);
    const v = task.verifier?.kind;
    if (v?.case === 'answer') {
      assert.equal(matchAnswer(v.value, r.finalAnswer).status, 'pass', `${trace}: answer ${JSON.stringify(r.finalAnswer)}`);
      assert.equal(matchAnswer(v.value, `${r.finalAnswer}0`).status, 'fail', `${trace}: a wrong answer is rejected`);
    } else if (v?.case === 'siteState') {
      const ok = await siteState(task, session);
      assert.equal(ok.ok, true, `${trace}: ${ok.detail}`);
      assert.equal((await siteState(task, `${session}/other`)).ok, false, 'another session is not credited');
    } else {
      assert.equal(r.pageEval.truthy, true, `${trace}: page expression ${r.pageEval.valueJson} ${r.pageEval.error}`);
    }
    if (task.family === 'deep_fact') {
      const event = meta(task, 'event');
      assert.equal(timelineYear(p.inputs[2] as PolicyInput, event).inViewport, false, 'after the contents link the row is still below the fold');
      assert.equal(timelineYear(p.inputs[4] as PolicyInput, event).inViewport, true, 'two scrolls bring it into view');
    }
    if (task.family === 'linked_fact') assert.equal(hasPopup(p.inputs[1] as PolicyInput), true, 'the popup covers the second article');
  });
});

void test('wrong outcomes are rejected: a half-sorted table, a wrong article saved, a wrong name', async () => {
  const [sort] = generateWikiTasks({ seed: 1, n: 1, baseUrl: h.srv.url, families: ['sort_table'], dataSeed: SEED });
  const [save] = generateWikiTasks({ seed: 1, n: 1, baseUrl: h.srv.url, families: ['save_article'], dataSeed: SEED });
  assert.ok(sort && save);
  await inPairs([sort, save], async (task) => {
    if (task === sort) {
      const { r } = await run(sort, 'wiki-wrong/sort', [link(meta(sort, 'label')), finish]);
      assert.equal(r.termination.cls, 'COMPLETED');
      assert.equal(r.pageEval.evaluated, true, r.pageEval.error);
      assert.equal(r.pageEval.truthy, false, 'ascending order does not pass a descending task');
      return;
    }
    // Another article of the category (its list items read "Title — summary").
    const wrong: PlanStep = (input) => {
      const other = input.observation.elements.find((e) => e.role === 'link' && e.context.includes('—') && e.name !== meta(save, 'title'));
      if (other === undefined) throw new Error('no other article in the category');
      return link(other.name);
    };
    const { r } = await run(save, 'wiki-wrong/save', [wrong, button('Save to reading list'), finish]);
    assert.equal(r.termination.cls, 'COMPLETED', r.termination.message);
    const state = await siteState(save, 'wiki-wrong/save');
    assert.equal(state.ok, false);
    assert.match(state.detail, new RegExp(`missing ${meta(save, 'article')}`));
  });
  const [cmp] = generateWikiTasks({ seed: 1, n: 1, baseUrl: h.srv.url, families: ['compare_top'], dataSeed: SEED });
  const v = cmp?.verifier?.kind;
  assert.ok(cmp && v?.case === 'answer');
  const loser = meta(cmp, 'candidates').split(',').map(titleOf).find((t) => t !== meta(cmp, 'answer'));
  assert.equal(matchAnswer(v.value, loser ?? '').status, 'fail');
});
