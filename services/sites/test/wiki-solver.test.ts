// Scripted solvers of every wiki family, run through the environment's tools (BrowserPool +
// PlanPolicy in real Chromium). Each plan follows the family's route, one PlanPolicy step per route
// step, navigating by the task's metadata and reading every answer from the observed page; the
// episode must take exactly the family's difficulty in steps and the task's own verifier must
// accept it. Wrong answers, a half-sorted table and a wrong reading list are rejected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlanPolicy, type EpisodeResult, type PlanCall, type PlanStep, type PolicyInput } from '@owrl/browser-env';
import { matchAnswer } from '@owrl/judge-core';
import type { Task } from '@owrl/proto';
import { generateWikiTasks, WIKI_FAMILIES } from '@owrl/tasks';
import { button, finish, inPairs, link, meta, readText, siteState, trail, useSolverHarness, write } from './solver-harness.js';

const SEED = 2;
const h = useSolverHarness({ seed: SEED, pool: { settleMaxMs: 1000 } });

/** The value of the infobox row "<label>: <value>" in the observation. */
function readFact(input: PolicyInput, label: string): string {
  return readText(input, new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\s*(\\S.*)$`));
}

const numberOf = (v: string): number => Number.parseFloat(v.replace(/,/g, ''));
const titleOf = (slug: string): string => slug.replace(/_/g, ' ');
const search = (title: string): PlanCall[] => [write(title, 'Search Lorewell', 'searchbox'), { press: ['Enter'] }];
const scroll: PlanCall = { scroll: 'down', amount: 0.5 };
const hasPopup = (input: PolicyInput): boolean => input.observation.elements.some((e) => e.role === 'button' && e.name === 'No thanks');

/** The year cell of the timeline row of `event`. */
function timelineYear(input: PolicyInput, event: string): { text: string; inViewport: boolean } {
  const t = input.observation.texts.find((x) => /^\d{4}$/.test(x.text) && x.context.includes(event));
  if (t === undefined) throw new Error(`no timeline row "${event}" on ${input.observation.url}`);
  return t;
}

/**
 * The list families: open the list from the main page, sort by the column (twice: descending),
 * then open each candidate row in turn, dismissing the popup when it shows, reading the infobox
 * metric, saving qualifying articles (reading lists), and going back to the list in between.
 */
function listPlan(task: Task): PlanStep[] {
  const candidates = meta(task, 'candidates').split(',').map(titleOf);
  const label = meta(task, 'column_label');
  const metricLabel = meta(task, 'metric_label');
  const saving = task.family !== 'compare_top';
  const dir = meta(task, 'direction');
  const qualifies = (v: number): boolean => (dir === 'gt' ? v > Number(meta(task, 'metric_threshold')) : v < Number(meta(task, 'metric_threshold')));
  const script: PlanCall[] = [link(meta(task, 'list_title')), link(label), link(label)];
  const values: number[] = [];
  let i = 0;
  let opened = false;
  let saved = false;
  const step: PlanStep = (input) => {
    const scripted = script.shift();
    if (scripted !== undefined) return scripted;
    if (!opened) {
      opened = true;
      saved = false;
      return link(candidates[i] ?? '');
    }
    if (hasPopup(input)) return button('No thanks');
    if (values.length === i) values.push(numberOf(readFact(input, metricLabel)));
    if (saving && !saved && qualifies(values[i] ?? NaN)) {
      saved = true;
      return button('Save to reading list');
    }
    if (i < candidates.length - 1) {
      i++;
      opened = false;
      return { back: true };
    }
    if (saving) return finish;
    const best = dir === 'max' ? Math.max(...values) : Math.min(...values);
    return { done: candidates[values.indexOf(best)] ?? '' };
  };
  return Array.from({ length: task.difficulty }, () => step);
}

/** The scripted route of a task's family. */
function planFor(task: Task): PlanStep[] {
  const title = task.metadata['title'] ?? '';
  const label = task.metadata['label'] ?? '';
  const read: PlanStep = (i) => ({ done: readFact(i, label) });
  switch (task.family) {
    case 'infobox_fact':
      return [read];
    case 'search_fact':
      return [search(title), read];
    case 'linked_fact':
      return [link(title), button('No thanks'), read];
    case 'save_article':
      return [link(title), button('Save to reading list'), finish];
    case 'sort_table':
      return [link(label), link(label), finish];
    case 'toc_section':
      return [link(title), link(meta(task, 'heading')), finish];
    case 'deep_fact':
      return [search(title), link(meta(task, 'heading')), scroll, scroll, (i) => ({ done: timelineYear(i, meta(task, 'event')).text })];
    case 'save_two':
      return [search(title), button('Save to reading list'), search(meta(task, 'title_2')), button('No thanks'), button('Save to reading list'), finish];
    case 'compare_top':
    case 'reading_list':
    case 'reading_list_large':
      return listPlan(task);
    default:
      throw new Error(`no plan for family ${task.family}`);
  }
}

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
