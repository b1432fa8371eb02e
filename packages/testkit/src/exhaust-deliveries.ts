// Makes a JetStream consumer give up on its next message, for dead-letter tests: every delivery is
// refused (nak) until the server has emitted the max-deliveries advisory, which OWRL_ADVISORIES
// keeps. A worker that crashes on a message does the same, only slower (one ack_wait a delivery).
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { STREAM_ADVISORIES } from '@owrl/bus';

/**
 * Refuses every delivery of `stream`/`consumer` until an advisory is stored.
 * @throws Error after `timeoutMs` without one.
 */
export async function exhaustDeliveries(js: JetStreamClient, jsm: JetStreamManager, stream: string, consumer: string, timeoutMs = 60_000): Promise<void> {
  const c = await js.consumers.get(stream, consumer);
  const deadline = Date.now() + timeoutMs;
  while ((await jsm.streams.info(STREAM_ADVISORIES)).state.messages === 0) {
    if (Date.now() > deadline) throw new Error(`no max-deliveries advisory for ${stream}/${consumer} within ${timeoutMs} ms`);
    const m = await c.next({ expires: 1000 });
    m?.nak();
  }
}
