// The whole-system harness of @owrl/testkit on the real services: a one-round run across separate
// processes finishes, both actors register in KV owrl_actors, every service with metrics answers
// /healthz, and disposal leaves no process of any service group behind (actors' Chromium included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunPhase } from '@owrl/proto';
import { isProcessAlive } from '@owrl/core';
import { startSystem } from '@owrl/testkit';

void test('startSystem runs a short training across processes and disposes of every process group', { timeout: 5 * 60_000 }, async () => {
  const sys = await startSystem({
    actors: 2,
    slots: 1,
    learnerEnv: { OWRL_ROUNDS: '1', OWRL_GROUPS_PER_ROUND: '1', OWRL_GROUP_SIZE: '2', OWRL_CURRICULUM: '1:3', OWRL_DIFFICULTIES: '1', OWRL_TASK_COUNT: '12' },
  });
  const pids: number[] = [];
  try {
    await sys.waitForLearner();
    const live = await sys.waitForActors(['actor-1', 'actor-2']);
    assert.deepEqual(
      live.map((a) => [a.actorId, a.slots]),
      [
        ['actor-1', 1],
        ['actor-2', 1],
      ],
    );
    const state = await sys.waitForPhase(RunPhase.FINISHED);
    assert.equal(state.runId, sys.runId);
    assert.equal(state.rounds.length, 1);
    const c = state.counters!;
    // One group of 2: at least 2 rollouts dispatched, each ingested once, none in flight.
    assert.ok(c.dispatched >= 2n, `dispatched ${c.dispatched}`);
    assert.equal(c.scoredIngested, c.dispatched);
    assert.equal(c.inFlight, 0n);
    for (const name of ['learner', 'judge', 'actor-1', 'actor-2']) {
      const r = await fetch(`${sys.metricsUrl(name)}/healthz`);
      assert.equal(r.status, 200, `${name} /healthz`);
    }
    for (const name of sys.names()) {
      const p = sys.process(name);
      assert.ok(p.pid !== undefined && p.running, `${name} runs`);
      pids.push(p.pid, ...p.descendantPids());
    }
    // Chromium (in a process group of its own) runs under each actor.
    assert.ok(sys.process('actor-1').descendantPids().length > 0, 'actor-1 has browser processes');
    assert.equal(sys.failure(), null);
  } finally {
    await sys.dispose();
  }
  assert.deepEqual(
    pids.filter((p) => isProcessAlive(p)),
    [],
    'no service process or browser outlives dispose',
  );
});
