// How much the async learner dispatches, against a real nats-server: a round far larger than the
// fleet goes out a few requests a slot at a time, not whole.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectBus, ensureTopology, STREAM_TASKS, taskSubject, type Bus } from '@owrl/bus';
import { ActorInfoSchema, make, TaskSchema } from '@owrl/proto';
import { startNatsServer, type NatsServer } from '@owrl/testkit';
import { loadLearnerConfig } from '../src/config.js';
import { RunStateStore } from '../src/run-state-store.js';
import { TaskScheduler } from '../src/scheduler.js';
import { startTestLearner } from './learner-fixture.js';

let nats: NatsServer;
let bus: Bus;

before(async () => {
  nats = await startNatsServer();
  bus = await connectBus({ servers: nats.url, name: 'learner-refill-test' });
  await ensureTopology(bus, { storage: 'memory' });
});

after(async () => {
  await bus?.close();
  await nats?.dispose();
});

/** Requests an async learner puts on the bus for a round of 100 groups of 4 that nobody takes, with `slots` actor slots in its run state (0: no actor seen). */
async function asyncQueued(runId: string, slots: number): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-topup-'));
  const config = loadLearnerConfig({
    OWRL_RUN_ID: runId,
    OWRL_TASKS_FILE: 'tasks.jsonl',
    OWRL_MODE: 'async',
    OWRL_ROUNDS: '2',
    OWRL_GROUP_SIZE: '4',
    OWRL_GROUPS_PER_ROUND: '100',
    OWRL_ROUND_TIMEOUT_S: '45',
    OWRL_CURRICULUM: '1:3',
    OWRL_DATA_DIR: dataDir,
  });
  const tasks = Array.from({ length: 8 }, (_, i) => make(TaskSchema, { id: `t${i}`, startUrl: `http://site-${i}.example/`, instruction: 'find it', difficulty: 1 }));
  const store = new RunStateStore(runId, 1, 'async');
  // The actors as the fleet view shows registered ones.
  if (slots > 0) {
    store.change('fleet', (s) => {
      s.actors = [make(ActorInfoSchema, { actorId: 'a1', slots, updatedAtMs: BigInt(Date.now()) })];
    });
  }
  const { learner, artifacts } = await startTestLearner({ bus, config, scheduler: new TaskScheduler(tasks, { seed: 1 }), store, dataDir });
  const run = learner.run();
  try {
    // What the learner put on the bus after a while is all it will (nothing comes back).
    await new Promise((r) => setTimeout(r, 2500));
    const info = await bus.jsm.streams.info(STREAM_TASKS, { subjects_filter: taskSubject(runId) });
    return Number(info.state.subjects?.[taskSubject(runId)] ?? 0);
  } finally {
    // No grace: nothing in flight will come back.
    await learner.stop(0);
    await run.catch(() => {});
    await artifacts.close();
  }
}

void test('async mode: a round of 400 rollouts goes out at most 4 requests a slot, 16 groups before any actor is seen', { timeout: 60_000 }, async () => {
  // 3 slots: 4 a slot = 12 rollouts, 3 groups of 4 (the whole round would be 400).
  assert.equal(await asyncQueued('topup3', 3), 12);
  assert.equal(await asyncQueued('topup0', 0), 64);
});
