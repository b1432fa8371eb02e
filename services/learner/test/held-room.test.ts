// The learner keeps room for what it holds: every rollout of a pending group stays unacked until
// its group is trained, and JetStream delivers nothing past the consumer's max_ack_pending, so a
// learner holding that many partial groups could never finish one. Against a real nats-server,
// with OWRL_SCORED_MAX_ACK_PENDING far below a round's rollouts and the first half of every group
// answered before the second: the learner raises the limit and the run finishes with every rollout
// trained. And it dispatches no more than the fleet can take: a round far larger than the fleet
// goes out a few requests a slot at a time, not whole.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectBus, ensureTopology, learnerConsumerName, STREAM_SCORED, STREAM_TASKS, taskSubject, type Bus } from '@owrl/bus';
import { ActorInfoSchema, make } from '@owrl/proto';
import { startNatsServer, waitUntil, type NatsServer } from '@owrl/testkit';
import { RunStateStore } from '../src/run-state-store.js';
import { TaskScheduler } from '../src/scheduler.js';
import { answerRequests, siteTasks, startTestLearner, testLearnerConfig } from './learner-fixture.js';

let nats: NatsServer;
let bus: Bus;

before(async () => {
  nats = await startNatsServer();
  bus = await connectBus({ servers: nats.url, name: 'learner-held-room-test' });
  await ensureTopology(bus, { storage: 'memory' });
});

after(async () => {
  await bus?.close();
  await nats?.dispose();
});

void test('a max_ack_pending below what the learner may hold is raised, and the run finishes with every rollout trained', { timeout: 90_000 }, async () => {
  const runId = 'heldroom';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-held-'));
  const config = testLearnerConfig(runId, dataDir, {
    OWRL_MODE: 'async',
    OWRL_ROUNDS: '3',
    OWRL_GROUP_SIZE: '4',
    OWRL_GROUPS_PER_ROUND: '2',
    OWRL_ROUND_TIMEOUT_S: '30',
    OWRL_SCORED_MAX_ACK_PENDING: '4',
  });
  const tasks = siteTasks(6);
  const scheduler = new TaskScheduler(tasks, { seed: 1 });
  const store = new RunStateStore(runId, 1, 'async');
  const { learner, artifacts } = await startTestLearner({ bus, config, scheduler, store, dataDir });
  // Stands in for actors and judge: samples 0 and 1 of a group are answered at once, 2 and 3 after
  // a while, so the first results the learner holds are halves of groups.
  const worker = await answerRequests(bus, runId, {
    maxInFlight: 64,
    before: async (req) => {
      if (req.sample >= 2) await new Promise((r) => setTimeout(r, 400));
    },
  });
  try {
    await learner.run();
    const info = await bus.jsm.consumers.info(STREAM_SCORED, learnerConsumerName(runId));
    assert.ok((info.config.max_ack_pending ?? 0) >= config.maxGroupsPerRound * config.groupSize, `max_ack_pending ${info.config.max_ack_pending} was raised`);
    const s = store.get();
    const c = s.counters!;
    assert.deepEqual(s.rounds.map((r) => Number(r.round)), [0, 1, 2]);
    assert.equal(c.excluded, 0n, 'nothing timed out or was abandoned');
    assert.equal(c.trainable + c.inFlight, c.dispatched, 'every dispatched rollout came back trainable');
    assert.ok(c.groupsKept >= 6n, `kept ${c.groupsKept}`);
  } finally {
    await learner.stop();
    await worker.stop();
    await artifacts.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

/**
 * Requests an async learner puts on the bus for a round of 100 groups of 4 that nobody takes, with
 * `slots` actor slots in its run state (0: no actor seen). Read once its first dispatch is on the
 * bus: a top-up dispatches all it will in one go, and with no result back nothing calls for more.
 */
async function asyncQueued(runId: string, slots: number): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-topup-'));
  const config = testLearnerConfig(runId, dataDir, { OWRL_MODE: 'async', OWRL_ROUNDS: '2', OWRL_GROUP_SIZE: '4', OWRL_GROUPS_PER_ROUND: '100', OWRL_ROUND_TIMEOUT_S: '45' });
  const store = new RunStateStore(runId, 1, 'async');
  // The actors as the fleet view shows registered ones.
  if (slots > 0) {
    store.change('fleet', (s) => {
      s.actors = [make(ActorInfoSchema, { actorId: 'a1', slots, updatedAtMs: BigInt(Date.now()) })];
    });
  }
  const { learner, artifacts } = await startTestLearner({ bus, config, scheduler: new TaskScheduler(siteTasks(8), { seed: 1 }), store, dataDir });
  const run = learner.run();
  try {
    // Dispatches are counted before they are published (write-ahead): wait until the bus holds them all.
    return await waitUntil('the first dispatch on the bus', async () => {
      const dispatched = Number(store.get().counters?.dispatched ?? 0n);
      const info = await bus.jsm.streams.info(STREAM_TASKS, { subjects_filter: taskSubject(runId) });
      const queued = Number(info.state.subjects?.[taskSubject(runId)] ?? 0);
      return dispatched > 0 && queued === dispatched ? queued : undefined;
    }, { timeoutMs: 20_000 });
  } finally {
    // No grace: nothing in flight will come back.
    await learner.stop(0);
    await run.catch(() => {});
    await artifacts.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

void test('async mode: a round of 400 rollouts goes out at most 4 requests a slot, 16 groups before any actor is seen', { timeout: 60_000 }, async () => {
  // 3 slots: 4 a slot = 12 rollouts, 3 groups of 4 (the whole round would be 400).
  assert.equal(await asyncQueued('topup3', 3), 12);
  assert.equal(await asyncQueued('topup0', 0), 64);
});
