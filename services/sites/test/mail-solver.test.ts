// Scripted solvers of every mail family, run through the environment's tools (BrowserPool +
// PlanPolicy in real Chromium): each plan follows its family's route, one step per route entry,
// built from the task's metadata; answers are read from the observed page texts. The task's own
// verifier must accept, and a wrong answer, a wrong page or a wrong mailbox must be rejected.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { BrowserPool, PlanPolicy, type EpisodeResult, type PlanCall, type PlanStep, type PolicyInput } from '@owrl/browser-env';
import { matchAnswer } from '@owrl/judge-core';
import type { Task } from '@owrl/proto';
import { generateMailTasks, MAIL_FAMILIES, withSession } from '@owrl/tasks';
import { startSitesServer, type SitesServer } from '../src/index.js';

const SEED = 6;
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

/** The value of the first observed `Label: value` text whose container mentions `near`. */
function labelled(input: PolicyInput, label: string, near: string): string {
  const re = new RegExp(`^${label}: (.+)$`);
  const t = input.observation.texts.find((x) => re.test(x.text) && x.context.includes(near));
  if (t === undefined) {
    throw new Error(`no "${label}: …" text near ${JSON.stringify(near)} on ${input.observation.url}: ${input.observation.texts.map((x) => x.text).join(' | ')}`);
  }
  return re.exec(t.text)?.[1] ?? '';
}

const link = (name: string): PlanCall => ({ click: { role: 'link', name } });
const button = (name: string, context?: string): PlanCall => ({ click: { role: 'button', name, ...(context !== undefined ? { context } : {}) } });
const write = (text: string, name: string, role = 'textbox'): PlanCall => ({ write: text, into: { role, name } });
const search = (q: string): PlanCall[] => [write(q, 'Search mail', 'searchbox'), { press: ['Enter'] }];
const finish: PlanCall = { done: 'ok' };

/** The family's route as a plan; `subject` overrides the message acted on (wrong-state runs). */
function planFor(task: Task, subject = task.metadata['subject'] ?? ''): PlanStep[] {
  const fact = (i: PolicyInput): PlanCall => ({ done: labelled(i, meta(task, 'fact'), subject) });
  const replyRoute = (button1: string): PlanStep[] => [link(button1), write(meta(task, 'text'), 'Message'), button('Send'), finish];
  switch (task.family) {
    case 'inbox_date':
      return [(i) => ({ done: labelled(i, 'Received', subject) })];
    case 'inbox_sender':
      return [(i) => ({ done: labelled(i, 'From', subject) })];
    case 'open_message':
      return [link(subject), finish];
    case 'message_code':
      return [link(subject), fact];
    case 'star':
      return [button('Star', subject), finish];
    case 'contact_email':
      return [link('Contacts'), (i) => ({ done: labelled(i, 'Email', meta(task, 'contact')) })];
    case 'search_for':
      return [search(meta(task, 'query')), finish];
    case 'archive':
      return [link(subject), button('Archive'), finish];
    case 'delete':
      return [link(subject), button('Delete'), finish];
    case 'mark_unread':
      return [link(subject), button('Mark as unread'), finish];
    case 'label':
      return [link(subject), button(meta(task, 'label')), finish];
    case 'folder_code':
      return [link('Archive'), link(subject), fact];
    case 'search_code':
      return [search(subject), link(subject), fact];
    case 'search_delete':
      return [search(subject), link(subject), button('Delete'), finish];
    case 'reply':
      return [link(subject), ...replyRoute('Reply')];
    case 'reply_all':
      return [link(subject), ...replyRoute('Reply all')];
    case 'search_reply':
      return [search(subject), link(subject), ...replyRoute('Reply')];
    case 'forward':
      return [link(subject), link('Forward'), write(meta(task, 'contact'), 'To', 'combobox'), button('Send'), finish];
    case 'compose':
      return [
        link('Compose'), write(meta(task, 'contact'), 'To', 'combobox'), write(meta(task, 'subject'), 'Subject'), write(meta(task, 'text'), 'Message'),
        button('Send'), finish,
      ];
    case 'compose_lookup':
      return [
        link(subject), button('Star'), link('Compose'),
        // Enter in To picks the first autocomplete suggestion (the contact's "Name <address>").
        [write(meta(task, 'contact'), 'To', 'combobox'), { press: ['Enter'] }],
        write(meta(task, 'cc'), 'Cc', 'combobox'), write(meta(task, 'new_subject'), 'Subject'),
        write(`Hello! Could we talk about ${meta(task, 'text')} soon?`, 'Message'), button('Send'), finish,
      ];
    case 'triage': {
      const archive = JSON.parse(meta(task, 'archive_subjects')) as string[];
      const star = JSON.parse(meta(task, 'star_subjects')) as string[];
      return [
        search(meta(task, 'sender')),
        ...archive.flatMap((s) => [link(s), button('Archive')]),
        search(meta(task, 'topic')),
        ...star.map((s) => button('Star', s)),
        search(meta(task, 'question')), link(meta(task, 'question')), link('Reply'), write(meta(task, 'text'), 'Message'), button('Send'),
        search(meta(task, 'invoice')), link(meta(task, 'invoice')), link('Forward'), write(meta(task, 'contact'), 'To', 'combobox'), button('Send'),
        finish,
      ];
    }
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

async function check(task: Task): Promise<void> {
  const session = `solve/${task.id}`;
  const plan = planFor(task);
  assert.equal(plan.length, task.difficulty, `${task.id}: the plan is the family's route`);
  const r = await run(task, session, plan);
  assertClean(task, r);
  assert.equal(r.steps.length, task.difficulty);
  switch (task.verifier?.kind.case) {
    case 'answer':
      assert.ok(answerOk(task, r.finalAnswer), `${task.id}: answer ${JSON.stringify(r.finalAnswer)} accepted`);
      assert.equal(answerOk(task, `${r.finalAnswer}7`), false, `${task.id}: a wrong answer is rejected`);
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

void test('a scripted agent solves one task of every family through the tools; the verifiers accept', async () => {
  const tasks = MAIL_FAMILIES.map((f) => generateMailTasks({ seed: 8, n: 1, baseUrl: srv.url, dataSeed: SEED, families: [f.name] })[0]);
  const queue = tasks.filter((t): t is Task => t !== undefined);
  assert.equal(queue.length, MAIL_FAMILIES.length);
  // Two episodes at a time (the pool runs each in its own context).
  const errors: unknown[] = [];
  const worker = async (): Promise<void> => {
    for (let t = queue.shift(); t !== undefined; t = queue.shift()) {
      try {
        await check(t);
      } catch (e) {
        errors.push(e);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  if (errors.length > 0) throw errors[0];
});

void test('a wrong message archived, or a page left elsewhere, is rejected', async () => {
  const [archive] = generateMailTasks({ seed: 2, n: 1, baseUrl: srv.url, dataSeed: SEED, families: ['archive'] });
  const [open] = generateMailTasks({ seed: 2, n: 1, baseUrl: srv.url, dataSeed: SEED, families: ['open_message'] });
  assert.ok(archive && open);
  const [other] = generateMailTasks({ seed: 3, n: 11, baseUrl: srv.url, dataSeed: SEED, families: ['archive'] }).filter(
    (t) => t.metadata['subject'] !== archive.metadata['subject'],
  );
  assert.ok(other);
  const wrong = other.metadata['subject'] ?? '';
  const r = await run(archive, 'wrong/archive', planFor(archive, wrong));
  assertClean(archive, r);
  const res = await siteState(archive, 'wrong/archive');
  assert.equal(res.ok, false);
  assert.match(res.detail, /want folder archive, have inbox/);
  assert.match(res.detail, /moved from inbox to archive/);

  const r2 = await run(open, 'wrong/open', [link(open.metadata['subject'] === wrong ? (archive.metadata['subject'] ?? '') : wrong), finish]);
  assertClean(open, r2);
  assert.equal(r2.pageEval.evaluated, true, r2.pageEval.error);
  assert.equal(r2.pageEval.truthy, false, 'another message is open');
});
