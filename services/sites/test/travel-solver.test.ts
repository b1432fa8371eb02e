// Scripted solvers of every travel family, run through the environment's tools (BrowserPool +
// PlanPolicy in real Chromium): each plan is the family's route, one PlanPolicy step per step, built
// from the task's metadata; answers are read from the observed page. The task's own verifier must
// accept the outcome, and a wrong answer, wrong final page or wrong bookings must be rejected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlanCall, PlanStep } from '@owrl/browser-env';
import type { Task } from '@owrl/proto';
import { generateTravelTasks, TRAVEL_FAMILIES } from '@owrl/tasks';
import { assertClean, button, checkbox, finish, inPairs, link, meta, radio, readText, siteState, useSolverHarness, write } from './solver-harness.js';

const SEED = 2;
const h = useSolverHarness({ seed: SEED });

const PRICE = /^\$[\d,]+$/;
/** The carrier line of a result card, e.g. `Borealis · BX708`. */
const CARRIER = / · ([A-Z]{2}\d{3})$/;

const pickAirport = (text: string, field: string): PlanCall[] => [write(text, field, 'combobox'), { press: ['Enter'] }];
const selectFirst: PlanCall = link(/^Select [A-Z]{2}\d{3}$/);
const doneFirstFlight: PlanStep = (i) => ({ done: readText(i, CARRIER) });

/** Search form up to the chosen day: airports by autocomplete, the day by the calendar. */
function searchSteps(task: Task): PlanStep[] {
  const months = Number(meta(task, 'months_ahead'));
  return [
    pickAirport(meta(task, 'from_name'), 'From'),
    pickAirport(meta(task, 'to_name'), 'To'),
    button('Choose departure date'),
    ...Array.from({ length: months }, () => button('Next month')),
    button(meta(task, 'date_label')),
  ];
}

function bookSteps(task: Task): PlanStep[] {
  return [write(meta(task, 'passenger'), 'Passenger name'), write(meta(task, 'email'), 'Email'), button('Confirm booking'), finish];
}

/** The scripted route of a task's family; `cabin` overrides the cabin to book (wrong-state runs). */
function planFor(task: Task, cabin = meta(task, 'cabin_label')): PlanStep[] {
  const number = task.metadata['flight_number'] ?? '';
  switch (task.family) {
    case 'fare':
      return [(i) => ({ done: readText(i, PRICE, (c) => c.includes(number)) })];
    case 'class_fare':
      return [link(number), (i) => ({ done: readText(i, PRICE, (c) => c.startsWith(`${cabin} $`)) })];
    case 'sorted_first':
      return [link(meta(task, 'sort_label')), doneFirstFlight];
    case 'cheapest_nonstop':
      return [checkbox('Nonstop'), link('Lowest price'), doneFirstFlight];
    case 'cancel_booking':
      return [link('My trips'), link(meta(task, 'ref')), button('Cancel booking'), finish];
    case 'book_flight':
      return [link(number), link(`Book ${cabin}`), ...bookSteps(task)];
    case 'search_cheapest':
      return [...searchSteps(task), button('Search flights'), link('Lowest price'), (i) => ({ done: readText(i, PRICE) })];
    case 'book_cheapest_nonstop':
      return [...searchSteps(task), radio(cabin), button('Search flights'), checkbox('Nonstop'), link('Lowest price'), selectFirst, ...bookSteps(task)];
    case 'round_trip_rebook':
      return [
        link('My trips'), link(meta(task, 'ref')), button('Cancel booking'), link('Flights'), radio('Round trip'), ...searchSteps(task),
        button('Choose return date'), button(meta(task, 'ret_label')), radio(cabin), button('Search flights'), checkbox('Nonstop'),
        link('Lowest price'), selectFirst, selectFirst, ...bookSteps(task),
      ];
    default:
      throw new Error(`no plan for family ${task.family}`);
  }
}

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
