// test-run: alone (a whole training run across processes: its CPU would slow a neighbour, and the neighbour its rounds)
// End to end: a short training run across separate processes (sites, learner, judge, 2 actors)
// over a real nats-server with real Chromium, from the uniform policy (no warm-up) on the shop's
// one-step tasks. Asserts that success rises (round 1 against the last rounds, a one-sided
// two-proportion z-test) and that every dispatched rollout is accounted for at every stage:
// dispatched = judged = ingested, and ingested = trainable + excluded (each with its cause).
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
import { STREAM_DLQ, STREAM_SCORED, STREAM_TASKS, STREAM_TRAJ } from '@owrl/bus';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const OWRL = path.join(ROOT, 'services', 'cli', 'bin', 'owrl.js');

const ROUNDS = 5;
const GROUPS = 4;
const GROUP_SIZE = 6;
/** Rounds at the end whose pooled success is compared with round 1's. */
const LAST = 2;
/**
 * One-sided significance of "success rose": the z of round 1 against the last rounds must exceed
 * 2.326, the 99th percentile of the standard normal (alpha = 0.01). A learner that does not update
 * plays the same policy every round, so its z exceeds that only by chance (about 1 % of runs): it
 * fails this test. The rise measured here is far above it (see the figures in the assertion).
 */
const Z_CRIT = 2.326;

interface RoundJson {
  round: number;
  policyVersion: number;
  episodes: number;
  successes: number;
}

interface DemoJson {
  report: { policy_version: number; rounds: number; curve: number[] };
  state: {
    runId: string;
    phase: number;
    counters: Record<string, number>;
    terminations: Record<string, number>;
    excluded: Record<string, number>;
    rounds: RoundJson[];
  };
}

/** z of a one-sided two-proportion test that p2 > p1 (pooled standard error). */
function twoProportionZ(s1: number, n1: number, s2: number, n2: number): number {
  const p = (s1 + s2) / (n1 + n2);
  const se = Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2));
  return se === 0 ? 0 : (s2 / n2 - s1 / n1) / se;
}

void test('a short training run across processes raises success and loses no rollout', { timeout: 20 * 60_000 }, async () => {
  await using nats = await startNatsServer({ maxPayload: 8 * 1024 * 1024 });
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-e2e-'));
  const jsonFile = path.join(out, 'result.json');
  const runId = `e2e-${process.pid}`;
  const child = spawn(
    process.execPath,
    [
      OWRL, 'demo', '--no-warmup', '--suites', 'shop', '--difficulties', '1', '--tasks', '24',
      '--rounds', String(ROUNDS), '--groups', String(GROUPS), '--group-size', String(GROUP_SIZE), '--curriculum', `${ROUNDS}:3`,
      '--actors', '2', '--slots', '3', '--run-id', runId, '--out', out, '--json', jsonFile, '--timeout', '1200',
    ],
    { env: { ...process.env, NATS_URL: nats.url, OWRL_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  // The demo prints a line per finished round, read from the learner over gRPC: once the first is
  // out, the learner is serving and the run has rounds left.
  let onRound = (): void => {};
  const firstRound = new Promise<void>((resolve) => (onRound = resolve));
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (/^round +1\//m.test(stdout)) onRound();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));

  // While it runs (rounds 2..5 still to go), `owrl status` reads the run state over gRPC; a
  // failure here stops the demo instead of leaving it running.
  let statusText = '';
  try {
    if ((await Promise.race([firstRound.then(() => 'round'), exited.then(() => 'exit')])) === 'round') {
      const addr = fs.readFileSync(path.join(out, runId, 'learner.addr'), 'utf8').trim();
      // Tried again (at most 3 times, while the run goes on) when a call fails on a loaded machine.
      for (let attempt = 1; !statusText; attempt++) {
        try {
          statusText = (await promisify(execFile)(process.execPath, [OWRL, 'status', '--learner', addr], { timeout: 120_000 })).stdout;
        } catch (e) {
          if (attempt >= 3 || child.exitCode !== null) throw e;
        }
      }
    }
  } catch (e) {
    child.kill('SIGTERM');
    throw e;
  }
  const code = await exited;
  assert.equal(code, 0, `demo failed:\n${stdout}\n${stderr}`);
  assert.ok(statusText.includes(`run ${runId}`), statusText);
  assert.match(statusText, /phase (RUNNING|FINISHED)/);
  assert.match(stdout, new RegExp(`round +1/${ROUNDS} +policy v0`));
  assert.match(stdout, /summary: success/);

  const result = JSON.parse(fs.readFileSync(jsonFile, 'utf8')) as DemoJson;
  const c = result.state.counters;
  assert.equal(result.report.rounds, ROUNDS);
  assert.ok(result.report.policy_version >= ROUNDS - 1, `policy version did not advance every round: ${JSON.stringify(result.report)}`);

  // Success rises: round 1 (the uniform policy) against the pooled last rounds.
  const rounds = [...result.state.rounds].sort((x, y) => x.round - y.round);
  assert.equal(rounds.length, ROUNDS);
  const first = rounds[0]!;
  const last = rounds.slice(-LAST);
  const s2 = last.reduce((t, r) => t + r.successes, 0);
  const n2 = last.reduce((t, r) => t + r.episodes, 0);
  assert.ok(first.episodes >= GROUPS * GROUP_SIZE && n2 >= LAST * GROUPS * GROUP_SIZE, JSON.stringify(rounds));
  assert.ok(last.every((r) => r.policyVersion > first.policyVersion), 'the last rounds ran updated policies');
  const z = twoProportionZ(first.successes, first.episodes, s2, n2);
  const figures = `round 1 ${first.successes}/${first.episodes}, last ${LAST} rounds ${s2}/${n2}, z ${z.toFixed(2)} (curve ${JSON.stringify(result.report.curve)})`;
  console.error(`e2e training: ${figures}`);
  assert.ok(z > Z_CRIT, `success did not rise significantly (one-sided, alpha 0.01, z > ${Z_CRIT}): ${figures}`);

  // Learner accounting: every dispatched rollout was ingested once, as trainable or excluded with a cause.
  assert.ok(c['dispatched']! >= ROUNDS * GROUPS * GROUP_SIZE, JSON.stringify(c));
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
    const traj = await jsm.streams.info(STREAM_TRAJ);
    const scored = await jsm.streams.info(STREAM_SCORED);
    const tasks = await jsm.streams.info(STREAM_TASKS);
    const dlq = await jsm.streams.info(STREAM_DLQ);
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
