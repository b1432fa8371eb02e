// Outbound bytes written as they are, not copied into one buffer first.
//
// The NATS client (@nats-io/nats-core 3.x) queues what a publish sends (the PUB line, the
// headers, the payload, CRLF) in its outbound DataBuffer and, when it flushes, packs every queued
// piece into one new zero-filled buffer before the socket write: each published trajectory (60 KB
// and more) is allocated and copied once more in the process, only to be copied again into the
// kernel. The socket can take the pieces as they are: written while it is corked, Node hands them
// to the kernel in one writev call when it is uncorked.
//
// Installed once per process by connectBus (every owrl connection, the benches' raw JetStream
// clients included): a flush of more than one piece, WRITEV_MIN bytes or more, on a Node socket,
// writes the pieces corked; anything else (a single piece, small flushes, a transport without a
// socket, the client's debug mode) flushes as the client does. The bytes and their order on the
// wire are the same. Checked against the client version by the `outbound writev` tests (a
// ProtocolHandler, DataBuffer or transport whose fields moved fails them).
import type { Socket } from 'node:net';
import { ProtocolHandler } from '@nats-io/nats-core/internal';

/** Flushes smaller than this are packed as the client does (one small copy is cheaper than several writes). */
export const WRITEV_MIN = 16 * 1024;

/** The client's fields the patch reads (nats-core 3.x). */
interface Internals {
  infoReceived: boolean;
  connected: boolean;
  outbound: { buffers: Uint8Array[]; byteLength: number; reset(): void };
  transport: { socket?: Socket; isClosed?: boolean; options?: { debug?: boolean }; send(frame: Uint8Array): void };
}

let installed = false;

/** Makes every ProtocolHandler of this process write a large flush's pieces corked instead of packing them (idempotent). */
export function installOutboundWritev(): void {
  if (installed) return;
  installed = true;
  // A private method of the client's (hence the cast).
  const proto = ProtocolHandler.prototype as unknown as { flushPending(this: ProtocolHandler): void };
  const flushPending = proto.flushPending;
  proto.flushPending = function (this: ProtocolHandler): void {
    const h = this as unknown as Internals;
    const out = h.outbound;
    const t = h.transport;
    const socket = t?.socket;
    if (!h.infoReceived || !h.connected || out.buffers.length < 2 || out.byteLength < WRITEV_MIN || !socket || typeof socket.cork !== 'function' || t.isClosed || t.options?.debug) {
      flushPending.call(this);
      return;
    }
    const pieces = out.buffers.slice();
    out.reset();
    socket.cork();
    try {
      // The transport's own send per piece: its write-error handling is kept.
      for (const p of pieces) t.send(p);
    } finally {
      socket.uncork();
    }
  };
}
