// The actor's life cycle across processes (real nats-server, sites, learner, judge, and actors
// with Chromium as separate processes):
// - one pod per rollout, as the Kubernetes ScaledJob runs it (deploy/k8s/components/
//   rollout-isolation): an actor with OWRL_MAX_EPISODES=1 is started whenever a rollout waits
//   in the queue; each takes one request, publishes it, leaves the registry and exits 0, and the
//   run finishes with every rollout served by exactly one such actor;
// - an actor started while the broker is back but its JetStream is not (a broker restarting)
//   waits for it instead of exiting 1, then starts and registers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jetstreamManager } from '@nats-io/jetstream';
import { RunPhase } from '@owrl/proto';
import { freePort, startNatsServer, startSystem, waitUntil, type OwrlSystem } from '@owrl/testkit';
import { STREAM_TASKS } from '@owrl/bus';

/** Rollouts queued for the actors and not yet taken (what KEDA's nats-jetstream scaler reads). */
async function queued(sys: OwrlSystem): Promise<number> {
  const jsm = await jetstreamManager(await sys.natsConnection());
  return (await jsm.consumers.info(STREAM_TASKS, 'actors')).num_pending;
}

/** The actor's own line for an episode it served (browser-env logs its part of the episode under the same message). */
const actorEpisode = (l: Record<string, unknown>): boolean => l['msg'] === 'episode finished' && 'policyVersion' in l;

void test('one actor per rollout with OWRL_MAX_EPISODES=1: each serves one request, leaves the registry and exits 0; the run finishes with nothing lost', { timeout: 6 * 60_000 }, async () => {
  const sys = await startSystem({
    actors: 0,
    slots: 1,
    // One group of 2 rollouts, and no second group: two rollouts (plus any re-dispatch) in all.
    learnerEnv: { OWRL_ROUNDS: '1', OWRL_GROUPS_PER_ROUND: '1', OWRL_MAX_GROUPS_PER_ROUND: '1', OWRL_GROUP_SIZE: '2', OWRL_CURRICULUM: '1:3', OWRL_DIFFICULTIES: '1', OWRL_TASK_COUNT: '12' },
  });
  const pods: Array<{ name: string; code: number | null; signal: string | null; lines: Array<Record<string, unknown>>; registeredAfter: boolean }> = [];
  try {
    await sys.waitForLearner();
    for (;;) {
      // Like the ScaledJob: a new pod only while a rollout waits in the queue.
      const next = await waitUntil(
        'a queued rollout or the run finished',
        async () => {
          if ((await sys.runState()).phase === RunPhase.FINISHED) return 'finished';
          return (await queued(sys)) > 0 ? 'queued' : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 250, abort: () => sys.failure() },
      );
      if (next === 'finished') break;
      assert.ok(pods.length < 12, `more pods than rollouts could need: ${pods.length}`);
      const name = await sys.addActor({ env: { OWRL_MAX_EPISODES: '1' } });
      const p = sys.process(name);
      p.expectExit();
      const exit = await waitUntil(`${name} to exit`, () => p.exit ?? undefined, { timeoutMs: 120_000, intervalMs: 100 });
      const registeredAfter = (await sys.actors()).some((a) => a.actorId === name);
      pods.push({ name, code: exit.code, signal: exit.signal, lines: p.jsonLines(), registeredAfter });
    }
    const final = await sys.waitForPhase(RunPhase.FINISHED);
    const c = final.counters!;
    const figures = {
      pods: pods.length,
      dispatched: Number(c.dispatched),
      ingested: Number(c.scoredIngested),
      duplicates: Number(c.duplicatesDropped),
      episodes_per_pod: pods.map((p) => p.lines.filter(actorEpisode).length),
    };
    console.log(JSON.stringify({ rollout_isolation: figures }));
    for (const p of pods) {
      assert.deepEqual([p.code, p.signal], [0, null], `${p.name} exits 0`);
      const msgs = p.lines.map((l) => l['msg']);
      assert.equal(p.lines.filter(actorEpisode).length, 1, `${p.name} served exactly one episode`);
      assert.ok(msgs.includes('served OWRL_MAX_EPISODES requests; draining'), `${p.name} drained`);
      const last = p.lines[p.lines.length - 1];
      assert.deepEqual([last?.['msg'], last?.['reason'], last?.['code']], ['stopped', 'finished', 0], `${p.name} stopped cleanly`);
      assert.equal(p.registeredAfter, false, `${p.name} left the actor registry`);
    }
    // Every dispatched rollout was served by exactly one pod and ingested once.
    assert.ok(c.dispatched >= 2n, `dispatched ${c.dispatched}`);
    assert.equal(BigInt(pods.length), c.dispatched, 'one pod per dispatched rollout');
    assert.equal(c.scoredIngested, c.dispatched);
    assert.equal(c.inFlight, 0n);
    assert.equal(c.duplicatesDropped, 0n);
    assert.equal(sys.failure(), null);
  } finally {
    await sys.dispose();
  }
});

void test('an actor started while the broker is up but its JetStream is not waits for it, then starts and registers (no exit 1)', { timeout: 3 * 60_000 }, async () => {
  const port = await freePort();
  // The broker as a client meets it during a restart: accepting connections, JetStream not ready.
  const bare = await startNatsServer({ port, jetstream: false });
  let nats: Awaited<ReturnType<typeof startNatsServer>> | null = null;
  const sys = await startSystem({ natsUrl: `nats://127.0.0.1:${port}`, actors: 1, slots: 1, autostart: { sites: false, learner: false, judge: false } });
  try {
    const actor = sys.process('actor-1');
    const retried = await sys.waitForLog('actor-1', (l) => l['msg'] === 'NATS not ready (broker down or restarting); retrying' && Number(l['attempt']) >= 2, { timeoutMs: 60_000 });
    assert.ok(actor.running, 'the actor still runs while JetStream is unavailable');
    assert.match(JSON.stringify(retried['err']), /JetStream/);
    // JetStream comes back on the same port.
    await bare.dispose();
    nats = await startNatsServer({ port });
    const t0 = Date.now();
    await sys.waitForLog('actor-1', (l) => l['msg'] === 'actor ready', { timeoutMs: 90_000 });
    await sys.waitForActors(['actor-1'], { timeoutMs: 30_000 });
    console.log(JSON.stringify({ actor_waits_for_jetstream: { retries_before: Number(retried['attempt']), ready_after_jetstream_s: Math.round((Date.now() - t0) / 100) / 10 } }));
    assert.equal(sys.failure(), null);
    const exit = await actor.kill('SIGTERM');
    assert.deepEqual([exit.code, exit.signal], [0, null], 'SIGTERM stops it with exit 0');
    assert.ok(!actor.jsonLines().some((l) => l['msg'] === 'fatal error'), 'no fatal error logged');
  } finally {
    await sys.dispose();
    await bare.dispose();
    await nats?.dispose();
  }
});
