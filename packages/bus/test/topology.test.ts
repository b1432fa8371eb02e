// ensureTopology against a real nats-server: idempotent, concurrent-safe, converges changed
// options, refuses settings the server cannot change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  BusErrorCode,
  CONSUMER_ACTORS,
  CONSUMER_JUDGE,
  CONSUMER_LEARNER,
  ensureTopology,
  isBusError,
  KV_ACTORS,
  KV_BLACKLIST,
  KV_WEIGHTS,
  STREAM_ADVISORIES,
  STREAM_DLQ,
  STREAM_SCORED,
  STREAM_SHOTS,
  STREAM_TASKS,
  STREAM_TRAJ,
} from '../src/index.js';
import { startSuite, type Suite } from './harness.js';

const S = 1e9;

void describe('ensureTopology', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite('topology-test');
  });
  after(async () => {
    await s.close();
  });

  void it('creates everything, and again (sequentially and concurrently) without changing it', async () => {
    await ensureTopology(s.bus);
    const created = (await s.bus.streamInfo(STREAM_TASKS)).created;
    await ensureTopology(s.bus);
    await Promise.all([ensureTopology(s.bus), ensureTopology(s.bus.jsm), ensureTopology(s.bus)]);
    assert.equal((await s.bus.streamInfo(STREAM_TASKS)).created, created, 'stream was not recreated');

    const names: string[] = [];
    for await (const n of s.bus.jsm.streams.names()) names.push(n);
    assert.deepEqual(
      names.sort(),
      [STREAM_ADVISORIES, STREAM_DLQ, STREAM_SCORED, STREAM_SHOTS, STREAM_TASKS, STREAM_TRAJ, `KV_${KV_ACTORS}`, `KV_${KV_BLACKLIST}`, `KV_${KV_WEIGHTS}`].sort(),
    );

    const tasks = (await s.bus.streamInfo(STREAM_TASKS)).config;
    assert.deepEqual(
      [tasks.subjects, tasks.retention, tasks.storage, tasks.discard, tasks.max_msgs, tasks.duplicate_window],
      [['owrl.tasks.>'], 'workqueue', 'file', 'new', 100_000, 120 * S],
    );
    for (const [name, subject] of [
      [STREAM_TRAJ, 'owrl.traj.>'],
      [STREAM_SCORED, 'owrl.scored.>'],
      [STREAM_DLQ, 'owrl.dlq.>'],
    ] as const) {
      const c = (await s.bus.streamInfo(name)).config;
      assert.deepEqual([c.subjects, c.retention, c.storage, c.duplicate_window], [[subject], 'limits', 'file', 120 * S], name);
    }

    const actors = (await s.bus.consumerInfo(STREAM_TASKS, CONSUMER_ACTORS)).config;
    assert.deepEqual(
      [actors.durable_name, actors.deliver_subject, actors.ack_policy, actors.ack_wait, actors.max_deliver, actors.max_ack_pending],
      [CONSUMER_ACTORS, undefined, 'explicit', 60 * S, 4, 256],
    );
    const judge = (await s.bus.consumerInfo(STREAM_TRAJ, CONSUMER_JUDGE)).config;
    assert.deepEqual([judge.ack_policy, judge.ack_wait, judge.max_deliver], ['explicit', 60 * S, 4]);
    const learner = (await s.bus.consumerInfo(STREAM_SCORED, CONSUMER_LEARNER)).config;
    assert.deepEqual([learner.ack_policy, learner.ack_wait, learner.max_ack_pending], ['explicit', 30 * 60 * S, 20_000]);

    const kv = (name: string) => s.bus.streamInfo(`KV_${name}`).then((i) => [i.config.max_msgs_per_subject, i.config.max_age]);
    assert.deepEqual(await kv(KV_WEIGHTS), [5, 0]);
    assert.deepEqual(await kv(KV_BLACKLIST), [1, 3600 * S]);
    assert.deepEqual(await kv(KV_ACTORS), [1, 30 * S]);
  });

  void it('updates changed options in place', async () => {
    await ensureTopology(s.bus, { tasksMaxMsgs: 500, actorsAckWaitMs: 90_000, actorsMaxAckPending: 64, maxDeliver: 6, actorsTtlMs: 45_000 });
    assert.equal((await s.bus.streamInfo(STREAM_TASKS)).config.max_msgs, 500);
    const actors = (await s.bus.consumerInfo(STREAM_TASKS, CONSUMER_ACTORS)).config;
    assert.deepEqual([actors.ack_wait, actors.max_ack_pending, actors.max_deliver], [90 * S, 64, 6]);
    assert.equal((await s.bus.streamInfo(`KV_${KV_ACTORS}`)).config.max_age, 45 * S);
    await ensureTopology(s.bus); // back to defaults
    assert.equal((await s.bus.consumerInfo(STREAM_TASKS, CONSUMER_ACTORS)).config.ack_wait, 60 * S);
  });

  void it('refuses a stream whose immutable settings differ', async () => {
    await s.bus.jsm.streams.delete(STREAM_DLQ);
    await s.bus.jsm.streams.add({ name: STREAM_DLQ, subjects: ['owrl.dlq.>'], storage: 'memory' });
    await assert.rejects(
      ensureTopology(s.bus),
      (e: unknown) => isBusError(e, BusErrorCode.TopologyConflict) && /OWRL_DLQ.*storage=memory.*storage=file/.test(e.message),
    );
  });
});
