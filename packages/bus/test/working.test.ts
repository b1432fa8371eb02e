// working(): a handler that runs past ack_wait keeps its message (the bus sends working()
// periodically), while one whose message is left unsettled without heartbeats gets it back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RolloutRequestSchema } from '@owrl/proto';
import { CONSUMER_ACTORS, ensureTopology, STREAM_TASKS, taskSubject } from '../src/index.js';
import { deferred, rollout, sleep, startSuite, within, type Suite } from './harness.js';

const ACK_WAIT_MS = 1500;
/** How long after the ack a redelivery is looked for: one ack_wait and a little. */
const ABSENCE_WINDOW_MS = ACK_WAIT_MS + 200;

void describe('working()', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite('working-test');
    await ensureTopology(s.bus, { actorsAckWaitMs: ACK_WAIT_MS });
  });
  after(async () => {
    await s.close();
  });

  void it('a handler running 2.3x ack_wait with working every 300 ms is not redelivered', async () => {
    const r = rollout('run-w', 0);
    await s.bus.publish(taskSubject('run-w'), RolloutRequestSchema, r, { msgId: r.trajectoryId });
    const calls: number[] = [];
    const done = deferred();
    const h = await s.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 2, // a free slot: a redelivery would reach this consumer
      workingIntervalMs: 300,
      pullExpiresMs: 1000,
      handler: async (d) => {
        calls.push(d.deliveryCount);
        // an episode that outlasts ack_wait (work time, not a wait for an event)
        await sleep(3500);
        done.resolve();
      },
    });
    try {
      await within(done.promise, 10_000, 'long handler');
      // Absence window (no event can show that nothing comes): one more ack_wait after the ack, in
      // which a redelivery would have shown up.
      await sleep(ABSENCE_WINDOW_MS);
    } finally {
      await h.stop();
    }
    assert.deepEqual(calls, [1]);
    const lag = await s.bus.consumerLag(STREAM_TASKS, CONSUMER_ACTORS);
    assert.deepEqual([lag.numRedelivered, lag.numAckPending, lag.numPending], [0, 0, 0]);
  });

  void it('control: without working() the same message comes back after ack_wait', async () => {
    const r = rollout('run-w', 1);
    await s.bus.publish(taskSubject('run-w'), RolloutRequestSchema, r, { msgId: r.trajectoryId });
    const calls: number[] = [];
    const second = deferred();
    const h = await s.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 2,
      autoAck: false, // returns at once without settling: no heartbeats, as if the worker hung
      workingIntervalMs: 500,
      pullExpiresMs: 1000,
      handler: async (d) => {
        calls.push(d.deliveryCount);
        if (d.deliveryCount === 2) {
          await d.ack();
          second.resolve();
        }
      },
    });
    try {
      await within(second.promise, 10_000, 'redelivery');
    } finally {
      await h.stop();
    }
    assert.deepEqual(calls, [1, 2]);
  });
});
