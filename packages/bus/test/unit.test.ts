// Pure parts of the bus: subject helpers, topology resolution, nak backoff, KV key encoding,
// dead-letter headers, publish error mapping and the throttle of Delivery.working(). No server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JetStreamApiError, type JsMsg } from '@nats-io/jetstream';
import { headers, RequestError, NoRespondersError, TimeoutError } from '@nats-io/nats-core';
import {
  BusError,
  BusErrorCode,
  CONSUMER_ACTORS,
  CONSUMER_LEARNER,
  deadLetterHeaders,
  decodeKvKey,
  dlqKindForStream,
  dlqSubject,
  DlqHeader,
  DlqReason,
  encodeKvKey,
  isBrokerUnavailable,
  isBusError,
  isEntryBlocking,
  nakDelayMs,
  resolveTopology,
  scoredSubject,
  STREAM_DLQ,
  STREAM_TASKS,
  taskSubject,
  trajSubject,
} from '../src/index.js';
import { publishError } from '../src/publish.js';
import type { BusContext } from '../src/context.js';
import { DeliveryImpl, type DeliveryDeps } from '../src/delivery.js';
import { configDiff } from '../src/jsm-ensure.js';

void describe('subject helpers', () => {
  void it('builds the subjects of a run', () => {
    assert.equal(taskSubject('run-1'), 'owrl.tasks.run-1');
    assert.equal(trajSubject('run_2'), 'owrl.traj.run_2');
    assert.equal(scoredSubject('R3'), 'owrl.scored.R3');
    assert.equal(dlqSubject('tasks'), 'owrl.dlq.tasks');
  });

  for (const bad of ['a.b', 'a b', '*', '>', 'a*', '', 'x'.repeat(129), 'tab\t']) {
    void it(`rejects run id ${JSON.stringify(bad)} naming the field and value`, () => {
      assert.throws(
        () => taskSubject(bad),
        (e: unknown) => isBusError(e, BusErrorCode.InvalidArgument) && e.message.includes('runId') && e.message.includes(JSON.stringify(bad)),
      );
    });
  }

  void it('derives DLQ kinds from stream names', () => {
    assert.equal(dlqKindForStream('OWRL_TASKS'), 'tasks');
    assert.equal(dlqKindForStream('OWRL_SCORED'), 'scored');
    assert.equal(dlqKindForStream('Other.Stream'), 'other_stream');
  });
});

void describe('resolveTopology', () => {
  void it('has the defaults of docs/design.md §4', () => {
    const t = resolveTopology();
    const tasks = t.streams.find((s) => s.name === STREAM_TASKS);
    assert.deepEqual(
      { retention: tasks?.retention, discard: tasks?.discard, storage: tasks?.storage, max_msgs: tasks?.max_msgs, dup: tasks?.duplicate_window },
      { retention: 'workqueue', discard: 'new', storage: 'file', max_msgs: 100_000, dup: 120e9 },
    );
    const actors = t.consumers.find((c) => c.config.durable_name === CONSUMER_ACTORS);
    assert.deepEqual(
      { ack: actors?.config.ack_policy, wait: actors?.config.ack_wait, md: actors?.config.max_deliver, map: actors?.config.max_ack_pending },
      { ack: 'explicit', wait: 60e9, md: 4, map: 256 },
    );
    const learner = t.consumers.find((c) => c.config.durable_name === CONSUMER_LEARNER);
    assert.equal(learner?.config.ack_wait, 30 * 60e9);
    assert.equal(learner?.config.max_ack_pending, 20_000);
    assert.equal(t.streams.find((s) => s.name === STREAM_DLQ)?.retention, 'limits');
    assert.deepEqual(
      t.buckets.map((b) => [b.bucket, b.history, b.ttlMs]),
      [
        ['owrl_weights', 5, 0],
        ['owrl_blacklist', 1, 3_600_000],
        ['owrl_actors', 1, 30_000],
      ],
    );
  });

  void it('rejects bad options naming them', () => {
    assert.throws(() => resolveTopology({ tasksMaxMsgs: 0 }), /tasksMaxMsgs=0/);
    assert.throws(() => resolveTopology({ actorsAckWaitMs: 1.5 }), /actorsAckWaitMs=1.5/);
    assert.throws(() => resolveTopology({ storage: 'disk' as 'file' }), /storage="disk"/);
  });
});

void describe('nakDelayMs', () => {
  void it('follows the schedule and repeats its last step', () => {
    const s = [100, 200, 400];
    assert.deepEqual([1, 2, 3, 4, 9].map((n) => nakDelayMs(n, s)), [100, 200, 400, 400, 400]);
    assert.equal(nakDelayMs(0, s), 100);
    assert.equal(nakDelayMs(3, []), 0);
  });
});

void describe('KV key encoding', () => {
  const cases = ['example.com', 'Example.COM:8080', '[::1]:3000', 'a_b', 'münchen.de', '.lead', 'trail.', 'a..b', 'x/y=z', ' sp '];
  for (const raw of cases) {
    void it(`round-trips ${JSON.stringify(raw)} through a valid key`, () => {
      const k = encodeKvKey('host', raw);
      assert.match(k, /^[-\w.]+$/);
      assert.ok(!k.startsWith('.') && !k.endsWith('.') && !k.includes('..'), k);
      assert.equal(decodeKvKey(k), raw);
    });
  }
  void it('keeps plain hosts readable', () => {
    assert.equal(encodeKvKey('host', 'example.com:8080'), 'example.com_3a8080');
  });
  void it('rejects empty keys and malformed escapes', () => {
    assert.throws(() => encodeKvKey('host', ''), (e: unknown) => isBusError(e, BusErrorCode.InvalidArgument) && /host ""/.test(e.message));
    assert.throws(() => decodeKvKey('a_zz'), /malformed escape/);
  });
});

void describe('dead-letter headers', () => {
  void it('carries reason and origin, keeps the original id, drops Nats-* headers, stays one line', () => {
    const h = headers();
    h.set('Nats-Msg-Id', 'run/1/0/0/0');
    h.set('Nats-Expected-Stream', 'X');
    h.set('Trace', 'abc');
    const out = deadLetterHeaders({
      reason: DlqReason.HandlerFailed,
      detail: 'boom\r\nsecond line',
      stream: 'OWRL_TASKS',
      consumer: 'actors',
      subject: 'owrl.tasks.r',
      seq: 7,
      deliveries: 4,
      data: new Uint8Array(),
      headers: h,
    });
    assert.deepEqual(out, {
      Trace: 'abc',
      [DlqHeader.MsgId]: 'run/1/0/0/0',
      [DlqHeader.Reason]: 'handler_failed',
      [DlqHeader.Detail]: 'boom second line',
      [DlqHeader.Stream]: 'OWRL_TASKS',
      [DlqHeader.Consumer]: 'actors',
      [DlqHeader.Subject]: 'owrl.tasks.r',
      [DlqHeader.Seq]: '7',
      [DlqHeader.Deliveries]: '4',
    });
  });
});

void describe('publish error mapping', () => {
  void it('maps a full stream to BUS_PUBLISH_REFUSED', () => {
    const e = publishError('owrl.tasks.r', new JetStreamApiError({ code: 503, err_code: 10077, description: 'maximum messages exceeded' }));
    assert.equal(e.code, BusErrorCode.PublishRefused);
    assert.match(e.message, /owrl\.tasks\.r/);
  });
  void it('maps other API errors to BUS_PUBLISH_FAILED with the code', () => {
    const e = publishError('s', new JetStreamApiError({ code: 400, err_code: 10999, description: 'odd' }));
    assert.equal(e.code, BusErrorCode.PublishFailed);
    assert.match(e.message, /10999/);
  });
});

void describe('configDiff and blacklist expiry', () => {
  void it('compares only desired keys, subjects as sets', () => {
    assert.deepEqual(configDiff({ a: 1, subjects: ['x', 'y'], b: 2 }, { a: 1, subjects: ['y', 'x'] }), []);
    assert.deepEqual(configDiff({ a: 1, b: 2 }, { a: 2, b: 2 }), ['a']);
  });
  void it('treats expired entries as not blocking', () => {
    assert.equal(isEntryBlocking({ reason: 'bot_wall', failures: 3, untilMs: 2000 }, 1999), true);
    assert.equal(isEntryBlocking({ reason: 'bot_wall', failures: 3, untilMs: 2000 }, 2000), false);
    assert.equal(isEntryBlocking(null, 0), false);
  });
});

/** The client's JetStreamNotEnabled (thrown by jetstreamManager() against a server without JetStream; the class is not exported). */
const jetStreamNotEnabled = (): Error => Object.assign(new Error('jetstream is not enabled'), { name: 'JetStreamNotEnabled' });

void describe('isBrokerUnavailable', () => {
  void it('is true for a broker that is down, restarting or whose JetStream is not ready, through cause chains', () => {
    const wrapped = (cause: Error) => new BusError(BusErrorCode.ApiFailed, 'kv open failed', { cause: new Error('open owrl_actors', { cause }) });
    for (const e of [
      new TimeoutError(),
      new RequestError('no responders', { cause: new NoRespondersError('$JS.API.INFO') }),
      jetStreamNotEnabled(),
      new JetStreamApiError({ code: 503, err_code: 10039, description: 'jetstream not enabled for account' }),
      new JetStreamApiError({ code: 503, err_code: 10008, description: 'jetstream temporarily unavailable' }),
      new BusError(BusErrorCode.ConnectFailed, 'JetStream is not available', { cause: jetStreamNotEnabled() }),
      wrapped(new TimeoutError()),
    ]) {
      assert.equal(isBrokerUnavailable(e), true, `${e.name}: ${e.message}`);
    }
  });

  void it('is false for what waiting does not cure', () => {
    for (const e of [
      new Error('chromium not found'),
      new BusError(BusErrorCode.AuthFailed, 'refused', { cause: new TimeoutError() }),
      new BusError(BusErrorCode.TopologyConflict, 'retention differs'),
      // A full stream answers 503 as well; it is backpressure, not an absent broker.
      new BusError(BusErrorCode.PublishRefused, 'full', { cause: new JetStreamApiError({ code: 503, err_code: 10077, description: 'maximum messages exceeded' }) }),
      new JetStreamApiError({ code: 404, err_code: 10014, description: 'consumer not found' }),
      'a string',
      undefined,
    ]) {
      assert.equal(isBrokerUnavailable(e), false, String(e));
    }
  });
});

void describe('Delivery.working()', () => {
  // A stand-in for the delivered message that counts the working() signals sent to the server.
  const delivered = () => {
    const m = { sent: 0, data: new Uint8Array([1, 2, 3]), working: () => void m.sent++ };
    return m;
  };
  const deps = (workingMinGapMs: number): DeliveryDeps => ({ ctx: {} as BusContext, consumer: 'c', termReasons: false, ackTimeoutMs: 1000, workingMinGapMs });

  void it('is not sent again within the gap of the delivery (an actor calls it every step)', () => {
    const m = delivered();
    const d = new DeliveryImpl('v', m as unknown as JsMsg, deps(3_600_000));
    for (let i = 0; i < 50; i++) d.working();
    assert.equal(m.sent, 0);
    assert.deepEqual(d.data, new Uint8Array([1, 2, 3]));
  });

  void it('is sent on every call without a gap, and never after the message is settled', () => {
    const m = delivered();
    const d = new DeliveryImpl('v', m as unknown as JsMsg, deps(0));
    for (let i = 0; i < 5; i++) d.working();
    assert.equal(m.sent, 5);
    (m as unknown as { nak: () => void }).nak = () => {};
    d.nak();
    d.working();
    assert.equal(m.sent, 5);
  });
});
