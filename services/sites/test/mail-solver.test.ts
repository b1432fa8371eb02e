// Scripted solvers of every mail family, run through the environment's tools (BrowserPool +
// PlanPolicy in real Chromium): each plan follows its family's route, one step per route entry,
// built from the task's metadata; answers are read from the observed page texts. The task's own
// verifier must accept, and a wrong answer, a wrong page or a wrong mailbox must be rejected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlanCall, PlanStep, PolicyInput } from '@owrl/browser-env';
import type { Task } from '@owrl/proto';
import { generateMailTasks, MAIL_FAMILIES } from '@owrl/tasks';
import { assertClean, button, finish, inPairs, link, meta, readText, siteState, useSolverHarness, write } from './solver-harness.js';

const SEED = 6;
const h = useSolverHarness({ seed: SEED });

/** The value of the first observed `Label: value` text whose container mentions `near`. */
function labelled(input: PolicyInput, label: string, near: string): string {
  return readText(input, new RegExp(`^${label}: (.+)$`), near);
}

const search = (q: string): PlanCall[] => [write(q, 'Search mail', 'searchbox'), { press: ['Enter'] }];

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

void test('a scripted agent solves one task of every family through the tools; the verifiers accept', async () => {
  const tasks = MAIL_FAMILIES.map((f) => generateMailTasks({ seed: 8, n: 1, baseUrl: h.srv.url, dataSeed: SEED, families: [f.name] })[0]);
  const queue = tasks.filter((t): t is Task => t !== undefined);
  assert.equal(queue.length, MAIL_FAMILIES.length);
  // Two episodes at a time (the pool runs each in its own context).
  await inPairs(queue, (task) => h.assertSolved(task, planFor(task), '7'));
});

void test('a wrong message archived, or a page left elsewhere, is rejected', async () => {
  const [archive] = generateMailTasks({ seed: 2, n: 1, baseUrl: h.srv.url, dataSeed: SEED, families: ['archive'] });
  const [open] = generateMailTasks({ seed: 2, n: 1, baseUrl: h.srv.url, dataSeed: SEED, families: ['open_message'] });
  assert.ok(archive && open);
  const [other] = generateMailTasks({ seed: 3, n: 11, baseUrl: h.srv.url, dataSeed: SEED, families: ['archive'] }).filter(
    (t) => t.metadata['subject'] !== archive.metadata['subject'],
  );
  assert.ok(other);
  const wrong = other.metadata['subject'] ?? '';
  const r = await h.run(archive, 'wrong/archive', planFor(archive, wrong));
  assertClean(archive, r);
  const res = await siteState(archive, 'wrong/archive');
  assert.equal(res.ok, false);
  assert.match(res.detail, /want folder archive, have inbox/);
  assert.match(res.detail, /moved from inbox to archive/);

  const r2 = await h.run(open, 'wrong/open', [link(open.metadata['subject'] === wrong ? (archive.metadata['subject'] ?? '') : wrong), finish]);
  assertClean(open, r2);
  assert.equal(r2.pageEval.evaluated, true, r2.pageEval.error);
  assert.equal(r2.pageEval.truthy, false, 'another message is open');
});
