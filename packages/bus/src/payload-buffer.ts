// One buffer per message that spans socket reads, sized once.
//
// The NATS client's parser (@nats-io/nats-core 3.x) collects a message whose payload does not fit
// in the socket read it started in (every trajectory of a few tens of KB: Node reads 64 KB at a
// time) into a buffer made from the first fragment alone, then grows it on the next fragment to
// twice its capacity plus the fragment: a fresh zero-filled allocation of up to three times the
// message, and another copy. On the bus bench (60 KB trajectories) that allocation was 11 % of the
// learner's CPU and the buffer's copies 6 % more; a large allocation is also the kind the C
// allocator maps and unmaps from the kernel (the run's high system time). The parser knows the
// payload's size when the message begins; with the buffer made that size at once, each byte is
// copied into it once and nothing grows.
//
// Installed once per process by connectBus (every owrl connection, the benches' raw JetStream
// clients included): after each parse of a read that ends inside a payload, the parser's new
// payload buffer is replaced by one of the payload's full size holding the same bytes. The bytes
// the parser hands on are the same; only where they are kept changes. Checked against the client
// version by `payload buffer` tests (a parser whose fields moved fails them).
import { DenoBuffer, Parser, State } from '@nats-io/nats-core/internal';

let installed = false;

/** A buffer of capacity `size` holding `content` (which is at most `size` bytes). */
function sized(content: Uint8Array, size: number): DenoBuffer {
  // Not zero-filled: every byte is written before the parser hands the payload on.
  const bytes = Buffer.allocUnsafeSlow(size);
  bytes.set(content, 0);
  const b = new DenoBuffer(bytes.buffer);
  b.truncate(content.byteLength);
  return b;
}

/** Makes every Parser of this process size a spanning payload's buffer once (idempotent). */
export function installPayloadBuffers(): void {
  if (installed) return;
  installed = true;
  const parse = Parser.prototype.parse;
  Parser.prototype.parse = function (this: Parser, buf: Uint8Array): void {
    parse.call(this, buf);
    const m = this.msgBuf;
    if (this.state === State.MSG_PAYLOAD && m && m.capacity < this.ma.size) this.msgBuf = sized(m.bytes({ copy: false }), this.ma.size);
  };
}
