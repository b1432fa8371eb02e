// Scripted solvers of every travel family, run through the environment's tools (BrowserPool +
// PlanPolicy in real Chromium): each plan is the family's route, one PlanPolicy step per step, built
// from the task's metadata; answers are read from the observed page. The task's own verifier must
// accept the outcome, and a wrong answer, wrong final page or wrong bookings must be rejected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { travelPlan as planFor } from '@owrl/demos';
import { generateTravelTasks, TRAVEL_FAMILIES } from '@owrl/tasks/travel';
import { assertClean, inPairs, siteState, useSolverHarness } from './solver-harness.js';

const SEED = 2;
const h = useSolverHarness({ seed: SEED });

void test('a scripted agent solves one task of every family through the tools; the verifiers accept', async () => {
  const tasks = generateTravelTasks({ seed: 8, n: TRAVEL_FAMILIES.length, baseUrl: h.srv.url, dataSeed: SEED });
  assert.deepEqual(new Set(tasks.map((t) => t.family)), new Set(TRAVEL_FAMILIES.map((f) => f.name)));
  // Two episodes at a time (two browser slots), longest routes first.
  await inPairs([...tasks].sort((a, b) => b.difficulty - a.difficulty), (task) => h.assertSolved(task, planFor(task), '1'));
});

void test('a booking in the wrong cabin fails both the page expression and the site state', async () => {
  const [book] = generateTravelTasks({ seed: 3, n: 1, baseUrl: h.srv.url, dataSeed: SEED, families: ['book_flight'] });
  assert.ok(book);
  const [nonstop] = generateTravelTasks({ seed: 3, n: 1, baseUrl: h.srv.url, dataSeed: SEED, families: ['book_cheapest_nonstop'] });
  assert.ok(nonstop);
  const wrong = book.metadata['cabin'] === 'business' ? 'Economy' : 'Business';
  const other = nonstop.metadata['cabin'] === 'business' ? 'Premium economy' : 'Business';
  const [r, r2] = await Promise.all([h.run(book, 'wrong/book', planFor(book, wrong)), h.run(nonstop, 'wrong/nonstop', planFor(nonstop, other))]);
  assertClean(book, r);
  assertClean(nonstop, r2);
  assert.ok(r.pageEval.evaluated, r.pageEval.error);
  assert.equal(r.pageEval.truthy, false, 'the confirmation shows another cabin');
  assert.match(new URL(r.finalUrl).pathname, /^\/travel\/confirmation\/[A-Z]{3}\d{3}$/);

  const res = await siteState(nonstop, 'wrong/nonstop');
  assert.equal(res.ok, false);
  assert.match(res.detail, /no confirmed booking of|cabin/);
});
