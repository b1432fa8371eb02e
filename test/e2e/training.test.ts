// End to end: a short training run across separate processes (sites, learner, judge, 2 actors)
// over a real nats-server with real Chromium. Asserts that the policy version advanced and that
// every dispatched rollout is accounted for at every stage: dispatched = judged = ingested, and
// ingested = trainable + excluded (each with its cause).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { startNatsServer } from '@owrl/testkit';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const OWRL = path.join(ROOT, 'services', 'cli', 'bin', 'owrl.js');

interface DemoJson {
  report: { policy_version: number; rounds: number; curve: number[] };
  state: {
    runId: string;
    phase: number;
    counters: Record<string, number>;
    terminations: Record<string, number>;
    excluded: Record<string, number>;
    rounds: unknown[];
  };
}

void test('a short training run across processes advances the policy and loses no rollout', { timeout: 15 * 60_000 }, async () => {
  await using nats = await startNatsServer({ maxPayload: 8 * 1024 * 1024 });
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-e2e-'));
  const jsonFile = path.join(out, 'result.json');
  const runId = `e2e-${process.pid}`;
  const child = spawn(
    process.execPath,
    [OWRL, 'demo', '--no-warmup', '--rounds', '4', '--groups', '4', '--group-size', '5', '--actors', '2', '--slots', '3', '--curriculum', '4:4', '--difficulties', '1,2', '--run-id', runId, '--out', out, '--json', jsonFile, '--timeout', '600'],
    { env: { ...process.env, NATS_URL: nats.url, OWRL_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));

  // While it runs, `owrl status` reads the run state over gRPC.
  const addrFile = path.join(out, runId, 'learner.addr');
  let statusText = '';
  for (let i = 0; i < 600 && !statusText; i++) {
    await new Promise((r) => setTimeout(r, 500));
    if (child.exitCode !== null) break;
    if (!fs.existsSync(addrFile)) continue;
    const addr = fs.readFileSync(addrFile, 'utf8').trim();
    try {
      const { stdout: s } = await promisify(execFile)(process.execPath, [OWRL, 'status', '--learner', addr], { timeout: 10_000 });
      if (s.includes(`run ${runId}`)) statusText = s;
    } catch {
      /* learner not serving yet */
    }
  }
  const code = await new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (c) => resolve(c));
  });
  assert.equal(code, 0, `demo failed:\n${stdout}\n${stderr}`);
  assert.match(statusText, /phase (RUNNING|STARTING|FINISHED)/);
  assert.match(stdout, /round +1\/4 +policy v0/);
  assert.match(stdout, /summary: success/);

  const result = JSON.parse(fs.readFileSync(jsonFile, 'utf8')) as DemoJson;
  const c = result.state.counters;
  assert.equal(result.report.rounds, 4);
  assert.ok(result.report.policy_version >= 1, `policy version did not advance: ${JSON.stringify(result.report)}`);
  // Learner accounting: every dispatched rollout was ingested once, as trainable or excluded with a cause.
  assert.ok(c['dispatched']! >= 4 * 4 * 5, JSON.stringify(c));
  assert.equal(c['inFlight'] ?? 0, 0);
  assert.equal(c['scoredIngested'], c['dispatched']);
  assert.equal((c['trainable'] ?? 0) + (c['excluded'] ?? 0), c['scoredIngested']);
  const excludedByCause = Object.values(result.state.excluded).reduce((a, b) => a + b, 0);
  assert.equal(excludedByCause, c['excluded'] ?? 0);
  const terminations = Object.values(result.state.terminations).reduce((a, b) => a + b, 0);
  assert.equal(terminations, c['scoredIngested']);

  // Bus accounting (the server is this test's own, so whole streams are this run): one trajectory and one scored trajectory per dispatched rollout, no task left, nothing dead-lettered.
  const nc = await connect({ servers: nats.url });
  try {
    const jsm = await jetstreamManager(nc);
    const traj = await jsm.streams.info('OWRL_TRAJ');
    const scored = await jsm.streams.info('OWRL_SCORED');
    const tasks = await jsm.streams.info('OWRL_TASKS');
    const dlq = await jsm.streams.info('OWRL_DLQ');
    assert.equal(traj.state.messages, c['dispatched'], 'trajectories published = dispatched');
    assert.equal(scored.state.messages, c['dispatched'], 'scored published = dispatched');
    assert.equal(tasks.state.messages, 0, 'no rollout request left in the work queue');
    assert.equal(dlq.state.messages, 0, 'nothing dead-lettered');
  } finally {
    await nc.close();
  }
  assert.ok(fs.existsSync(path.join(out, runId, 'report.md')));
  fs.rmSync(out, { recursive: true, force: true });
});
