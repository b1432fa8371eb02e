// test-run: alone (whole training runs across processes: Chromium actors, learner, judge, sites)
// `owrl train examples/demo.yaml --rounds 2` as the built CLI, joining a nats-server the test
// owns (--nats) so the streams can be read after the run: the run finishes with phase FINISHED and
// its counts settled (nothing queued, every dispatch stored once, every scored trajectory counted
// as trainable, excluded or late, nothing pending on the learner's consumer). Then the run is
// taken up again from its folder with one more round (--resume), a change it cannot absorb is
// refused naming the key, and a fresh start under the same run id is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectBus, learnerConsumerName, STREAM_SCORED, STREAM_TASKS } from '@owrl/bus';
import { RunPhase } from '@owrl/proto';
import { startNatsServer, type NatsServer } from '@owrl/testkit';
import { EXAMPLES, owrl } from './train-helpers.js';

let nats: NatsServer;
let dir: string;

before(async () => {
  nats = await startNatsServer({ maxPayload: 8 * 1024 * 1024 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-train-run-'));
});
after(async () => {
  await nats.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface StateJson {
  phase: number;
  roundsTotal: number;
  policyVersion: number;
  rounds: Array<{ round: number }>;
  counters: { dispatched: number; trainable: number; excluded: number; lateDropped: number; duplicatesDropped: number; inFlight: number };
}

/** The accounting of the run on the bus against the learner's final counters. */
async function assertSettled(runId: string, s: StateJson): Promise<void> {
  const bus = await connectBus({ servers: nats.url, name: 'train-run-test' });
  try {
    const jsm = bus.jsm;
    const tasks = await jsm.streams.info(STREAM_TASKS);
    const scored = await jsm.streams.info(STREAM_SCORED);
    const consumer = await jsm.consumers.info(STREAM_SCORED, learnerConsumerName(runId));
    assert.equal(tasks.state.messages, 0, 'nothing left queued');
    assert.equal(consumer.num_pending, 0, 'nothing pending on the learner consumer');
    assert.equal(consumer.num_ack_pending, 0, 'nothing unacked');
    assert.equal(tasks.state.last_seq, s.counters.dispatched, 'every dispatch stored once');
    assert.equal(scored.state.messages, s.counters.trainable + s.counters.excluded + s.counters.lateDropped, 'every scored trajectory counted');
    assert.equal(s.counters.inFlight, 0);
    assert.equal(s.counters.duplicatesDropped, 0);
  } finally {
    await bus.close();
  }
}

void test('owrl train examples/demo.yaml --rounds 2 finishes with the counts settled; --resume takes it up; a change it cannot absorb is refused', async () => {
  const out = path.join(dir, 'runs');
  const json = path.join(dir, 'run.json');
  const train = (rounds: number): string[] => ['train', path.join(EXAMPLES, 'demo.yaml'), '--rounds', String(rounds), '--nats', nats.url, '--out', out, '--run-id', 'demo-t', '--warmup-tasks', '1', '--warmup-epochs', '2', '--tasks', '12'];
  const args = train(2);
  const r = await owrl([...args, '--json', json], { cwd: dir, timeoutMs: 600_000 });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /preflight passed/);
  assert.match(r.stdout, /warm-up done in/);
  assert.match(r.stdout, /^round {3}2\/2 /m);
  const s = (JSON.parse(fs.readFileSync(json, 'utf8')) as { state: StateJson }).state;
  assert.equal(s.phase, RunPhase.FINISHED);
  assert.equal(s.roundsTotal, 2);
  assert.equal(s.rounds.length, 2);
  assert.ok(s.counters.dispatched >= 2 * 4 * 5, `dispatched ${s.counters.dispatched}: at least 4 groups of 5 a round`);
  await assertSettled('demo-t', s);
  const runDir = path.join(out, 'demo-t');
  for (const f of ['run.yaml', 'report.md', 'warmup.onnx', 'control.token', 'checkpoint']) assert.ok(fs.existsSync(path.join(runDir, f)), `${f} in the run folder`);
  const started = fs.readFileSync(path.join(runDir, 'run.yaml'), 'utf8');
  assert.match(started, /^ {2}rounds: 2$/m, 'the file as started holds the command line\'s values');
  assert.match(started, /^ {2}run_id: demo-t$/m);

  // the same run id again without --resume: refused, nothing started
  const again = await owrl(args, { cwd: dir });
  assert.equal(again.code, 2);
  assert.match(again.stderr, /run\.yaml exists: this run has started before; take it up with --resume/);
  // a change the run cannot absorb: refused naming the key (and the flag that set it)
  const refused = await owrl([...args, '--resume', '--group-size', '4'], { cwd: dir });
  assert.equal(refused.code, 2);
  assert.equal(refused.stderr, '--group-size: recipe.group_size: changed from 5 to 4, which the run cannot take on resume (checkpointed groups and their advantages have the old size); keep it, or start a new run (another state.run_id)\n');

  // one more round, more actors: taken
  const json2 = path.join(dir, 'run2.json');
  const resumed = await owrl([...train(3), '--resume', '--actors', '1', '--json', json2], { cwd: dir, timeoutMs: 600_000 });
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  assert.match(resumed.stdout, /resuming demo-t from .* with changes: recipe\.rounds 2 -> 3, fleet\.actors 2 -> 1/);
  assert.doesNotMatch(resumed.stdout, /warm-up done/, 'no second warm-up');
  const s2 = (JSON.parse(fs.readFileSync(json2, 'utf8')) as { state: StateJson }).state;
  assert.equal(s2.phase, RunPhase.FINISHED);
  assert.equal(s2.roundsTotal, 3);
  assert.deepEqual(
    s2.rounds.map((x) => Number(x.round)),
    [0, 1, 2],
    'rounds 1 and 2 come from the checkpoint, round 3 ran now',
  );
  assert.ok(s2.policyVersion >= s.policyVersion);
  await assertSettled('demo-t', s2);
});
