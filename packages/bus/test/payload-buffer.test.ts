// The NATS client's parser with payload buffers sized once (src/payload-buffer.ts): a payload
// spanning socket reads is handed on byte for byte, held in one buffer of its own size from its
// first fragment on; and over a real nats-server, messages larger than a socket read arrive whole.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Kind, Parser, type ParserEvent } from '@nats-io/nats-core/internal';
import type { NatsServer } from '@owrl/nats-server';
import { startNatsServer } from './harness.js';
import { connectBus, type Bus } from '../src/index.js';
import { installPayloadBuffers } from '../src/payload-buffer.js';

installPayloadBuffers();

const te = new TextEncoder();

/** A parser whose messages land in `got`. */
function parser(): { p: Parser; got: Uint8Array[] } {
  const got: Uint8Array[] = [];
  const p = new Parser({
    push: (e) => {
      const ev = e as ParserEvent;
      if (ev.kind === Kind.MSG && ev.data) got.push(ev.data.slice());
    },
  });
  return { p, got };
}

void describe('payload buffer', () => {
  void it('a payload split over reads is handed on whole, in one buffer of its size from the first fragment', () => {
    const payload = randomBytes(60_000);
    const wire = Buffer.concat([te.encode(`MSG owrl.traj.x 7 ${payload.length}\r\n`), payload, te.encode('\r\nPING\r\n')]);
    const { p, got } = parser();
    // Cut as a socket would: the first read ends 1000 bytes into the payload, the rest in 4 pieces.
    const head = wire.length - payload.length - 8 + 1000;
    p.parse(wire.subarray(0, head));
    assert.equal(p.msgBuf?.capacity, payload.length, 'the buffer is made the payload size at once');
    const cuts = [head, head + 15_000, head + 30_000, head + 50_000, wire.length];
    for (let i = 0; i + 1 < cuts.length; i++) {
      p.parse(wire.subarray(cuts[i], cuts[i + 1]));
      if (p.msgBuf) assert.equal(p.msgBuf.capacity, payload.length, 'and never grows');
    }
    assert.equal(got.length, 1);
    assert.deepEqual(Buffer.from(got[0] as Uint8Array), payload);
  });

  void it('a message with headers, a read ending where its payload starts, and one byte at a time', () => {
    const body = randomBytes(5000);
    const hdr = te.encode('NATS/1.0\r\nNats-Msg-Id: t-1\r\n\r\n');
    const total = hdr.length + body.length;
    const msg = Buffer.concat([te.encode(`HMSG owrl.scored.r 3 _INBOX.x ${hdr.length} ${total}\r\n`), hdr, body, te.encode('\r\n')]);
    const start = msg.length - total - 2;
    const { p, got } = parser();
    p.parse(msg.subarray(0, start));
    p.parse(msg.subarray(start, start + 1));
    assert.equal(p.msgBuf?.capacity, total);
    for (let i = start + 1; i < msg.length; i += i < start + 100 ? 1 : 997) p.parse(msg.subarray(i, Math.min(msg.length, i + (i < start + 100 ? 1 : 997))));
    assert.equal(got.length, 1);
    assert.deepEqual(Buffer.from(got[0] as Uint8Array), Buffer.concat([hdr, body]));
  });

  void describe('over a real nats-server', () => {
    let nats: NatsServer;
    let bus: Bus;
    before(async () => {
      nats = await startNatsServer({ maxPayload: 8 * 1024 * 1024 });
      bus = await connectBus({ servers: nats.url, name: 'payload-buffer-test' });
    });
    after(async () => {
      await bus?.close();
      await nats?.dispose();
    });

    void it('messages of 1 byte to 3 MB, back to back, arrive whole and in order', async () => {
      const sizes = [1, 60_000, 65_536, 65_537, 200_000, 3 * 1024 * 1024, 17, 60_000];
      const sent = sizes.map((n) => randomBytes(n));
      const sub = bus.nc.subscribe('payload.test', { max: sent.length });
      for (const m of sent) bus.nc.publish('payload.test', m);
      const got: Buffer[] = [];
      for await (const m of sub) got.push(Buffer.from(m.data));
      assert.equal(got.length, sent.length);
      for (const [i, m] of sent.entries()) assert.ok(m.equals(got[i] as Buffer), `message ${i} (${sizes[i]} bytes) arrived as sent`);
    });
  });
});
