// Publish and consume round trips on a real server: protobuf payloads, Nats-Msg-Id dedupe,
// bounded in-flight handlers, manual acks, lag passthroughs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RolloutRequestSchema, type RolloutRequest } from '@owrl/proto';
import { BusErrorCode, CONSUMER_ACTORS, ensureTopology, isBusError, STREAM_TASKS, taskSubject, type Delivery } from '../src/index.js';
import { deferred, rollout, startSuite, until, within, type Suite } from './harness.js';

void describe('publish + consume', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite('publish-consume-test');
    await ensureTopology(s.bus);
  });
  after(async () => {
    await s.close();
  });

  void it('round-trips a RolloutRequest and deduplicates a republished msgId', async () => {
    const req = rollout('run-a', 0);
    const first = await s.bus.publish(taskSubject('run-a'), RolloutRequestSchema, req, { msgId: req.trajectoryId });
    const again = await s.bus.publish(taskSubject('run-a'), RolloutRequestSchema, req, { msgId: req.trajectoryId });
    assert.deepEqual([first.duplicate, again.duplicate, again.seq], [false, true, first.seq]);
    assert.equal((await s.bus.streamInfo(STREAM_TASKS)).state.messages, 1);

    const got: Array<Delivery<RolloutRequest>> = [];
    const one = deferred();
    const h = await s.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 2,
      pullExpiresMs: 1000,
      handler: (d) => {
        got.push(d);
        one.resolve();
      },
    });
    await within(one.promise, 5000, 'delivery');
    await h.stop();
    assert.equal(got.length, 1, 'delivered once');
    const d = got[0] as Delivery<RolloutRequest>;
    assert.equal(d.value.trajectoryId, 'run-a/1/0/0/0');
    assert.equal(d.value.task?.instruction, 'buy a lamp');
    assert.equal(d.value.round, 1n);
    assert.equal(d.value.schemaVersion, 1);
    assert.deepEqual([d.subject, d.seq, d.deliveryCount, d.msgId, d.settled], ['owrl.tasks.run-a', first.seq, 1, req.trajectoryId, true]);
    // auto-acked with a confirmed ack: a work queue drops it
    assert.equal((await s.bus.streamInfo(STREAM_TASKS)).state.messages, 0);
    assert.deepEqual(await s.bus.consumerLag(STREAM_TASKS, CONSUMER_ACTORS), { numPending: 0, numAckPending: 0, numRedelivered: 0, numWaiting: 0 });
    assert.equal(h.stats.handled, 1);
  });

  void it('never runs more than maxInFlight handlers and handles every message once', async () => {
    const n = 9;
    for (let i = 0; i < n; i++) {
      const r = rollout('run-b', i);
      await s.bus.publish(taskSubject('run-b'), RolloutRequestSchema, r, { msgId: r.trajectoryId });
    }
    let running = 0;
    let peak = 0;
    const seen: string[] = [];
    const all = deferred();
    // Handlers hold until three run at once (the event this test is about, not a guessed work time:
    // if the consumer never ran three together, the test times out below), then stay in flight for
    // a window in which a fourth would start if maxInFlight were not kept (an absence check).
    const three = deferred();
    const HOLD_MS = 40;
    const h = await s.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 3,
      pullExpiresMs: 1000,
      handler: async (d) => {
        running++;
        peak = Math.max(peak, running);
        if (running === 3) three.resolve();
        await three.promise;
        await new Promise((r) => setTimeout(r, HOLD_MS));
        seen.push(d.value.trajectoryId);
        running--;
        if (seen.length === n) all.resolve();
      },
    });
    await within(all.promise, 10_000, 'all messages');
    await h.stop();
    assert.equal(peak, 3);
    assert.deepEqual([...seen].sort(), Array.from({ length: n }, (_, i) => `run-b/1/0/${i}/0`).sort());
    const lag = await s.bus.consumerLag(STREAM_TASKS, CONSUMER_ACTORS);
    assert.deepEqual([lag.numPending, lag.numAckPending], [0, 0]);
  });

  void it('with maxMessages takes exactly that many, stops by itself once they are done, and leaves the rest queued', async () => {
    const n = 5;
    for (let i = 0; i < n; i++) {
      const r = rollout('run-m', i);
      await s.bus.publish(taskSubject('run-m'), RolloutRequestSchema, r, { msgId: r.trajectoryId });
    }
    const seen: string[] = [];
    const h = await s.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 2,
      maxMessages: 3,
      pullExpiresMs: 1000,
      handler: async (d) => {
        await new Promise((r) => setTimeout(r, 30)); // some work: the handler is in flight a while, as an episode is
        seen.push(d.value.trajectoryId);
      },
    });
    // No stop(): the consumer ends on its own after the third message is handled and acked.
    await within(h.closed, 10_000, 'closed after 3 messages');
    assert.equal(seen.length, 3);
    assert.equal(h.stats.handled, 3);
    const lag = await s.bus.consumerLag(STREAM_TASKS, CONSUMER_ACTORS);
    assert.deepEqual([lag.numPending, lag.numAckPending, lag.numRedelivered], [2, 0, 0], 'two left for other consumers, none taken and held');
    // The two left are served by the next consumer, none twice.
    const rest: string[] = [];
    const two = deferred();
    const h2 = await s.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 2,
      pullExpiresMs: 1000,
      handler: (d) => {
        rest.push(d.value.trajectoryId);
        if (rest.length === 2) two.resolve();
      },
    });
    await within(two.promise, 5000, 'the remaining two');
    await h2.stop();
    assert.deepEqual([...seen, ...rest].sort(), Array.from({ length: n }, (_, i) => `run-m/1/0/${i}/0`).sort());
    await assert.rejects(
      s.bus.consume({ stream: STREAM_TASKS, consumer: CONSUMER_ACTORS, schema: RolloutRequestSchema, maxInFlight: 1, maxMessages: 0, handler: () => {} }),
      (e: unknown) => isBusError(e, BusErrorCode.InvalidArgument) && e.message.includes('maxMessages=0'),
    );
  });

  void it('with autoAck off leaves the ack to the caller (learner-style)', async () => {
    const r = rollout('run-c', 0);
    await s.bus.publish(taskSubject('run-c'), RolloutRequestSchema, r, { msgId: r.trajectoryId });
    const held = deferred<Delivery<RolloutRequest>>();
    const h = await s.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 1,
      autoAck: false,
      pullExpiresMs: 1000,
      handler: (d) => held.resolve(d),
    });
    const d = await within(held.promise, 5000, 'delivery');
    assert.equal(d.settled, false);
    assert.equal((await s.bus.consumerLag(STREAM_TASKS, CONSUMER_ACTORS)).numAckPending, 1);
    await d.ack();
    assert.equal((await s.bus.consumerLag(STREAM_TASKS, CONSUMER_ACTORS)).numAckPending, 0);
    await h.stop();
  });

  void it('with confirmAcks off acks without waiting for the server, and stop() leaves every ack with the server', async () => {
    const n = 4;
    for (let i = 0; i < n; i++) {
      const r = rollout('run-p', i);
      await s.bus.publish(taskSubject('run-p'), RolloutRequestSchema, r, { msgId: r.trajectoryId });
    }
    const seen: string[] = [];
    const manual: Array<Delivery<RolloutRequest>> = [];
    const all = deferred();
    const h = await s.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 2,
      pullExpiresMs: 1000,
      confirmAcks: false,
      // Half acked by the handler (settled at once), half by the consumer's auto-ack.
      handler: async (d) => {
        seen.push(d.value.trajectoryId);
        if (seen.length % 2 === 0) {
          await d.ack();
          assert.equal(d.settled, true);
          manual.push(d);
        }
        if (seen.length === n) all.resolve();
      },
    });
    await within(all.promise, 10_000, 'all messages');
    await h.stop();
    assert.equal(manual.length, n / 2);
    // The server applies acks off its read loop: it gets a moment, never a redelivery.
    let lag = await s.bus.consumerLag(STREAM_TASKS, CONSUMER_ACTORS);
    await until(async () => {
      lag = await s.bus.consumerLag(STREAM_TASKS, CONSUMER_ACTORS);
      return lag.numAckPending === 0 && lag.numPending === 0;
    }, 5000, 'the acks applied', 50);
    assert.deepEqual([lag.numPending, lag.numAckPending, lag.numRedelivered], [0, 0, 0]);
    assert.equal((await s.bus.streamInfo(STREAM_TASKS)).state.messages, 0, 'a work queue drops what is acked');
    assert.deepEqual([...seen].sort(), Array.from({ length: n }, (_, i) => `run-p/1/0/${i}/0`).sort());
  });

  void it('stops on abort and rejects bad options and unknown consumers clearly', async () => {
    const ac = new AbortController();
    const h = await s.bus.consume({ stream: STREAM_TASKS, consumer: CONSUMER_ACTORS, schema: RolloutRequestSchema, maxInFlight: 1, pullExpiresMs: 1000, handler: () => {}, signal: ac.signal });
    ac.abort();
    await within(h.closed, 5000, 'closed after abort');
    await assert.rejects(
      s.bus.consume({ stream: STREAM_TASKS, consumer: 'nobody', schema: RolloutRequestSchema, maxInFlight: 1, handler: () => {} }),
      (e: unknown) => isBusError(e, BusErrorCode.NotFound) && e.message.includes('OWRL_TASKS/nobody'),
    );
    await assert.rejects(
      s.bus.consume({ stream: STREAM_TASKS, consumer: CONSUMER_ACTORS, schema: RolloutRequestSchema, maxInFlight: 0, handler: () => {} }),
      (e: unknown) => isBusError(e, BusErrorCode.InvalidArgument) && e.message.includes('maxInFlight=0'),
    );
    await assert.rejects(
      s.bus.consume({ stream: STREAM_TASKS, consumer: CONSUMER_ACTORS, schema: RolloutRequestSchema, maxInFlight: 1, workingIntervalMs: 60_000, handler: () => {} }),
      (e: unknown) => isBusError(e, BusErrorCode.InvalidArgument) && /workingIntervalMs=60000 must be below the ack_wait \(60000 ms\)/.test(e.message),
    );
    await assert.rejects(
      s.bus.publish('nowhere.at.all', RolloutRequestSchema, rollout('x', 0), { msgId: 'm' }),
      (e: unknown) => isBusError(e, BusErrorCode.NoStream),
    );
    await assert.rejects(
      s.bus.publish(taskSubject('x'), RolloutRequestSchema, rollout('x', 0), { msgId: '' }),
      (e: unknown) => isBusError(e, BusErrorCode.InvalidArgument) && e.message.includes('msgId'),
    );
  });
});
