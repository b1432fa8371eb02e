// A full OWRL_TASKS (discard: new) refuses publishes with BUS_PUBLISH_REFUSED and keeps what it
// holds; nothing is dropped silently, and capacity returns once messages are acked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RolloutRequestSchema } from '@owrl/proto';
import { BusErrorCode, CONSUMER_ACTORS, ensureTopology, isPublishRefused, STREAM_TASKS, taskSubject } from '../src/index.js';
import { deferred, rollout, startSuite, within, type Suite } from './harness.js';

void describe('stream full', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite('stream-full-test');
    await ensureTopology(s.bus, { tasksMaxMsgs: 3 });
  });
  after(async () => {
    await s.close();
  });

  void it('refuses the publish beyond max_msgs with BUS_PUBLISH_REFUSED and keeps the first ones', async () => {
    const pub = (i: number) => {
      const r = rollout('run-full', i);
      return s.bus.publish(taskSubject('run-full'), RolloutRequestSchema, r, { msgId: r.trajectoryId });
    };
    for (let i = 0; i < 3; i++) assert.equal((await pub(i)).duplicate, false);
    await assert.rejects(pub(3), (e: unknown) => isPublishRefused(e) && e.code === BusErrorCode.PublishRefused && /maximum messages/.test(e.message));
    const info = await s.bus.streamInfo(STREAM_TASKS);
    assert.deepEqual([info.state.messages, info.state.first_seq, info.state.last_seq], [3, 1, 3], 'old messages kept, new one not stored');

    // consume one: capacity is back
    const one = deferred<string>();
    const h = await s.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 1,
      pullExpiresMs: 1000,
      handler: (d) => one.resolve(d.value.trajectoryId),
    });
    try {
      assert.equal(await within(one.promise, 5000, 'delivery'), 'run-full/1/0/0/0');
    } finally {
      await h.stop();
    }
    const info2 = await s.bus.streamInfo(STREAM_TASKS);
    assert.equal(info2.state.messages, info2.state.last_seq - info2.state.first_seq + 1);
    assert.ok(info2.state.messages < 3, `room again (${info2.state.messages})`);
    assert.equal((await pub(3)).duplicate, false);
  });
});
