// Scripted solvers of every travel family, run through the environment's tools (BrowserPool +
// PlanPolicy in real Chromium): each plan is the family's route, one PlanPolicy step per step, built
// from the task's metadata; answers are read from the observed page. The task's own verifier must
// accept the outcome, and a wrong answer, wrong final page or wrong bookings must be rejected.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { BrowserPool, PlanPolicy, type EpisodeResult, type PlanCall, type PlanStep, type PolicyInput } from '@owrl/browser-env';
import { matchAnswer } from '@owrl/judge-core';
import type { Task } from '@owrl/proto';
import { generateTravelTasks, TRAVEL_FAMILIES, withSession } from '@owrl/tasks';
import { startSitesServer, type SitesServer } from '../src/index.js';

const SEED = 2;
let srv: SitesServer;
let pool: BrowserPool;

before(async () => {
  srv = await startSitesServer({ port: 0, seed: SEED });
  pool = new BrowserPool({
    allowHosts: [`127.0.0.1:${srv.port}`],
    screenshots: 0,
    timeouts: { initNavigationMs: 10_000, initRetries: 1, toolCallMs: 10_000, stepMs: 20_000, taskMs: 120_000, closeMs: 5000 },
  });
  await pool.start();
});
after(async () => {
  await pool?.close();
  await srv?.close();
});

function meta(task: Task, key: string): string {
  const v = task.metadata[key];
  if (v === undefined) throw new Error(`${task.id}: metadata.${key} is missing`);
  return v;
}

/** Group 1 (or the match) of the first observed text matching `re` whose container starts with / includes `near`. */
function readText(input: PolicyInput, re: RegExp, near?: (context: string) => boolean): string {
  const t = input.observation.texts.find((x) => re.test(x.text) && (near === undefined || near(x.context)));
  if (t === undefined) throw new Error(`no text like ${String(re)} on ${input.observation.url}: ${input.observation.texts.map((x) => x.text).join(' | ')}`);
  const m = re.exec(t.text);
  return m?.[1] ?? m?.[0] ?? t.text;
}

const PRICE = /^\$[\d,]+$/;
/** The carrier line of a result card, e.g. `Borealis · BX708`. */
const CARRIER = / · ([A-Z]{2}\d{3})$/;

const link = (name: string | RegExp): PlanCall => ({ click: { role: 'link', name } });
const button = (name: string): PlanCall => ({ click: { role: 'button', name } });
const radio = (name: string): PlanCall => ({ click: { role: 'radio', name } });
const checkbox = (name: string): PlanCall => ({ click: { role: 'checkbox', name } });
const write = (text: string, name: string, role = 'textbox'): PlanCall => ({ write: text, into: { role, name } });
const pickAirport = (text: string, field: string): PlanCall[] => [write(text, field, 'combobox'), { press: ['Enter'] }];
const finish: PlanCall = { done: 'ok' };
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

async function run(task: Task, session: string, plan: PlanStep[]): Promise<EpisodeResult<undefined>> {
  const v = task.verifier?.kind;
  return await pool.runEpisode(
    {
      startUrl: withSession(task.startUrl, session),
      instruction: task.instruction,
      maxSteps: plan.length,
      finalScreenshot: false,
      ...(v?.case === 'pageExpression' ? { pageExpression: v.value.expression } : {}),
    },
    new PlanPolicy(plan),
  );
}

async function siteState(task: Task, session: string): Promise<{ ok: boolean; detail: string }> {
  const v = task.verifier?.kind;
  if (v?.case !== 'siteState') throw new Error(`${task.id} has no site-state verifier`);
  const res = await fetch(`${v.value.endpoint}?session=${encodeURIComponent(session)}&spec=${encodeURIComponent(v.value.specJson)}`);
  assert.equal(res.status, 200);
  return (await res.json()) as { ok: boolean; detail: string };
}

function answerOk(task: Task, answer: string): boolean {
  const v = task.verifier?.kind;
  if (v?.case !== 'answer') throw new Error(`${task.id} has no answer verifier`);
  return matchAnswer(v.value, answer).status === 'pass';
}

function assertClean(task: Task, r: EpisodeResult<undefined>): void {
  assert.equal(r.termination.cls, 'COMPLETED', `${task.id}: ${r.termination.reason} ${r.termination.message}`);
  const failed = r.steps.flatMap((s) => s.results.filter((c) => !c.ok).map((c) => `step ${s.index + 1} ${c.call.name}: ${c.errorCode}`));
  assert.deepEqual(failed, [], `${task.id}: every tool call succeeds`);
}

void test('a scripted agent solves one task of every family through the tools; the verifiers accept', async () => {
  const tasks = generateTravelTasks({ seed: 8, n: TRAVEL_FAMILIES.length, baseUrl: srv.url, dataSeed: SEED });
  assert.deepEqual(new Set(tasks.map((t) => t.family)), new Set(TRAVEL_FAMILIES.map((f) => f.name)));
  // Two episodes at a time (two browser slots), longest routes first.
  const queue = [...tasks].sort((a, b) => b.difficulty - a.difficulty);
  await Promise.all([lane(queue), lane(queue)]);
});

async function lane(queue: Task[]): Promise<void> {
  for (let task = queue.shift(); task !== undefined; task = queue.shift()) {
    const session = `solve/${task.id}`;
    const plan = planFor(task);
    assert.equal(plan.length, task.difficulty, `${task.id}: the plan is the family's route`);
    const r = await run(task, session, plan);
    assertClean(task, r);
    assert.equal(r.steps.length, task.difficulty);
    switch (task.verifier?.kind.case) {
      case 'answer':
        assert.ok(answerOk(task, r.finalAnswer), `${task.id}: answer ${JSON.stringify(r.finalAnswer)} accepted`);
        assert.equal(answerOk(task, `${r.finalAnswer}1`), false, `${task.id}: a wrong answer is rejected`);
        break;
      case 'siteState': {
        const res = await siteState(task, session);
        assert.equal(res.ok, true, `${task.id}: ${res.detail}`);
        assert.equal((await siteState(task, `${session}/untouched`)).ok, false, `${task.id}: an untouched session is rejected`);
        break;
      }
      case 'pageExpression':
        assert.equal(r.pageEval.truthy, true, `${task.id}: ${r.pageEval.error} ${r.pageEval.valueJson}`);
        break;
      default:
        assert.fail(`${task.id} has no verifier`);
    }
  }
}

void test('a booking in the wrong cabin fails both the page expression and the site state', async () => {
  const [book] = generateTravelTasks({ seed: 3, n: 1, baseUrl: srv.url, dataSeed: SEED, families: ['book_flight'] });
  assert.ok(book);
  const [nonstop] = generateTravelTasks({ seed: 3, n: 1, baseUrl: srv.url, dataSeed: SEED, families: ['book_cheapest_nonstop'] });
  assert.ok(nonstop);
  const wrong = book.metadata['cabin'] === 'business' ? 'Economy' : 'Business';
  const other = nonstop.metadata['cabin'] === 'business' ? 'Premium economy' : 'Business';
  const [r, r2] = await Promise.all([run(book, 'wrong/book', planFor(book, wrong)), run(nonstop, 'wrong/nonstop', planFor(nonstop, other))]);
  assertClean(book, r);
  assertClean(nonstop, r2);
  assert.ok(r.pageEval.evaluated, r.pageEval.error);
  assert.equal(r.pageEval.truthy, false, 'the confirmation shows another cabin');
  assert.match(new URL(r.finalUrl).pathname, /^\/travel\/confirmation\/[A-Z]{3}\d{3}$/);

  const res = await siteState(nonstop, 'wrong/nonstop');
  assert.equal(res.ok, false);
  assert.match(res.detail, /no confirmed booking of|cabin/);
});
