// watchRedeliveries against a real nats-server: a message whose ack_wait expires is redelivered
// and reported even when it is acked before anyone reads the consumer info (whose
// num_redelivered is back to 0 by then), and a message acked on its first delivery is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { parseAckSubject, startNatsServer, waitUntil, watchRedeliveries } from '../src/index.js';

void test('parseAckSubject reads both ack subject forms and rejects other consumers', () => {
  assert.deepEqual(parseAckSubject('$JS.ACK.TASKS.actors.2.17.40.1700000000000000000.3', 'TASKS', 'actors'), { delivered: 2, streamSeq: 17 });
  assert.deepEqual(parseAckSubject('$JS.ACK.hub.ACCHASH.TASKS.actors.3.9.12.1700000000000000000.0.tok', 'TASKS', 'actors'), { delivered: 3, streamSeq: 9 });
  assert.equal(parseAckSubject('$JS.ACK.TASKS.judge.2.17.40.1700000000000000000.3', 'TASKS', 'actors'), undefined);
  assert.equal(parseAckSubject('$JS.ACK.TASKS.actors.x.17.40.1.3', 'TASKS', 'actors'), undefined);
  assert.equal(parseAckSubject('owrl.tasks.run', 'TASKS', 'actors'), undefined);
});

void test('a redelivery is counted even when it is acked before the consumer info is read', async () => {
  const nats = await startNatsServer();
  const nc = await connect({ servers: nats.url });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'TASKS', subjects: ['tasks'] });
    await jsm.consumers.add('TASKS', { durable_name: 'actors', ack_policy: AckPolicy.Explicit, ack_wait: 1e9 });
    const watch = watchRedeliveries(nc, 'TASKS', 'actors');
    const js = jetstream(nc);
    const first = await js.publish('tasks', 'acked at once');
    const second = await js.publish('tasks', 'held by a worker that dies');
    const c = await js.consumers.get('TASKS', 'actors');
    const before = Date.now();
    // A worker takes both, acks the first and "dies" holding the second.
    const a = await c.next({ expires: 5000 });
    assert.equal(a?.seq, first.seq);
    await a!.ackAck();
    const b = await c.next({ expires: 5000 });
    assert.equal(b?.seq, second.seq);
    // After the ack_wait the second comes back; another worker acks it.
    const again = await c.next({ expires: 5000 });
    assert.equal(again?.seq, second.seq);
    assert.equal(again?.info.deliveryCount, 2);
    await again!.ackAck();
    // The server forgot the redelivery with the ack: the consumer info cannot show it.
    assert.equal((await jsm.consumers.info('TASKS', 'actors')).num_redelivered, 0);
    const seqs = await waitUntil('the redelivery reported', () => {
      const s = watch.redeliveredSince(before);
      return s.length > 0 ? s : undefined;
    }, { timeoutMs: 5000, intervalMs: 20 });
    assert.deepEqual(seqs, [second.seq]);
    assert.ok(watch.seen >= 2, `acks seen: ${watch.seen}`);
    assert.deepEqual(watch.redeliveredSince(Date.now() + 1000), [], 'none reported after a later mark');
    watch.close();
  } finally {
    await nc.close();
    await nats.dispose();
  }
});
