// `owrl judge export | eval` as the built CLI in a child process, against a real nats-server and a
// tiny ONNX judge model built here: export writes judge records with labels and shadow verdicts;
// eval's confusion matrix equals the model's own verdicts on the same trajectories.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectBus, ensureTopology, scoredSubject } from '@owrl/bus';
import { judgeInputFromTrajectory, OnnxJudge, probeDevice } from '@owrl/judge-model';
import { probeGraphBytes, writeTinyDecoderJudge } from '@owrl/judge-model/testing';
import {
  make,
  RolloutRequestSchema,
  ScoredTrajectorySchema,
  TaskSchema,
  TerminationClass,
  TerminationSchema,
  TrajectorySchema,
  toJson,
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
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-judge-cmd-'));
});
after(async () => {
  await nats?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

function owrl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

function scored(run: string, sample: number, o: { success?: boolean; shadow?: boolean; excluded?: string }): ScoredTrajectory {
  const id = `${run}/0/0/${sample}/0`;
  const trajectory = make(TrajectorySchema, {
    trajectoryId: id,
    request: make(RolloutRequestSchema, {
      runId: run,
      trajectoryId: id,
      task: make(TaskSchema, { id: `shop/price/000${sample}`, suite: 'shop', family: 'price', instruction: `What is the price of item ${sample}?`, startUrl: 'http://127.0.0.1:8400/shop/' }),
    }),
    finalAnswer: `$${sample}.99`,
    calledDone: o.excluded === undefined,
    termination: make(TerminationSchema, o.excluded === undefined ? { class: TerminationClass.COMPLETED, reason: 'done' } : { class: TerminationClass.ENV_ERROR, reason: o.excluded }),
  });
  return make(ScoredTrajectorySchema, {
    trajectoryId: id,
    trajectory,
    trainable: o.excluded === undefined,
    excludedReason: o.excluded === undefined ? '' : `env_error:${o.excluded}`,
    ...(o.excluded === undefined
      ? { verdict: make(VerdictSchema, { success: o.success ?? false, reward: o.success ? 1 : 0, source: VerdictSource.VERIFIER, judgeVersion: 'verifier-1' }) }
      : {}),
    ...(o.shadow !== undefined ? { shadow: make(VerdictSchema, { success: o.shadow, source: VerdictSource.MODEL, judgeVersion: 'tiny@1', pSuccess: o.shadow ? 0.8 : 0.2 }) } : {}),
  });
}

void test('export writes judge records of one run; eval measures the model on them', async () => {
  const bus = await connectBus({ servers: nats.url, name: 'judge-cmd-test' });
  try {
    await ensureTopology(bus, { storage: 'memory' });
    const items = [
      scored('runA', 0, { success: true, shadow: true }),
      scored('runA', 1, { success: false, shadow: false }),
      scored('runA', 2, { success: true }),
      scored('runA', 3, { success: false }),
      scored('runA', 4, { excluded: 'dns' }),
      scored('runB', 0, { success: true }),
    ];
    for (const s of items) await bus.publish(scoredSubject(s.trajectory?.request?.runId ?? ''), ScoredTrajectorySchema, s, { msgId: s.trajectoryId });
  } finally {
    await bus.close();
  }

  const out = path.join(dir, 'runA.jsonl');
  const ex = await owrl('judge', 'export', '--nats', nats.url, '--run', 'runA', '--out', out);
  assert.equal(ex.code, 0, ex.stderr);
  assert.match(ex.stderr, /4 records written \(4 labelled\) of 5 scored trajectories read/);
  const records = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(records.map((r) => [r['trajectory_id'], r['label'], r['label_source']]), [
    ['runA/0/0/0/0', true, 'verifier'],
    ['runA/0/0/1/0', false, 'verifier'],
    ['runA/0/0/2/0', true, 'verifier'],
    ['runA/0/0/3/0', false, 'verifier'],
  ]);
  assert.deepEqual((records[1]?.['shadow'] as Record<string, unknown>)['p_success'], 0.2);
  assert.equal((records[0]?.['task'] as Record<string, unknown>)['family'], 'price');
  const all = await owrl('judge', 'export', '--nats', nats.url, '--include-excluded');
  assert.equal(all.code, 0, all.stderr);
  assert.equal(all.stdout.trim().split('\n').length, 6);

  // eval: the model's verdicts on the exported trajectories, against the labels.
  const model = path.join(dir, 'model');
  writeTinyDecoderJudge(model, { seed: 11 });
  const ev = await owrl('judge', 'eval', '--labels', out, '--model', model, '--device', 'cpu', '--json');
  assert.equal(ev.code, 0, ev.stderr);
  const figures = JSON.parse(ev.stdout.trim().split('\n').pop() ?? '{}') as Record<string, number | string>;
  const judge = await OnnxJudge.load({ modelDir: model, device: 'cpu', threads: 1 });
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  try {
    const trajs = records.map((r) => scored('runA', Number(String(r['trajectory_id']).split('/')[3]), { success: r['label'] === true }).trajectory);
    const scores = await judge.scoreBatch(trajs.map((t) => judgeInputFromTrajectory(t!)));
    scores.forEach((s, i) => {
      const label = records[i]?.['label'] === true;
      const yes = s.pYes >= judge.threshold;
      if (yes && label) tp++;
      else if (yes) fp++;
      else if (label) fn++;
      else tn++;
    });
    assert.equal(figures['model'], judge.version);
  } finally {
    await judge.close();
  }
  assert.deepEqual([figures['n'], figures['tp'], figures['fp'], figures['fn'], figures['tn']], [4, tp, fp, fn, tn]);
  assert.equal(figures['accuracy'], (tp + tn) / 4);
  assert.equal(figures['device'], 'cpu');

  const table = await owrl('judge', 'eval', '--labels', out, '--model', model, '--device', 'cpu');
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /accuracy [\d.]+%\s+precision [\d.]+%\s+recall [\d.]+%\s+F1 [\d.]+/);
  assert.match(table.stdout, new RegExp(`ref success\\s+${tp}\\s+${fn}`));
  assert.match(table.stdout, new RegExp(`ref failure\\s+${fp}\\s+${tn}`));
  assert.match(table.stdout, /^judge \S+ on cpu, threshold/m);

  // --device auto: the device used, and each device passed over with its reason.
  const gpus = await Promise.all((['cuda', 'webgpu'] as const).map((d) => probeDevice(d, probeGraphBytes())));
  if (gpus.every((g) => !g.ok)) {
    const auto = await owrl('judge', 'eval', '--labels', out, '--model', model, '--device', 'auto', '--json');
    assert.equal(auto.code, 0, auto.stderr);
    const a = JSON.parse(auto.stdout.trim().split('\n').pop() ?? '{}') as { device: string; requested: string; passed_over: Array<{ device: string; code: string; reason: string }>; padding_waste: number };
    assert.deepEqual([a.device, a.requested], ['cpu', 'auto']);
    assert.deepEqual(
      a.passed_over.map((p) => p.device),
      ['cuda', 'webgpu'],
    );
    assert.match(a.passed_over[0]?.reason ?? '', /CUDA execution provider/);
    assert.ok(a.padding_waste >= 0 && a.padding_waste < 1);
    const autoTable = await owrl('judge', 'eval', '--labels', out, '--model', model, '--device', 'auto');
    assert.match(autoTable.stdout, /^judge \S+ on cpu \(auto passed over cuda: cuda_\w+; webgpu: \w+\), threshold/m);
  }
});

void test('eval --api-url: a judge behind an OpenAI-compatible API measured on labelled records', async () => {
  // Stand-in chat completions server: yes (logprobs yes -0.2, no -1.8) when the final answer is
  // $0.99, $2.99 or $3.99, else no (no -0.1, yes -2.5). Labels: 0 and 2 succeeded, 1 and 3 failed,
  // so by hand: tp 2 (0, 2), tn 1 (1), fp 1 (3), fn 0.
  const auth: Array<string | undefined> = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (req.method === 'GET') return void res.end(JSON.stringify({ data: [{ id: 'judge-api' }] }));
      auth.push(req.headers.authorization);
      const yes = /Final answer: \$[023]\.99/.test(raw);
      const top = yes ? [{ token: 'Yes', logprob: -0.2 }, { token: 'No', logprob: -1.8 }] : [{ token: 'No', logprob: -0.1 }, { token: 'Yes', logprob: -2.5 }];
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ choices: [{ message: { content: top[0]?.token }, logprobs: { content: [{ ...top[0], top_logprobs: top }] } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const labels = path.join(dir, 'api-labels.jsonl');
    fs.writeFileSync(
      labels,
      [0, 1, 2, 3].map((i) => JSON.stringify({ label: i % 2 === 0, trajectory: toJson(TrajectorySchema, scored('runC', i, { success: i % 2 === 0 }).trajectory!) })).join('\n') + '\n',
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [BIN, 'judge', 'eval', '--labels', labels, '--api-url', url, '--api-model', 'judge-api', '--json'], { env: { ...process.env, OWRL_JUDGE_API_KEY: 'sk-cli' } }, (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
      );
    });
    assert.equal(r.code, 0, r.stderr);
    const f = JSON.parse(r.stdout.trim()) as Record<string, number | string>;
    assert.deepEqual([f['n'], f['tp'], f['fp'], f['fn'], f['tn'], f['accuracy'], f['recall']], [4, 2, 1, 0, 1, 0.75, 1]);
    assert.match(String(f['model']), /^api:judge-api#[0-9a-f]{8}$/);
    assert.equal(f['device'], `${url}/chat/completions`);
    assert.deepEqual(auth, ['Bearer sk-cli', 'Bearer sk-cli', 'Bearer sk-cli', 'Bearer sk-cli']);
    const both = await owrl('judge', 'eval', '--labels', labels, '--api-url', url, '--model', dir);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--model and --api-url are exclusive/);
    const noModel = await owrl('judge', 'eval', '--labels', labels, '--api-url', url);
    assert.equal(noModel.code, 2);
    assert.match(noModel.stderr, /--api-model NAME is required with --api-url/);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

void test('bad input: missing flags, a bad label line, a bad device', async () => {
  const r1 = await owrl('judge', 'eval', '--model', dir);
  assert.equal(r1.code, 2);
  assert.match(r1.stderr, /--labels FILE is required/);
  const bad = path.join(dir, 'bad.jsonl');
  fs.writeFileSync(bad, `${JSON.stringify({ label: true, trajectory: {} })}\n${JSON.stringify({ label: 'yes', trajectory: {} })}\n`);
  const r2 = await owrl('judge', 'eval', '--labels', bad, '--model', dir);
  assert.equal(r2.code, 2);
  assert.match(r2.stderr, /bad\.jsonl:2: label: must be true or false, got "yes"/);
  const r3 = await owrl('judge', 'eval', '--labels', bad, '--model', dir, '--device', 'tpu');
  assert.equal(r3.code, 2);
  assert.match(r3.stderr, /--device "tpu" must be auto, cuda, webgpu, cpu/);
  // A GPU device that cannot be used here: a coded error naming what is missing, exit 1.
  if (!(await probeDevice('webgpu', probeGraphBytes())).ok) {
    const model = path.join(dir, 'model-webgpu');
    writeTinyDecoderJudge(model, { seed: 2 });
    const good = path.join(dir, 'good.jsonl');
    fs.writeFileSync(good, `${JSON.stringify({ label: true, trajectory: {} })}\n`);
    const r5 = await owrl('judge', 'eval', '--labels', good, '--model', model, '--device', 'webgpu');
    assert.equal(r5.code, 1, r5.stderr);
    assert.match(r5.stderr, /^owrl: JUDGE_MODEL_DEVICE_UNAVAILABLE: device "webgpu" \((vulkan_loader_missing|webgpu_no_adapter)\): /m);
  }
  const r4 = await owrl('judge', 'frobnicate');
  assert.equal(r4.code, 2);
});
