// A scored result's steps leave the learner's memory as the result arrives, not when the learner
// gets to ingest it: against a real nats-server, a learner paused before its first round (so it
// ingests nothing) takes results into its inbox, and every one of them is already spilled to disk
// with its delivery's bytes let go of. A payload that waited in the inbox until ingestion outlived
// the young generation's collections, and the old generation's growth in payloads set off a full
// collection of everything the learner held every ~2 s on the bus bench.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectBus, ensureTopology, scoredSubject, type Bus } from '@owrl/bus';
import { make, RolloutRequestSchema, ScoredTrajectorySchema, StepSchema, TaskSchema, TerminationClass, TerminationSchema, TrajectorySchema, VerdictSchema } from '@owrl/proto';
import { silentLogger } from '@owrl/core';
import { startNatsServer, waitUntil, type NatsServer } from '@owrl/testkit';
import { RunStateStore } from '../src/run-state-store.js';
import { TaskScheduler } from '../src/scheduler.js';
import { StepSpill } from '../src/step-spill.js';
import { siteTasks, startTestLearner, testLearnerConfig } from './learner-fixture.js';

let nats: NatsServer;
let bus: Bus;

before(async () => {
  nats = await startNatsServer();
  bus = await connectBus({ servers: nats.url, name: 'learner-held-on-arrival-test' });
  await ensureTopology(bus, { storage: 'memory' });
});

after(async () => {
  await bus?.close();
  await nats?.dispose();
});

void test('results waiting in a paused learner have their steps on disk already, none of them ingested', { timeout: 60_000 }, async () => {
  const runId = 'heldarrival';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-held-arrival-'));
  const config = testLearnerConfig(runId, dataDir, { OWRL_MODE: 'async', OWRL_ROUNDS: '1', OWRL_GROUP_SIZE: '2', OWRL_GROUPS_PER_ROUND: '1' });
  const spill = new StepSpill(path.join(dataDir, 'spill'), { logger: silentLogger });
  const store = new RunStateStore(runId, 1, 'async');
  const { learner, artifacts } = await startTestLearner({ bus, config, scheduler: new TaskScheduler(siteTasks(2), { seed: 1 }), store, dataDir, heldSteps: spill });
  learner.control.pause('held-on-arrival test');
  const run = learner.run();
  try {
    // Results of a group (7) the learner never asked for, each with ~8 KB of steps (the spill takes 4 KB or more).
    const n = 6;
    for (let i = 0; i < n; i++) {
      const id = `${runId}-r${i}`;
      const request = make(RolloutRequestSchema, { runId, trajectoryId: id, group: 7, sample: i, task: make(TaskSchema, { id: 't0', startUrl: 'http://site-0.example/', instruction: 'find it', difficulty: 1 }) });
      const steps = [0, 1].map((index) => make(StepSchema, { index, reasoning: `step ${index} of ${id}: ${'x'.repeat(4000)}` }));
      const trajectory = make(TrajectorySchema, { trajectoryId: id, request, steps, termination: make(TerminationSchema, { class: TerminationClass.COMPLETED, reason: 'done' }) });
      await bus.publish(scoredSubject(runId), ScoredTrajectorySchema, make(ScoredTrajectorySchema, { trajectoryId: id, trajectory, trainable: true, verdict: make(VerdictSchema, { reward: i % 2 }) }), { msgId: id });
    }
    await waitUntil(`all ${n} results spilled on arrival`, () => (spill.stats().spilled === n ? true : undefined), { timeoutMs: 20_000 });
    assert.ok(spill.stats().spilledBytes >= n * 8000, `the steps' bytes went to disk: ${spill.stats().spilledBytes}`);
    // Still paused: not one of them was ingested.
    assert.equal(store.mutable.counters?.scoredIngested ?? 0n, 0n);
  } finally {
    // Stopped while paused, the run ends without an error (its phase FAILED: 'stopped').
    await learner.stop();
    await run;
    spill.close();
    await artifacts.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
