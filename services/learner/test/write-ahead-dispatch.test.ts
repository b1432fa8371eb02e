// Async mode: while an update is written ahead the loop takes no result in, but it goes on
// dispatching: a slot that finishes in those seconds must not stand idle until the write-ahead is
// over (12–30 s once per update at 8000 slots). Against a real nats-server, with
// the first write-ahead held open by the test: the slots that finish meanwhile get new requests
// before it ends, and the run still finishes with every rollout trained.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectBus, ensureTopology, type Bus } from '@owrl/bus';
import { ActorInfoSchema, make } from '@owrl/proto';
import { startNatsServer, waitUntil, type NatsServer } from '@owrl/testkit';
import { RunStateStore } from '../src/run-state-store.js';
import { TaskScheduler } from '../src/scheduler.js';
import { answerRequests, siteTasks, startTestLearner, testLearnerConfig } from './learner-fixture.js';

let nats: NatsServer;
let bus: Bus;

before(async () => {
  nats = await startNatsServer();
  bus = await connectBus({ servers: nats.url, name: 'learner-write-ahead-test' });
  await ensureTopology(bus, { storage: 'memory' });
});

after(async () => {
  await bus?.close();
  await nats?.dispose();
});

void test('async mode: slots that finish while an update is written ahead get new requests before it ends', { timeout: 90_000 }, async () => {
  const runId = 'aheaddispatch';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-ahead-'));
  const config = testLearnerConfig(runId, dataDir, { OWRL_MODE: 'async', OWRL_ROUNDS: '3', OWRL_GROUP_SIZE: '4', OWRL_GROUPS_PER_ROUND: '2', OWRL_ROUND_TIMEOUT_S: '30' });
  const store = new RunStateStore(runId, 1, 'async');
  store.change('fleet', (s) => {
    s.actors = [make(ActorInfoSchema, { actorId: 'a1', slots: 8, updatedAtMs: BigInt(Date.now()) })];
  });
  const { learner, artifacts } = await startTestLearner({ bus, config, scheduler: new TaskScheduler(siteTasks(6), { seed: 1 }), store, dataDir });
  // The first write-ahead is held open until the test lets it end (it ends as it would, only later).
  const publisher = (learner as unknown as { publisher: { writeAhead: (...a: unknown[]) => Promise<void> } }).publisher;
  const writeAhead = publisher.writeAhead.bind(publisher);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let dispatchedAtStart = -1;
  let startedAtMs = Infinity;
  let calls = 0;
  publisher.writeAhead = async (...a: unknown[]) => {
    if (calls++ === 0) {
      dispatchedAtStart = Number(store.get().counters?.dispatched ?? 0n);
      startedAtMs = Date.now();
      await gate;
    }
    await writeAhead(...a);
  };
  // Stands in for actors and judge, answering every request at once; counts the requests
  // dispatched after the write-ahead began that it answered.
  let answeredNew = 0;
  const worker = await answerRequests(bus, runId, {
    maxInFlight: 8,
    after: (req) => {
      if (Number(req.dispatchedAtMs) >= startedAtMs) answeredNew += 1;
    },
  });
  const run = learner.run();
  try {
    await waitUntil('the first write-ahead to start', () => (dispatchedAtStart >= 0 ? true : undefined), { timeoutMs: 30_000 });
    // Held open: the results of the slots still in flight come back, and their slots are given new requests.
    const more = await waitUntil(
      'requests dispatched while the update is written ahead',
      () => {
        const n = Number(store.get().counters?.dispatched ?? 0n);
        return n > dispatchedAtStart ? n : undefined;
      },
      { timeoutMs: 15_000 },
    );
    assert.ok(more > dispatchedAtStart, `dispatched ${more} after ${dispatchedAtStart}`);
    await waitUntil('a request dispatched during the write-ahead to be answered', () => (answeredNew > 0 ? true : undefined), { timeoutMs: 15_000 });
    assert.equal(calls, 1, 'still the first write-ahead');
    release();
    await run;
    const s = store.get();
    const c = s.counters!;
    assert.deepEqual(s.rounds.map((r) => Number(r.round)), [0, 1, 2]);
    assert.equal(c.excluded, 0n, 'nothing timed out or was abandoned');
    assert.equal(c.trainable + c.inFlight, c.dispatched, 'every dispatched rollout came back trainable');
  } finally {
    release();
    await learner.stop();
    await run.catch(() => {});
    await worker.stop();
    await artifacts.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
