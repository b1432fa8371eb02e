// releaseData(): a consumer holding a delivery unacked for long (the learner, until its round's
// update is checkpointed) lets go of the message's bytes and keeps everything else: its headers,
// its ack. Over a real nats-server; it also checks the NATS client's field it clears, so a client
// version that keeps the bytes elsewhere fails here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RolloutRequestSchema } from '@owrl/proto';
import { BusErrorCode, CONSUMER_ACTORS, ensureTopology, isBusError, STREAM_TASKS, taskSubject, type Delivery } from '../src/index.js';
import { deferred, rollout, sleep, startSuite, within, type Suite } from './harness.js';

const ACK_WAIT_MS = 1500;

/** The bytes the NATS client holds for a delivery (its message's `_rdata`). */
function clientBytes(d: Delivery<unknown>): unknown {
  return (d as unknown as { m: { msg: { _rdata?: unknown } } }).m.msg._rdata;
}

/** The client's message arguments of a delivery: its subject and ack subject as bytes. */
function clientArgs(d: Delivery<unknown>): { subject: Uint8Array; reply: Uint8Array } {
  return (d as unknown as { m: { msg: { _msg: { subject: Uint8Array; reply: Uint8Array } } } }).m.msg._msg;
}

/** Bytes of memory `view` keeps alive beyond its own. */
function beyond(view: Uint8Array): number {
  return view.buffer.byteLength - view.byteLength;
}

void describe('releaseData()', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite('release-data-test');
    await ensureTopology(s.bus, { actorsAckWaitMs: ACK_WAIT_MS });
  });
  after(async () => {
    await s.close();
  });

  void it('drops the bytes, keeps the headers and the ack, and refuses term()', async () => {
    const r = rollout('run-rel', 0);
    await s.bus.publish(taskSubject('run-rel'), RolloutRequestSchema, r, { msgId: r.trajectoryId });
    const got = deferred<Delivery<unknown>>();
    const h = await s.bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 2,
      autoAck: false,
      pullExpiresMs: 1000,
      handler: (d) => {
        got.resolve(d);
        return Promise.resolve();
      },
    });
    try {
      const d = await within(got.promise, 10_000, 'the delivery');
      assert.ok(clientBytes(d) instanceof Uint8Array && d.data.length > 0, 'before: the client holds the bytes');
      const subject = d.subject;
      const reply = (d as unknown as { m: { reply: string } }).m.reply;
      assert.ok(beyond(clientArgs(d).subject) > 0, 'before: the subject is a view of the socket read it came in');
      d.releaseData();
      assert.equal(clientBytes(d), undefined, 'the client no longer holds them');
      // Nor the read they came in: the subject and ack subject are copies of their own bytes.
      const args = clientArgs(d);
      assert.deepEqual([beyond(args.subject), beyond(args.reply)], [0, 0], 'the message arguments keep no socket read alive');
      assert.equal(d.subject, subject);
      assert.equal(Buffer.from(args.reply).toString(), reply);
      assert.equal(d.data.length, 0);
      assert.equal(d.msgId, r.trajectoryId, 'headers still read');
      assert.equal(d.deliveryCount, 1);
      await assert.rejects(d.term('poison'), (e: unknown) => isBusError(e) && e.code === BusErrorCode.InvalidArgument && /after releaseData/.test((e as Error).message));
      assert.equal(d.settled, false, 'a refused term() settles nothing');
      await d.ack();
      // One ack_wait and a little: an ack that did not reach the server would bring it back.
      await sleep(ACK_WAIT_MS + 300);
      const lag = await s.bus.consumerLag(STREAM_TASKS, CONSUMER_ACTORS);
      assert.deepEqual([lag.numRedelivered, lag.numAckPending, lag.numPending], [0, 0, 0]);
    } finally {
      await h.stop();
    }
  });
});
