// The eval's bookkeeping without processes: pass@k against binomials worked out by hand, which
// slots are settled or pending after exclusions, duplicates ignored, figures per group adding up,
// and results.jsonl read back (a torn last line cut, a bad line named).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EvalLedger, parseResults, passAtK, summarize, type EvalRecord, type EvalTaskInfo } from '../src/eval/eval-results.js';
import { EvalStore } from '../src/eval/eval-store.js';

void test('passAtK is 1 - C(n-c,k)/C(n,k)', () => {
  assert.equal(passAtK(5, 2, 2), 1 - 3 / 10); // C(3,2)=3, C(5,2)=10
  assert.equal(passAtK(4, 1, 2), 0.5); // 1 - 3/6
  assert.ok(Math.abs(passAtK(10, 3, 5) - (1 - 21 / 252)) < 1e-12); // C(7,5)=21, C(10,5)=252
  assert.equal(passAtK(3, 0, 1), 0);
  assert.equal(passAtK(3, 3, 2), 1);
  assert.equal(passAtK(4, 1, 1), 0.25);
  assert.throws(() => passAtK(2, 1, 3), /exceeds/);
  assert.throws(() => passAtK(2, 3, 1), RangeError);
});

const tasks: EvalTaskInfo[] = [
  { index: 0, id: 'shop/a/1', suite: 'shop', family: 'a', difficulty: 2 },
  { index: 1, id: 'shop/b/1', suite: 'shop', family: 'b', difficulty: 3 },
  { index: 2, id: 'mail/c/1', suite: 'mail', family: 'c', difficulty: 2 },
];

let seq = 0;
function rec(index: number, sample: number, attempt: number, outcome: EvalRecord['outcome'], reason = ''): EvalRecord {
  const t = tasks[index]!;
  return {
    index,
    task: t.id,
    sample,
    attempt,
    trajectory_id: `e/0/${index}/${sample}/${attempt}#${seq++}`,
    suite: t.suite,
    family: t.family,
    difficulty: t.difficulty,
    outcome,
    termination: outcome === 'excluded' ? 'ENV_ERROR' : 'COMPLETED',
    reason,
    ...(outcome === 'excluded' ? { excluded_reason: `env_error:${reason}` } : {}),
    steps: 2,
    policy_version: 1,
    at_ms: 0,
  };
}

void test('the ledger settles slots, retries exclusions up to max attempts and counts by group', () => {
  const l = new EvalLedger(tasks, 2, 2);
  assert.equal(l.pending().length, 6);
  assert.ok(l.add(rec(0, 0, 0, 'success')));
  assert.ok(l.add(rec(0, 1, 0, 'failure')));
  assert.equal(l.add(rec(0, 1, 1, 'success')), false, 'a settled slot takes no second result');
  assert.ok(l.add(rec(1, 0, 0, 'excluded', 'dns')));
  assert.deepEqual(
    l.pending().find((p) => p.index === 1 && p.sample === 0),
    { index: 1, sample: 0, attempt: 1 },
  );
  assert.ok(l.add(rec(1, 0, 1, 'excluded', 'dns')));
  assert.equal(l.settled(1, 0)?.outcome, 'excluded', 'two attempts excluded: settled as excluded');
  assert.ok(l.add(rec(1, 1, 0, 'success')));
  assert.ok(l.add(rec(2, 0, 0, 'failure')));
  assert.equal(l.add({ ...rec(2, 0, 0, 'failure'), index: 7 }), false, 'unknown task');
  assert.equal(l.add(rec(2, 2, 0, 'failure')), false, 'sample beyond k');
  assert.deepEqual(l.pending(), [{ index: 2, sample: 1, attempt: 0 }]);
  assert.equal(l.finishedTasks(), 2);
  assert.ok(l.add(rec(2, 1, 0, 'success')));

  const s = summarize(l);
  assert.equal(s.finished_tasks, 3);
  // task 0: 1/2, task 1: 1/1 (one sample excluded), task 2: 1/2
  assert.equal(s.overall.pass_at_1, Number(((0.5 + 1 + 0.5) / 3).toFixed(4)));
  // pass@2 only over tasks with 2 valid samples: tasks 0 and 2, each 1 - C(1,2)/C(2,2) = 1
  assert.deepEqual(s.overall.pass_at, { '1': s.overall.pass_at_1, '2': 1 });
  assert.deepEqual(Object.keys(s.by_suite), ['mail', 'shop']);
  assert.equal(s.by_suite['shop']?.tasks, 2);
  assert.equal(s.by_suite['shop']?.samples, 3);
  assert.equal(s.by_suite['shop']?.successes, 2);
  assert.deepEqual(Object.keys(s.by_family), ['mail/c', 'shop/a', 'shop/b']);
  assert.deepEqual(Object.keys(s.by_difficulty), ['2', '3']);
  const sum = (g: Record<string, { tasks: number; samples: number; successes: number }>, f: 'tasks' | 'samples' | 'successes') => Object.values(g).reduce((a, x) => a + x[f], 0);
  for (const g of [s.by_suite, s.by_family, s.by_difficulty]) {
    assert.equal(sum(g, 'tasks'), 3);
    assert.equal(sum(g, 'samples'), s.overall.samples);
    assert.equal(sum(g, 'successes'), s.overall.successes);
  }
  assert.equal(s.overall.samples, 5);
  assert.equal(s.overall.successes, 3);
  assert.deepEqual(s.excluded, { 'env_error:dns': 2 });
  assert.equal(s.excluded_samples, 1);
  assert.equal(s.excluded_tasks, 0);
  assert.deepEqual(s.terminations, { COMPLETED: 5, ENV_ERROR: 2 });
});

void test('results.jsonl: a torn last line is cut off and the store refuses a different eval', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-eval-store-'));
  try {
    const id = { tasks_sha256: 'aa', tasks_file: '/t.jsonl', policy: 'p', samples: 2, max_steps: 4, temperature: 1 };
    const s1 = EvalStore.open(dir, 'eval-x', id);
    s1.append(rec(0, 0, 0, 'success'));
    s1.append(rec(0, 1, 0, 'failure'));
    s1.close();
    fs.appendFileSync(s1.resultsFile, '{"index":0,"sam');
    const s2 = EvalStore.open(dir, 'eval-x', id);
    assert.equal(s2.previous.length, 2);
    assert.equal(s2.manifest.invocations, 2);
    assert.ok(fs.readFileSync(s2.resultsFile, 'utf8').endsWith('}\n'));
    s2.append(rec(1, 0, 0, 'success'));
    s2.close();
    assert.equal(EvalStore.open(dir, 'eval-x', id).previous.length, 3);
    assert.throws(() => EvalStore.open(dir, 'eval-x', { ...id, samples: 3 }), /holds a different eval \(samples: 2 there, 3 now\)/);
    assert.throws(() => parseResults('{"index":0}\n{}\n', 'r.jsonl'), /r\.jsonl:1: not an eval result record/);
    assert.throws(() => parseResults('nope\n{"index":0,"sample":0,"attempt":0,"outcome":"success"}\n', 'r.jsonl'), /r\.jsonl:1: not a JSON record/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
