// How the learner ends, across processes (real nats-server, sites, judge, two actors with
// Chromium, the learner as its own process):
// - SIGTERM in the middle of a round, with no grace left to finish it: the learner exits 0 without
//   training the truncated round; the next start (same data directory) runs that round whole, and
//   every dispatched rollout is scored once and taken in, excluded or dropped as late once.
// - A fatal error in the middle of a run (the learner's checkpoint folder is gone: replaced by a
//   file, as when its volume is lost): a client watching the run sees phase FAILED with the reason,
//   one watching health sees NOT_SERVING, and the process exits non-zero, having trained nothing
//   it could not checkpoint; with the folder back, a restart finishes the run with nothing lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { health, RunPhase, type RunState } from '@owrl/proto';
import { expectSettledCounts, SHORT_RUN_ENV, startSystem, type OwrlSystem } from '@owrl/testkit';

const RUN = { ...SHORT_RUN_ENV, OWRL_GROUPS_PER_ROUND: '2', OWRL_MAX_GROUPS_PER_ROUND: '2', OWRL_GROUP_SIZE: '2' };

/** Waits for a round in progress: rollouts dispatched, some still out, none of its results trained. */
function midRound(sys: OwrlSystem): Promise<RunState> {
  return sys.waitForState('a round in flight', (s) => (s.counters?.dispatched ?? 0n) > 0n && (s.counters?.inFlight ?? 0n) > 0n && s.rounds.length === 0, { timeoutMs: 3 * 60_000, intervalMs: 100 });
}

void test('SIGTERM in the middle of a round: exit 0, the truncated round is not trained, the next start runs it whole', { timeout: 8 * 60_000 }, async () => {
  const sys = await startSystem({ actors: 2, slots: 1, autostart: { learner: false }, learnerEnv: { ...RUN, OWRL_ROUNDS: '1', OWRL_STOP_GRACE_S: '0' } });
  try {
    const learner = sys.process('learner');
    learner.start();
    const mid = await midRound(sys);
    const exit = await learner.stop(60_000);
    assert.deepEqual(exit, { code: 0, signal: null }, `a clean exit on SIGTERM; log tail:\n${learner.tail()}`);
    const first = learner.jsonLines();
    assert.ok(
      first.some((l) => String(l.msg).startsWith('stopping: the round is left unfinished')),
      `the learner says it left the round for the next start; log tail:\n${learner.tail()}`,
    );
    assert.ok(!first.some((l) => l.msg === 'policy published' && Number(l.policyVersion) > 0), 'no update was published from the truncated round');
    const linesBefore = first.length;

    learner.start();
    await sys.waitForLearner();
    const resumed = await sys.runState();
    assert.equal(resumed.incarnation, 2);
    assert.equal(resumed.counters?.updates, 0n, 'the first start trained nothing');
    assert.equal(resumed.policyVersion, 0n);
    assert.deepEqual(resumed.rounds, []);
    assert.ok((resumed.counters?.dispatched ?? 0n) >= (mid.counters?.dispatched ?? 0n), 'the saved round came back with what it had dispatched');

    const done = await sys.waitForPhase(RunPhase.FINISHED, { timeoutMs: 4 * 60_000 });
    assert.deepEqual(
      done.rounds.map((r) => [Number(r.round), r.episodes]),
      [[0, 4]],
      'round 0 ran whole: 2 groups × 2 rollouts',
    );
    const s = (await expectSettledCounts(sys)).state;
    const published = learner
      .jsonLines()
      .slice(linesBefore)
      .filter((l) => l.msg === 'policy published')
      .map((l) => Number(l.policyVersion));
    assert.deepEqual(published.filter((v) => v > 0), s.counters!.updates > 0n ? [1] : [], 'the whole round trained once at most');
    assert.equal(sys.failure(), null);
  } finally {
    await sys.dispose();
  }
});

void test('a fatal error in the middle of a run: FAILED with its reason to a watcher, NOT_SERVING, exit 1; a restart finishes with nothing lost', { timeout: 8 * 60_000 }, async () => {
  const sys = await startSystem({ actors: 2, slots: 1, autostart: { learner: false }, learnerEnv: { ...RUN, OWRL_ROUNDS: '2' } });
  const client = sys.learner();
  try {
    const learner = sys.process('learner');
    learner.start();
    await midRound(sys);
    const statuses: health.HealthCheckResponse_ServingStatus[] = [];
    let healthEnded!: () => void;
    const healthEnd = new Promise<void>((r) => (healthEnded = r));
    const healthWatch = client.watchHealth(
      (st) => statuses.push(st),
      () => healthEnded(),
    );
    const watch = client.watchRun();
    const snapshot = await watch.next();
    assert.equal(snapshot?.state?.phase, RunPhase.RUNNING);

    // The checkpoint folder is lost (its volume went away): a file now stands where it was.
    const dir = path.join(sys.learnerDataDir, sys.runId, 'checkpoint');
    fs.renameSync(dir, `${dir}.away`);
    fs.writeFileSync(dir, 'not a folder\n');
    learner.expectExit();
    const exit = await learner.exited();
    assert.equal(exit.code, 1, `the learner exits non-zero (exit ${JSON.stringify(exit)}); log tail:\n${learner.tail()}`);

    let last: RunState | undefined;
    for (let ev = await watch.next(); ev !== null; ev = await watch.next().catch(() => null)) last = ev.state;
    assert.equal(last?.phase, RunPhase.FAILED, `the watcher's last state is FAILED (got ${last?.phase})`);
    assert.equal(last?.failureCode, 'CHECKPOINT_FAILED');
    assert.ok(last?.message.includes(dir), `the reason names the folder: ${last?.message}`);
    assert.match(last?.message ?? '', /ENOTDIR/);
    // The health stream ends when the learner's server closes, after every status it sent.
    await healthEnd;
    assert.ok(statuses.includes(health.HealthCheckResponse_ServingStatus.NOT_SERVING), `health went NOT_SERVING: ${statuses.join(',')}`);
    assert.equal(statuses[0], health.HealthCheckResponse_ServingStatus.SERVING);
    healthWatch.close();
    const lines = learner.jsonLines();
    assert.ok(!lines.some((l) => l.msg === 'policy published' && Number(l.policyVersion) > 0), 'nothing was published that the checkpoint does not hold');

    fs.rmSync(dir);
    fs.renameSync(`${dir}.away`, dir);
    learner.start();
    const done = await sys.waitForPhase(RunPhase.FINISHED, { timeoutMs: 5 * 60_000 });
    assert.equal(done.incarnation, 2);
    assert.deepEqual(
      done.rounds.map((r) => Number(r.round)),
      [0, 1],
    );
    await expectSettledCounts(sys);
    assert.equal(sys.failure(), null);
  } finally {
    await sys.dispose();
  }
});
