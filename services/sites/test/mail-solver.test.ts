// Scripted solvers of every mail family, run through the environment's tools (BrowserPool +
// PlanPolicy in real Chromium): each plan follows its family's route, one step per route entry,
// built from the task's metadata; answers are read from the observed page texts. The task's own
// verifier must accept, and a wrong answer, a wrong page or a wrong mailbox must be rejected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Task } from '@owrl/proto';
import { mailPlan as planFor } from '@owrl/demos';
import { buildMailData, generateMailTasks, MAIL_FAMILIES } from '@owrl/tasks/mail';
import { assertClean, finish, inPairs, link, siteState, useSolverHarness } from './solver-harness.js';

const SEED = 6;
const h = useSolverHarness({ seed: SEED });

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

void test('the sender and date of every recent inbox row are read, unread rows ("Unread, From: …") included', async () => {
  const data = buildMailData(SEED);
  const tasks = ['inbox_sender', 'inbox_date'].flatMap((f) => {
    // every recent row whose subject names one message (the families' targets)
    const n = data.messages.filter((m) => m.recent && !data.messages.some((x) => x.id !== m.id && x.folder !== 'trash' && x.subject.toLowerCase() === m.subject.toLowerCase())).length;
    return generateMailTasks({ seed: 1, n, baseUrl: h.srv.url, dataSeed: SEED, families: [f] });
  });
  const unread = tasks.filter((t) => data.byId.get(t.metadata['message'] ?? '')?.unread === true);
  assert.ok(unread.some((t) => t.family === 'inbox_sender'), 'some targets are unread rows');
  await inPairs(tasks, (task) => h.assertSolved(task, planFor(task), '7'));
});
