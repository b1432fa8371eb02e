// test-run: alone (starts whole eval stacks (nats-server, sites, judge, actor with Chromium) three times)
// `owrl eval` end to end as the built CLI: its own nats-server, the bundled sites started at the
// origin the task file names, the judge and an actor with real Chromium, the untrained built-in
// policy. The first invocation is interrupted (SIGTERM) once some results are recorded; the second
// resumes: it dispatches only the unsettled samples (no record of the second invocation for a slot
// the first settled), and the report's figures by suite, family and difficulty add up to the task
// file. A third invocation finds everything settled and dispatches nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTaskFile, generateSuiteTasks } from '@owrl/tasks';
import { freePort, startChatServer, waitUntil } from '@owrl/testkit';
import type { EvalReport } from '../src/eval/eval-report.js';
import type { EvalRecord } from '../src/eval/eval-results.js';

const BIN = fileURLToPath(new URL('../../bin/owrl.js', import.meta.url));
const K = 2;
let dir = '';
let tasksFile = '';
let taskCount = 0;

const env = (): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, OWRL_LOG_LEVEL: 'warn' };
  delete e['NATS_URL'];
  return e;
};

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-eval-cmd-'));
  const baseUrl = `http://127.0.0.1:${await freePort()}`;
  const tasks = [
    ...generateSuiteTasks('shop', { seed: 3, n: 2, baseUrl, difficulties: [1, 2] }),
    ...generateSuiteTasks('wiki', { seed: 3, n: 2, baseUrl, difficulties: [1, 2] }),
    ...generateSuiteTasks('mail', { seed: 3, n: 1, baseUrl }),
  ];
  taskCount = tasks.length;
  tasksFile = path.join(dir, 'tasks.jsonl');
  fs.writeFileSync(tasksFile, formatTaskFile(tasks));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const args = (out: string, json: string) => ['eval', '--tasks', tasksFile, '--k', String(K), '--max-steps', '3', '--slots', '2', '--out', out, '--json', json, '--timeout', '900'];

function owrl(a: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...a], { timeout: 900_000, env: { ...env(), ...extraEnv }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

const readRecords = (file: string): EvalRecord[] =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as EvalRecord)
    : [];

void test('owrl eval runs a task file through actors and judge, resumes after an interruption without re-running settled samples', { timeout: 1_800_000 }, async () => {
  const out = path.join(dir, 'eval');
  const results = path.join(out, 'results.jsonl');

  // 1. Interrupted once three results are on disk.
  const child = spawn(process.execPath, [BIN, ...args(out, path.join(dir, 'first.json'))], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (b: Buffer) => (log += b.toString()));
  child.stderr.on('data', (b: Buffer) => (log += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitUntil('three results on disk', () => (readRecords(results).length >= 3 || child.exitCode !== null ? true : undefined), { timeoutMs: 600_000, intervalMs: 250 });
  assert.equal(child.exitCode, null, `the eval ended before it was interrupted:\n${log}`);
  child.kill('SIGTERM');
  const code1 = await exited;
  assert.notEqual(code1, 0, 'an interrupted eval does not exit 0');
  assert.match(log, /interrupted/);
  const first = readRecords(results);
  const settledFirst = new Set(first.filter((r) => r.outcome !== 'excluded').map((r) => `${r.index}/${r.sample}`));
  assert.ok(settledFirst.size >= 1 && settledFirst.size < taskCount * K, `first invocation settled ${settledFirst.size} of ${taskCount * K}`);

  // 2. The same command resumes.
  const json = path.join(dir, 'second.json');
  const r2 = await owrl(args(out, json));
  assert.equal(r2.code, 0, `resumed eval failed:\n${r2.stdout}\n${r2.stderr}`);
  const report = JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
  const all = readRecords(results);
  const second = all.slice(first.length);
  assert.ok(second.every((r) => r.trajectory_id.endsWith('@2')), 'records of the second invocation carry its incarnation');
  for (const r of second) assert.ok(!settledFirst.has(`${r.index}/${r.sample}`), `slot ${r.index}/${r.sample} settled in the first invocation ran again (${r.trajectory_id})`);
  assert.equal(report.invocations, 2);
  assert.equal(report.invocation.resumed_settled_samples, settledFirst.size);
  // every unsettled slot ran in the second invocation, and only those; each dispatch left one record
  const unsettled = [];
  for (let i = 0; i < taskCount; i++) for (let k = 0; k < K; k++) if (!settledFirst.has(`${i}/${k}`)) unsettled.push(`${i}/${k}`);
  assert.deepEqual([...new Set(second.map((r) => `${r.index}/${r.sample}`))].sort(), unsettled.sort());
  assert.equal(report.invocation.dispatched, second.length);
  assert.equal(report.invocation.received, second.length);

  const s = report.summary;
  assert.equal(s.tasks, taskCount);
  assert.equal(s.finished_tasks, taskCount);
  assert.equal(s.settled_samples, taskCount * K);
  assert.equal(s.overall.samples + s.excluded_samples, taskCount * K);
  const valid = all.filter((r) => r.outcome !== 'excluded');
  assert.equal(s.overall.samples, valid.length, 'one valid record per settled slot');
  assert.equal(s.overall.successes, valid.filter((r) => r.outcome === 'success').length);
  for (const g of [s.by_suite, s.by_family, s.by_difficulty]) {
    const sum = (f: 'tasks' | 'samples' | 'successes') => Object.values(g).reduce((a, x) => a + x[f], 0);
    assert.equal(sum('tasks'), taskCount);
    assert.equal(sum('samples'), s.overall.samples);
    assert.equal(sum('successes'), s.overall.successes);
  }
  assert.deepEqual(Object.keys(s.by_suite), ['mail', 'shop', 'wiki']);
  assert.equal(s.by_suite['shop']?.tasks, 2);
  assert.equal(s.by_suite['mail']?.tasks, 1);
  assert.equal(Object.values(s.terminations).reduce((a, b) => a + b, 0), all.length);
  for (const r of valid) {
    assert.ok(['COMPLETED', 'STEP_BUDGET_EXHAUSTED'].includes(r.termination), `termination ${r.termination}`);
    // done() → the task's verifier decides; the step budget ran out → the rule filter's 0
    assert.equal(r.verdict_source, r.termination === 'COMPLETED' ? 'verifier' : 'rule', `${r.trajectory_id} ${r.termination}`);
    assert.ok(r.steps >= 1 && r.steps <= 3);
  }
  assert.ok(s.overall.pass_at[String(K)] !== undefined || s.overall.scored_tasks === 0);
  for (const f of ['report.md', 'report.html', 'report.json', 'eval-by-suite.svg']) assert.ok(fs.existsSync(path.join(out, f)), f);
  assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /## By family/);

  // 3. Nothing left: no stack, no dispatch.
  const r3 = await owrl(args(out, path.join(dir, 'third.json')));
  assert.equal(r3.code, 0, r3.stderr);
  const third = JSON.parse(fs.readFileSync(path.join(dir, 'third.json'), 'utf8')) as EvalReport;
  assert.equal(third.invocation.dispatched, 0);
  assert.equal(third.invocation.resumed_settled_samples, taskCount * K);
  assert.deepEqual(third.summary, s);
  assert.equal(readRecords(results).length, all.length);
});

void test('owrl eval names a bad flag, a missing task file and a policy that is no pointer artifact', async () => {
  const noTasks = await owrl(['eval']);
  assert.equal(noTasks.code, 2);
  assert.match(noTasks.stderr, /--tasks FILE is required/);
  const badK = await owrl(['eval', '--tasks', tasksFile, '--k', '0']);
  assert.equal(badK.code, 2);
  assert.match(badK.stderr, /--k must be an integer >= 1, got "0"/);
  const missing = await owrl(['eval', '--tasks', path.join(dir, 'nope.jsonl')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot read task file .*nope\.jsonl/);
  const badPolicy = await owrl(['eval', '--tasks', tasksFile, '--policy', tasksFile, '--out', path.join(dir, 'bad')]);
  assert.equal(badPolicy.code, 2);
  assert.match(badPolicy.stderr, /--policy ".*tasks\.jsonl" is not an owrl pointer policy artifact/);
  assert.ok(!fs.existsSync(path.join(dir, 'bad')), 'nothing written for a refused eval');
});

void test('owrl eval --policy openai: the actors ask the model behind OWRL_POLICY_BASE_URL, the judge scores its answers', { timeout: 900_000 }, async () => {
  const baseUrl = `http://127.0.0.1:${await freePort()}`;
  const tasks = generateSuiteTasks('mail', { seed: 5, n: 3, baseUrl, families: ['inbox_date', 'inbox_sender', 'message_code'] });
  assert.equal(tasks.length, 3);
  const accepted = tasks.map((t) => (t.verifier?.kind.case === 'answer' ? (t.verifier.kind.value.accepted[0] ?? '') : ''));
  assert.ok(accepted.every((a) => a !== ''), 'answer tasks');
  const file = path.join(dir, 'openai-tasks.jsonl');
  fs.writeFileSync(file, formatTaskFile(tasks));
  // The stand-in model answers the first two tasks right and the third wrong, each in one step.
  const chat = await startChatServer({
    fallback: (req) => {
      const body = JSON.stringify(req.body);
      const i = tasks.findIndex((t) => body.includes(JSON.stringify(t.instruction).slice(1, -1)));
      return { toolCalls: [{ name: 'done', arguments: { response: i >= 0 && i < 2 ? accepted[i] : 'no idea' } }] };
    },
  });
  try {
    const json = path.join(dir, 'openai.json');
    const r = await owrl(['eval', '--tasks', file, '--policy', 'openai', '--max-steps', '2', '--out', path.join(dir, 'openai'), '--json', json], {
      OWRL_POLICY_BASE_URL: chat.url,
      OWRL_POLICY_MODEL: 'base-model',
    });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const report = JSON.parse(fs.readFileSync(json, 'utf8')) as EvalReport;
    assert.match(report.policy, /^openai:base-model@http:\/\/127\.0\.0\.1:\d+\/v1$/);
    assert.equal(report.summary.overall.samples, 3);
    assert.equal(report.summary.overall.successes, 2);
    assert.deepEqual(report.summary.terminations, { COMPLETED: 3 });
    assert.ok(chat.requests.length >= 3 && chat.requests.every((q) => q.model === 'base-model'));
  } finally {
    await chat.close();
  }
  const missing = await owrl(['eval', '--tasks', file, '--policy', 'openai'], { OWRL_POLICY_BASE_URL: '' });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--policy openai: OWRL_POLICY_BASE_URL is not set/);
});
