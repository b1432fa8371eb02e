// `owrl sft export` as the built CLI in a child process. From runs: a real nats-server holding
// scored trajectories (successes, failures, exclusions, a second success of the same task, a model
// verdict); only successful trajectories come out, one per task, filtered by verdict source and
// suite. From solvers: the bundled sites and real Chromium, images written as files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectBus, ensureTopology, scoredSubject } from '@owrl/bus';
import {
  make,
  EffectSchema,
  RolloutRequestSchema,
  ScoredTrajectorySchema,
  StepSchema,
  TaskSchema,
  TerminationClass,
  TerminationSchema,
  ToolCallSchema,
  ToolResultSchema,
  TrajectorySchema,
  VerdictSchema,
  VerdictSource,
  type ScoredTrajectory,
} from '@owrl/proto';
import { startNatsServer, type NatsServer } from '@owrl/testkit';

const BIN = fileURLToPath(new URL('../../bin/owrl.js', import.meta.url));
let nats: NatsServer;
let dir = '';

before(async () => {
  nats = await startNatsServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-sft-cmd-'));
});
after(async () => {
  await nats?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

function owrl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 240_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

function scored(sample: number, o: { task: string; suite?: string; success: boolean; source?: VerdictSource; excluded?: boolean }): ScoredTrajectory {
  const id = `runS/0/0/${sample}/0`;
  const suite = o.suite ?? 'shop';
  const step = (i: number, call: string, args: object, effect: string) =>
    make(StepSchema, {
      index: i,
      reasoning: `reasoning ${i}`,
      urlBefore: `http://127.0.0.1:8400/${suite}/${i}`,
      results: [make(ToolResultSchema, { ok: true, call: make(ToolCallSchema, { name: call, argsJson: JSON.stringify(args) }), effects: [make(EffectSchema, { line: effect })] })],
    });
  const trajectory = make(TrajectorySchema, {
    trajectoryId: id,
    request: make(RolloutRequestSchema, {
      runId: 'runS',
      trajectoryId: id,
      maxSteps: 6,
      task: make(TaskSchema, { id: o.task, suite, family: 'price', difficulty: 2, instruction: `Find the price of ${o.task}.`, startUrl: `http://127.0.0.1:8400/${suite}/` }),
    }),
    steps: [step(0, 'click', { element_id: 4 }, 'navigated to /shop/p/mug'), step(1, 'done', { response: '$3.50' }, 'done')],
    finalAnswer: '$3.50',
    calledDone: !o.excluded,
    termination: make(TerminationSchema, o.excluded ? { class: TerminationClass.ENV_ERROR, reason: 'dns' } : { class: TerminationClass.COMPLETED, reason: 'done' }),
  });
  return make(ScoredTrajectorySchema, {
    trajectoryId: id,
    trajectory,
    trainable: !o.excluded,
    excludedReason: o.excluded ? 'env_error:dns' : '',
    ...(o.excluded ? {} : { verdict: make(VerdictSchema, { success: o.success, reward: o.success ? 1 : 0, source: o.source ?? VerdictSource.VERIFIER, judgeVersion: 'v' }) }),
  });
}

interface Rec {
  id: string;
  task_id: string;
  source: string;
  verdict_source: string;
  step: number;
  messages: { role: string; content: unknown }[];
}

const read = (f: string): Rec[] =>
  fs
    .readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Rec);

void test('export from runs: successful trajectories only, one per task, by verdict source and suite', async () => {
  const bus = await connectBus({ servers: nats.url, name: 'sft-test' });
  try {
    await ensureTopology(bus, { storage: 'memory' });
    const items = [
      scored(0, { task: 'shop/price/0001', success: true }),
      scored(1, { task: 'shop/price/0001', success: true }),
      scored(2, { task: 'shop/price/0002', success: false }),
      scored(3, { task: 'shop/price/0003', success: true, excluded: true }),
      scored(4, { task: 'shop/price/0004', success: true, source: VerdictSource.MODEL }),
      scored(5, { task: 'wiki/fact/0001', suite: 'wiki', success: true }),
    ];
    for (const s of items) await bus.publish(scoredSubject('runS'), ScoredTrajectorySchema, s, { msgId: s.trajectoryId });
  } finally {
    await bus.close();
  }
  const out = path.join(dir, 'runs.jsonl');
  const r = await owrl('sft', 'export', '--from', 'runs', '--nats', nats.url, '--run', 'runS', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  const recs = read(out);
  assert.deepEqual([...new Set(recs.map((x) => x.task_id))].sort(), ['shop/price/0001', 'shop/price/0004', 'wiki/fact/0001']);
  assert.equal(recs.length, 6, 'two decisions per trajectory');
  const first = recs.find((x) => x.id === 'shop/price/0001#1');
  assert.ok(first);
  assert.equal(first.source, 'run:runS');
  assert.deepEqual(first.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user', 'assistant']);
  assert.match(String(first.messages[1]?.content), /Task: Find the price of shop\/price\/0001/);
  assert.match(String(first.messages[3]?.content), /navigated to \/shop\/p\/mug/, 'the previous step\'s effects');
  assert.match(String(first.messages[4]?.content), /"response":\s*"\$3\.50"/);

  const onlyModel = path.join(dir, 'model.jsonl');
  assert.equal((await owrl('sft', 'export', '--from', 'runs', '--nats', nats.url, '--verdict-source', 'model', '--out', onlyModel)).code, 0);
  assert.deepEqual([...new Set(read(onlyModel).map((x) => x.task_id))], ['shop/price/0004']);
  const wiki = path.join(dir, 'wiki.jsonl');
  assert.equal((await owrl('sft', 'export', '--from', 'runs', '--nats', nats.url, '--suites', 'wiki', '--out', wiki)).code, 0);
  assert.deepEqual([...new Set(read(wiki).map((x) => x.verdict_source))], ['verifier']);
  assert.equal(read(wiki).length, 2);
});

void test('bad options are usage errors naming the option', async () => {
  const a = await owrl('sft', 'export', '--from', 'somewhere');
  assert.equal(a.code, 2);
  assert.match(a.stderr, /--from must be solvers or runs/);
  const b = await owrl('sft', 'export', '--images', 'files');
  assert.equal(b.code, 2);
  assert.match(b.stderr, /--images files needs --out FILE/);
  const c = await owrl('sft', 'export', '--suites', 'bank', '--out', path.join(dir, 'x.jsonl'));
  assert.equal(c.code, 2);
  assert.match(c.stderr, /no scripted solver for "bank"/);
});

void test('export from solvers: scripted episodes of the bundled sites, images as files', async () => {
  const out = path.join(dir, 'solvers.jsonl');
  const r = await owrl('sft', 'export', '--suites', 'shop,mail', '--difficulties', '2', '--n', '1', '--images', 'files', '--out', out);
  assert.equal(r.code, 0, r.stderr);
  const recs = read(out);
  assert.equal(new Set(recs.map((x) => x.task_id)).size, 2, r.stderr);
  assert.equal(recs.length, 4);
  for (const x of recs) assert.equal(x.verdict_source, 'verifier');
  const imgs = fs.readdirSync(`${out}.images`);
  assert.ok(imgs.length >= 2 && imgs.every((f) => /^[0-9a-f]{64}\.(jpg|png)$/.test(f)), imgs.join(','));
  assert.match(JSON.stringify(recs[0]?.messages[1]), /solvers\.jsonl\.images\/[0-9a-f]{64}\./);
});
