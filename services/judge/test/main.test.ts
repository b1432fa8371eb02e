// The judge process as deployed: env configuration, JSON logs, /healthz and /metrics, judging a
// trajectory end to end, and a clean exit on SIGTERM.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { connectBus, CONSUMER_JUDGE, DlqHeader, DlqReason, ensureTopology, trajSubject, STREAM_SCORED, STREAM_TRAJ } from '@owrl/bus';
import { make, decode, RolloutRequestSchema, ScoredTrajectorySchema, TerminationClass, TerminationSchema, TrajectorySchema } from '@owrl/proto';
import { writeTinyDecoderJudge } from '@owrl/judge-model/testing';
import { awaitDeadLetter, exhaustDeliveries, freePort, startNatsServer, type NatsServer } from '@owrl/testkit';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
let nats: NatsServer;

before(async () => {
  nats = await startNatsServer();
});
after(async () => {
  await nats.dispose();
});

void test('main: serves health and metrics, judges, logs JSON with service=judge, exits 0 on SIGTERM', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, NATS_URL: nats.url, OWRL_METRICS_PORT: String(port), OWRL_JUDGE_VERSION: 'verifier-main', OWRL_JUDGE_CONCURRENCY: '2' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<{ msg: string; resolve: (l: Record<string, unknown>) => void }> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const rec = JSON.parse(line) as Record<string, unknown>;
    lines.push(rec);
    for (const w of waiters.filter((x) => x.msg === rec['msg'])) w.resolve(rec);
  });
  const logged = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const hit = lines.find((l) => l['msg'] === msg);
      if (hit) resolve(hit);
      else waiters.push({ msg, resolve });
    });
  try {
    const consuming = await Promise.race([logged('judge consuming'), exited.then(() => assert.fail(`judge exited early: ${stderr}`))]);
    assert.equal(consuming['service'], 'judge');
    assert.equal(consuming['judgeVersion'], 'verifier-main');

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(health.status, 200);

    const bus = await connectBus({ servers: nats.url, name: 'main-test' });
    try {
      await ensureTopology(bus);
      const id = 'runM/0/0/0/0';
      const t = make(TrajectorySchema, {
        trajectoryId: id,
        request: make(RolloutRequestSchema, { runId: 'runM', trajectoryId: id }),
        termination: make(TerminationSchema, { class: TerminationClass.SANDBOX_ERROR, reason: 'browser_crash' }),
      });
      await bus.publish(trajSubject('runM'), TrajectorySchema, t, { msgId: id });
      const judged = await logged('trajectory judged');
      assert.equal(judged['trajectory'], id);
      assert.equal(judged['excluded'], 'sandbox_error:browser_crash');
      const si = await bus.streamInfo(STREAM_SCORED);
      const m = await bus.jsm.streams.getMessage(STREAM_SCORED, { seq: si.state.last_seq });
      assert.ok(m);
      const s = decode(ScoredTrajectorySchema, m.data);
      assert.deepEqual([s.trajectoryId, s.trainable, s.excludedReason], [id, false, 'sandbox_error:browser_crash']);
    } finally {
      await bus.close();
    }

    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metrics, /owrl_judge_trajectories_total\{outcome="excluded",source="none",service="judge"\} 1\b/);
    assert.match(metrics, /owrl_judge_excluded_total\{reason="sandbox_error:browser_crash",service="judge"\} 1\b/);

    child.kill('SIGTERM');
    const [code, signal] = await exited;
    assert.deepEqual([code, signal], [0, null], stderr);
    assert.ok(lines.some((l) => l['msg'] === 'stopping' && l['reason'] === 'SIGTERM'));
    const msgs = lines.map((l) => l['msg']);
    assert.equal(msgs[msgs.length - 1], 'stopped', 'the last line is flushed before exit');
    assert.ok(msgs.indexOf('judge stopped') > msgs.indexOf('stopping'), 'the service stops after the shutdown begins');
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

void test('main with OWRL_JUDGE_MODEL: device auto passes over CUDA and WebGPU with a warning each, names the device in its log and metrics, closes the model on SIGTERM', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-judge-main-'));
  writeTinyDecoderJudge(dir, { seed: 3 });
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, NATS_URL: nats.url, OWRL_METRICS_PORT: String(port), OWRL_JUDGE_MODEL: dir, OWRL_JUDGE_DEVICE: 'auto', OWRL_JUDGE_THREADS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const lines: Array<Record<string, unknown>> = [];
  let onLine = (): void => {};
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(JSON.parse(line) as Record<string, unknown>);
    onLine();
  });
  try {
    await Promise.race([
      new Promise<void>((resolve) => (onLine = () => lines.some((l) => l['msg'] === 'judge consuming') && resolve())),
      exited.then(() => assert.fail(`judge exited early: ${stderr}`)),
    ]);
    const passed = lines.filter((l) => /^judge model: passed over/.test(String(l['msg'])));
    assert.deepEqual(
      passed.map((l) => [l['device'], l['level']]),
      [
        ['cuda', 40],
        ['webgpu', 40],
      ],
      'a pino warning for each device passed over',
    );
    const running = lines.find((l) => /^judge model running on cpu \(auto passed over cuda: \w+; webgpu: \w+\)$/.test(String(l['msg'])));
    assert.ok(running, `an info line names the device in use and why: ${JSON.stringify(lines.map((l) => l['msg']))}`);
    assert.equal(running['device'], 'cpu');
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(text, /owrl_judge_model_device_info\{device="cpu",requested="auto",service="judge"\} 1/);
    assert.match(text, /owrl_judge_model_device_passed_over_info\{device="cuda",code="cuda_provider_missing",service="judge"\} 1/);
    assert.match(text, /owrl_judge_model_device_passed_over_info\{device="webgpu",code="\w+",service="judge"\} 1/);
    child.kill('SIGTERM');
    const [code, signal] = await exited;
    assert.deepEqual([code, signal], [0, null], stderr.slice(-3000));
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('main moves a trajectory that exhausted its deliveries to OWRL_DLQ with the reason', async () => {
  // A dedicated server: the judge consumer's ack_wait is set short here, and every service that
  // declares the topology must agree on it.
  const own = await startNatsServer();
  const bus = await connectBus({ servers: own.url, name: 'main-dlq-test' });
  let child: ReturnType<typeof spawn> | undefined;
  try {
    await ensureTopology(bus, { judgeAckWaitMs: 2000 });
    const id = 'runD/0/0/0/0';
    const t = make(TrajectorySchema, { trajectoryId: id, request: make(RolloutRequestSchema, { runId: 'runD', trajectoryId: id }) });
    const pub = await bus.publish(trajSubject('runD'), TrajectorySchema, t, { msgId: id });
    // A judge that never acks it (one that crashes on it): the server gives up on it.
    await exhaustDeliveries(bus.js, bus.jsm, STREAM_TRAJ, CONSUMER_JUDGE);
    child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, NATS_URL: own.url, OWRL_JUDGE_ACK_WAIT_S: '2', OWRL_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
    const dl = await awaitDeadLetter(bus.jsm, {
      timeoutMs: 90_000,
      abort: () => (child !== undefined && (child.exitCode !== null || child.signalCode !== null) ? new Error(`the judge exited before dead-lettering: ${stderr}`) : null),
    }).catch((e: unknown) => assert.fail(`${String(e)}\n${stderr}`));
    assert.deepEqual([dl.header.get(DlqHeader.Reason), dl.header.get(DlqHeader.Seq), dl.header.get(DlqHeader.MsgId)], [DlqReason.MaxDeliveries, String(pub.seq), id]);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, stderr.slice(-2000));
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await bus.close();
    await own.dispose();
  }
});
