// Server restart while a consumer runs: the bus reconnects, the consumer resumes pulling, a
// message in flight across the restart is acked afterwards, and nothing published before or
// after is lost or handled twice.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RolloutRequestSchema } from '@owrl/proto';
import { CONSUMER_ACTORS, ensureTopology, STREAM_TASKS, taskSubject } from '../src/index.js';
import { deferred, rollout, startSuite, until, within, type Suite } from './harness.js';

void describe('server restart', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite('restart-test');
    await ensureTopology(s.bus);
  });
  after(async () => {
    await s.close();
  });

  void it('keeps consuming across stop/restart with no loss and no duplicate', async () => {
    const seen = new Map<string, number>();
    const inFlight = deferred();
    const release = deferred();
    const h = await s.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 2,
      pullExpiresMs: 1000,
      handler: async (d) => {
        const id = d.value.trajectoryId;
        seen.set(id, (seen.get(id) ?? 0) + 1);
        if (id === 'run-r/1/0/0/0') {
          inFlight.resolve();
          await release.promise; // still running while the server restarts
        }
      },
    });
    const publish = async (i: number) => {
      const r = rollout('run-r', i);
      await s.bus.publish(taskSubject('run-r'), RolloutRequestSchema, r, { msgId: r.trajectoryId, attempts: 10 });
    };
    try {
      for (let i = 0; i < 3; i++) await publish(i);
      await within(inFlight.promise, 5000, 'first message in flight');
      await until(() => seen.size === 3, 5000, 'first batch');

      const reconnected = (async () => {
        for await (const st of s.bus.nc.status()) if (st.type === 'reconnect') return;
      })();
      await s.server.stop();
      await s.server.restart();
      await within(reconnected, 10_000, 'reconnect');

      for (let i = 3; i < 8; i++) await publish(i);
      release.resolve();
      await until(() => seen.size === 8, 15_000, 'messages published after the restart');
      // the in-flight one is acked after the restart: the work queue ends empty
      await until(async () => (await s.bus.streamInfo(STREAM_TASKS)).state.messages === 0, 5000, 'all acked');
    } finally {
      release.resolve();
      await h.stop();
    }
    assert.deepEqual(
      [...seen.keys()].sort(),
      Array.from({ length: 8 }, (_, i) => `run-r/1/0/${i}/0`),
    );
    assert.deepEqual([...seen.values()], Array(8).fill(1), 'each handled once');
    const lag = await s.bus.consumerLag(STREAM_TASKS, CONSUMER_ACTORS);
    assert.deepEqual([lag.numPending, lag.numAckPending], [0, 0]);
  });
});
