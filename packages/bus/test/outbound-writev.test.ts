// The NATS client's flush with its pieces written corked (src/outbound-writev.ts): over a real
// nats-server, a large publish reaches the socket as the caller's own payload buffer (not a copy),
// in one corked write with its PUB line and CRLF; small flushes go out as the client packs them;
// and messages of every size, with and without headers, arrive whole and in order.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { startNatsServer, type NatsServer } from '@owrl/testkit';
import { connectBus, type Bus } from '../src/index.js';
import { WRITEV_MIN } from '../src/outbound-writev.js';

/** The socket under a bus's connection (nats-core 3.x: nc.protocol.transport.socket). */
function socketOf(bus: Bus): Socket {
  const socket = (bus.nc as unknown as { protocol?: { transport?: { socket?: Socket } } }).protocol?.transport?.socket;
  assert.ok(socket && typeof socket.write === 'function' && typeof socket.cork === 'function', 'the client keeps its socket at nc.protocol.transport.socket');
  return socket;
}

/** Records every socket.write and whether the socket was corked at the time. */
function recordWrites(socket: Socket): { writes: Array<{ chunk: Uint8Array; corked: boolean }>; stop: () => void } {
  const writes: Array<{ chunk: Uint8Array; corked: boolean }> = [];
  const write = socket.write.bind(socket) as (...a: unknown[]) => boolean;
  socket.write = ((chunk: Uint8Array, ...rest: unknown[]) => {
    writes.push({ chunk, corked: socket.writableCorked > 0 });
    return write(chunk, ...rest);
  }) as typeof socket.write;
  return { writes, stop: () => void (socket.write = write as typeof socket.write) };
}

void describe('outbound writev', () => {
  let nats: NatsServer;
  let bus: Bus;
  before(async () => {
    nats = await startNatsServer({ maxPayload: 8 * 1024 * 1024 });
    bus = await connectBus({ servers: nats.url, name: 'outbound-writev-test' });
  });
  after(async () => {
    await bus?.close();
    await nats?.dispose();
  });

  void it('a large publish goes to the socket as the payload itself, corked with its PUB line and CRLF', async () => {
    const socket = socketOf(bus);
    const payload = randomBytes(60_000);
    const sub = bus.nc.subscribe('writev.big', { max: 1 });
    await bus.nc.flush();
    const rec = recordWrites(socket);
    try {
      bus.nc.publish('writev.big', payload);
      await bus.nc.flush();
    } finally {
      rec.stop();
    }
    const mine = rec.writes.find((w) => w.chunk === payload);
    assert.ok(mine, `the payload buffer itself was written (writes: ${rec.writes.map((w) => w.chunk.length).join(', ')})`);
    assert.ok(mine.corked, 'while the socket was corked');
    const i = rec.writes.indexOf(mine);
    assert.match(Buffer.from(rec.writes[i - 1]?.chunk ?? []).toString(), /^PUB writev\.big 60000\r\n$/);
    assert.equal(Buffer.from(rec.writes[i + 1]?.chunk ?? []).toString(), '\r\n');
    for await (const m of sub) assert.deepEqual(Buffer.from(m.data), payload);
  });

  void it('a small flush is packed into one write, as the client does', async () => {
    const socket = socketOf(bus);
    const small = randomBytes(WRITEV_MIN / 4);
    const rec = recordWrites(socket);
    try {
      bus.nc.publish('writev.small', small);
      await bus.nc.flush();
    } finally {
      rec.stop();
    }
    const withSmall = rec.writes.filter((w) => Buffer.from(w.chunk).includes(small));
    assert.equal(withSmall.length, 1);
    assert.notEqual(withSmall[0]?.chunk, small, 'a copy: PUB line, payload and CRLF in one buffer');
    assert.equal(withSmall[0]?.corked, false);
  });

  void it('messages of 1 byte to 3 MB, with and without headers, back to back, arrive whole and in order', async () => {
    const sizes = [1, WRITEV_MIN - 1, WRITEV_MIN, 60_000, 17, 200_000, 3 * 1024 * 1024, 5, 65_537];
    const sent = sizes.map((n) => randomBytes(n));
    const sub = bus.nc.subscribe('writev.order', { max: sent.length });
    for (const [k, m] of sent.entries()) {
      if (k % 2 === 0) bus.nc.publish('writev.order', m);
      else {
        const h = natsHeaders();
        h.set('Nats-Msg-Id', `m-${k}`);
        bus.nc.publish('writev.order', m, { headers: h });
      }
    }
    const got: Array<{ data: Buffer; id: string | undefined }> = [];
    for await (const m of sub) got.push({ data: Buffer.from(m.data), id: m.headers?.get('Nats-Msg-Id') });
    assert.equal(got.length, sent.length);
    for (const [k, m] of sent.entries()) {
      assert.deepEqual(got[k]?.data, m, `message ${k} (${sizes[k]} bytes)`);
      assert.equal(got[k]?.id || undefined, k % 2 === 0 ? undefined : `m-${k}`);
    }
  });
});
