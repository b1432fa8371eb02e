// The NATS client's flush with its pieces written corked (src/outbound-writev.ts): over a real
// nats-server, a large publish reaches the socket as the caller's own payload buffer (not a copy),
// in one corked write with its PUB line and CRLF; small flushes go out as the client packs them;
// and messages of every size, with and without headers, arrive whole and in order.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { headers as natsHeaders } from '@nats-io/nats-core';
import type { Bus } from '../src/index.js';
import { WRITEV_MIN } from '../src/outbound-writev.js';
import { startSuite, type Suite } from './harness.js';

/** The socket under a bus's connection (nats-core 3.x: nc.protocol.transport.socket). */
function socketOf(bus: Bus): Socket {
  const socket = (bus.nc as unknown as { protocol?: { transport?: { socket?: Socket } } }).protocol?.transport?.socket;
  assert.ok(socket && typeof socket.write === 'function' && typeof socket.cork === 'function', 'the client keeps its socket at nc.protocol.transport.socket');
  return socket;
}

/** Every socket.write made while `send` publishes and flushes, and whether the socket was corked at the time. */
async function writesDuring(bus: Bus, send: () => void): Promise<Array<{ chunk: Uint8Array; corked: boolean }>> {
  const socket = socketOf(bus);
  const writes: Array<{ chunk: Uint8Array; corked: boolean }> = [];
  const write = socket.write.bind(socket) as (...a: unknown[]) => boolean;
  socket.write = ((chunk: Uint8Array, ...rest: unknown[]) => {
    writes.push({ chunk, corked: socket.writableCorked > 0 });
    return write(chunk, ...rest);
  }) as typeof socket.write;
  try {
    send();
    await bus.nc.flush();
  } finally {
    socket.write = write as typeof socket.write;
  }
  return writes;
}

void describe('outbound writev', () => {
  let s: Suite;
  let bus: Bus;
  before(async () => {
    s = await startSuite('outbound-writev-test', { maxPayload: 8 * 1024 * 1024 });
    bus = s.bus;
  });
  after(async () => {
    await s?.close();
  });

  void it('a large publish goes to the socket as the payload itself, corked with its PUB line and CRLF', async () => {
    const payload = randomBytes(60_000);
    const sub = bus.nc.subscribe('writev.big', { max: 1 });
    await bus.nc.flush();
    const writes = await writesDuring(bus, () => bus.nc.publish('writev.big', payload));
    const mine = writes.find((w) => w.chunk === payload);
    assert.ok(mine, `the payload buffer itself was written (writes: ${writes.map((w) => w.chunk.length).join(', ')})`);
    assert.ok(mine.corked, 'while the socket was corked');
    const i = writes.indexOf(mine);
    assert.match(Buffer.from(writes[i - 1]?.chunk ?? []).toString(), /^PUB writev\.big 60000\r\n$/);
    assert.equal(Buffer.from(writes[i + 1]?.chunk ?? []).toString(), '\r\n');
    for await (const m of sub) assert.deepEqual(Buffer.from(m.data), payload);
  });

  void it('a small flush is packed into one write, as the client does', async () => {
    const small = randomBytes(WRITEV_MIN / 4);
    const writes = await writesDuring(bus, () => bus.nc.publish('writev.small', small));
    const withSmall = writes.filter((w) => Buffer.from(w.chunk).includes(small));
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
