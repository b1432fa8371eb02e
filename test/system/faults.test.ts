// System faults across processes (the @owrl/testkit harness: real nats-server, sites, learner,
// judge and actors with Chromium as separate processes): during one run, poison messages in each
// work stream, a SIGKILLed actor mid-episode, a SIGTERMed actor (drains), a SIGKILLed judge, a
// nats-server restart and an actor whose payload limit no trajectory fits. Each fault prints its
// figures as one JSON line; at the end the run finishes with every dispatched rollout accounted
// for (0 lost) and no trajectory in two groups or ingested twice (0 used twice). Consumer ack
// waits are 8 s here (OWRL_*_ACK_WAIT_S) so that recovery from a SIGKILL, about one ack_wait,
// fits a short test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jetstreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { RunPhase, type RunState } from '@owrl/proto';
import { startSystem, waitUntil, watchRedeliveries, type OwrlSystem } from '@owrl/testkit';
import { STREAM_DLQ, STREAM_TASKS } from '@owrl/bus';

const ACK_WAIT_S = 8;

const figures: string[] = [];
function figure(fault: string, fields: Record<string, unknown>): void {
  const line = JSON.stringify({ fault, ...fields });
  figures.push(line);
  console.log(line);
}

/** Waits until actor `id` reports at least one busy slot in KV owrl_actors. */
async function busy(sys: OwrlSystem, id: string): Promise<number> {
  return await waitUntil(`${id} to run an episode`, async () => (await sys.actors()).find((a) => a.actorId === id && a.busy > 0)?.busy, {
    timeoutMs: 60_000,
    intervalMs: 100,
    abort: () => sys.failure(),
  });
}

/**
 * Waits until actor `id`'s own /metrics says a slot is busy now, and returns that count. The
 * registry's figure is up to a heartbeat old: an actor that finished its last episode of a round
 * just before still reads busy there, and a SIGKILL then catches nothing in flight.
 */
async function busyNow(sys: OwrlSystem, id: string): Promise<{ busy: number; finished: number }> {
  return await waitUntil(`${id}'s /metrics to show a busy slot`, async () => {
    const text = await fetch(`${sys.metricsUrl(id)}/metrics`).then((r) => r.text()).catch(() => '');
    const busy = Number(/^owrl_actor_busy_slots(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1] ?? 0);
    // Episodes published and acked so far: the counter is incremented just before the actor's 'episode finished' line.
    const finished = [...text.matchAll(/^owrl_actor_episodes_total\{[^}]*\} (\S+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    return busy > 0 ? { busy, finished } : undefined;
  }, { timeoutMs: 60_000, intervalMs: 20, abort: () => sys.failure() });
}

function ingested(s: RunState): bigint {
  return s.counters?.scoredIngested ?? 0n;
}

async function running(sys: OwrlSystem, what: string): Promise<RunState> {
  const s = await sys.runState();
  assert.equal(RunPhase[s.phase], 'RUNNING', `the run must still be running before ${what}`);
  return s;
}

void test('the system survives killed actors, a killed judge, a broker restart, poison messages and oversized trajectories with 0 lost and 0 used twice', { timeout: 6 * 60_000 }, async (t) => {
  const rounds = 5;
  const sys = await startSystem({
    actors: 2,
    slots: 2,
    env: { OWRL_ACTORS_ACK_WAIT_S: String(ACK_WAIT_S), OWRL_JUDGE_ACK_WAIT_S: String(ACK_WAIT_S) },
    actorEnv: { OWRL_HEARTBEAT_S: '1' },
    learnerEnv: {
      OWRL_ROUNDS: String(rounds),
      OWRL_GROUPS_PER_ROUND: '2',
      OWRL_GROUP_SIZE: '2',
      OWRL_CURRICULUM: `${rounds}:3`,
      OWRL_DIFFICULTIES: '1',
      OWRL_TASK_COUNT: '12',
    },
  });
  const t0 = Date.now();
  try {
    await sys.waitForLearner();
    await sys.waitForActors(['actor-1', 'actor-2']);
    const nc = await sys.natsConnection();
    const jsm = await jetstreamManager(nc);

    // 1. Poison in each work stream: undecodable bytes go to OWRL_DLQ with their reason.
    const poison = new Uint8Array([0xff, 0xff, 0xff, 0xff]);
    const subjects = { OWRL_TASKS: `owrl.tasks.${sys.runId}`, OWRL_TRAJ: `owrl.traj.${sys.runId}`, OWRL_SCORED: `owrl.scored.${sys.runId}` };
    for (const [stream, subject] of Object.entries(subjects)) {
      const h = natsHeaders();
      h.set('Nats-Msg-Id', `poison-${stream}`);
      await nc.request(subject, poison, { headers: h, timeout: 5000 });
    }
    const dlqStart = Date.now();
    const dead = await waitUntil(
      'three dead letters',
      async () => {
        const n = (await jsm.streams.info(STREAM_DLQ)).state.messages;
        return n >= 3 ? n : undefined;
      },
      { timeoutMs: 30_000, abort: () => sys.failure() },
    );
    const letters = new Map<string, string>();
    for (let seq = 1; seq <= dead; seq++) {
      const m = await jsm.streams.getMessage(STREAM_DLQ, { seq });
      if (!m) continue;
      letters.set(m.header.get('Owrl-Dlq-Stream'), `${m.header.get('Owrl-Dlq-Reason')}: ${m.header.get('Owrl-Dlq-Detail')}`);
    }
    figure('poison', { dead_letters: dead, seconds: (Date.now() - dlqStart) / 1000, reasons: Object.fromEntries(letters) });
    for (const stream of Object.keys(subjects)) assert.match(letters.get(stream) ?? '', /^undecodable: ./, `${stream} poison in OWRL_DLQ with its reason`);

    // 2. SIGKILL of an actor mid-episode: its rollouts come back after about one ack_wait.
    await running(sys, 'the actor SIGKILL');
    await busy(sys, 'actor-1');
    // Counted as the actors settle redelivered requests (the consumer info's num_redelivered forgets one once it is acked).
    const redeliveries = watchRedeliveries(await sys.natsConnection(), STREAM_TASKS, 'actors');
    const held = (await busyNow(sys, 'actor-1')).busy;
    const killedAt = Date.now();
    await sys.kill('actor-1', 'SIGKILL');
    sys.start('actor-1');
    const back = await waitUntil(
      'the killed actor\'s rollouts to be redelivered',
      () => {
        const n = redeliveries.redeliveredSince(killedAt).length;
        return n > 0 ? n : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, abort: () => sys.failure() },
    );
    redeliveries.close();
    const recovery = (Date.now() - killedAt) / 1000;
    figure('actor_sigkill', { busy_slots_killed: held, redelivered: back, recovery_s: recovery, ack_wait_s: ACK_WAIT_S });
    await sys.waitForLog('actor-1', (l) => l['msg'] === 'started' && l['pid'] === sys.process('actor-1').pid, { timeoutMs: 120_000 });
    assert.ok(recovery < ACK_WAIT_S * 3, `recovered in ${recovery} s`);

    // 3. SIGTERM of an actor mid-episode: it finishes and publishes what it holds, then exits 0.
    await running(sys, 'the actor SIGTERM');
    await busy(sys, 'actor-2');
    // From the actor's counter: its log file, copied through a pipe by this process, may lag behind.
    const { busy: draining, finished: finishedBefore } = await busyNow(sys, 'actor-2');
    const termAt = Date.now();
    const exit = await sys.kill('actor-2', 'SIGTERM');
    // The actor's own line (its request published and acked) names the trajectory; the browser
    // environment's line of the same name, logged when the episode ends, does not.
    const drained = sys.process('actor-2').jsonLines().filter((l) => l['msg'] === 'episode finished' && 'trajectory' in l).length - finishedBefore;
    figure('actor_sigterm', { busy_slots: draining, episodes_drained: drained, exit_code: exit.code, drain_s: (Date.now() - termAt) / 1000 });
    assert.equal(exit.code, 0);
    assert.ok(drained >= 1, `drained ${drained} episodes`);
    sys.start('actor-2');
    // Back before the next fault: an actor whose start-up overlaps a broker restart fails its start (known gap).
    await sys.waitForLog('actor-2', (l) => l['msg'] === 'started' && l['pid'] === sys.process('actor-2').pid, { timeoutMs: 120_000 });

    // 4. SIGKILL of the judge: unacked trajectories are judged again after a restart.
    const s4 = await running(sys, 'the judge SIGKILL');
    const judgeKilledAt = Date.now();
    await sys.kill('judge', 'SIGKILL');
    sys.start('judge');
    await sys.waitForState('scoring to resume after the judge restart', (s) => ingested(s) > ingested(s4), { timeoutMs: 90_000 });
    figure('judge_sigkill', { recovery_s: (Date.now() - judgeKilledAt) / 1000, ingested_before: Number(ingested(s4)) });

    // 5. nats-server restart mid-run: every service reconnects and the run goes on.
    const s5 = await running(sys, 'the nats-server restart');
    const natsAt = Date.now();
    await sys.nats!.stop();
    await new Promise((r) => setTimeout(r, 1000)); // the outage's length (the fault), not a wait for an event
    await sys.nats!.restart();
    await sys.waitForState('scoring to resume after the broker restart', (s) => ingested(s) > ingested(s5), { timeoutMs: 90_000 });
    figure('nats_restart', { down_s: 1, recovery_s: (Date.now() - natsAt) / 1000 });

    // 6. An actor no trajectory fits (OWRL_MAX_PAYLOAD 1 KiB): a clear error, the actor goes on serving.
    await running(sys, 'the oversized trajectories');
    const tiny = await sys.addActor({ id: 'actor-tiny', env: { OWRL_MAX_PAYLOAD: '1024' } });
    const line = await sys.waitForLog(tiny, (l) => l['msg'] === 'episode finished' && l['reason'] === 'trajectory_too_large', { timeoutMs: 90_000 });
    const error = sys.process(tiny).jsonLines().find((l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('trajectory too large'));
    figure('oversized', { actor_alive: sys.process(tiny).running, error: error?.['msg'], bytes: error?.['bytes'], limit: error?.['limit'], trajectory: line['trajectory'] });
    assert.ok(error, 'the actor logs a clear error');
    assert.ok(sys.process(tiny).running, 'the actor survives');
    assert.equal((await sys.kill(tiny, 'SIGTERM')).code, 0);

    // The run finishes; every rollout is accounted for and none was used twice.
    const end = await sys.waitForPhase(RunPhase.FINISHED, { timeoutMs: 240_000 });
    const c = end.counters!;
    const ids: string[] = [];
    for (let r = 0; r < rounds; r++) for (const g of (await sys.learner().listGroups(r)).groups) ids.push(...g.trajectoryIds.filter((id) => id !== ''));
    const twice = ids.length - new Set(ids).size;
    const lost = Number(c.dispatched - c.trainable - c.excluded);
    figure('run', {
      seconds: (Date.now() - t0) / 1000,
      rounds: end.rounds.length,
      dispatched: Number(c.dispatched),
      ingested: Number(c.scoredIngested),
      trainable: Number(c.trainable),
      excluded: Number(c.excluded),
      redispatched: Number(c.redispatched),
      duplicates_dropped: Number(c.duplicatesDropped),
      lost,
      used_twice: twice,
    });
    assert.equal(end.rounds.length, rounds);
    assert.equal(c.inFlight, 0n);
    assert.equal(lost, 0, 'every dispatched rollout came back');
    assert.equal(c.scoredIngested, c.dispatched, 'each ingested once');
    assert.equal(twice, 0, 'no trajectory in two groups');
    assert.equal(sys.failure(), null);
  } finally {
    for (const f of figures) t.diagnostic(f);
    await sys.dispose();
  }
});
