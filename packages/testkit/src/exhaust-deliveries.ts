// Makes a JetStream consumer give up on its next message, for dead-letter tests: every delivery is
// refused (nak) until the server has emitted the max-deliveries advisory, which OWRL_ADVISORIES
// keeps. A worker that crashes on a message does the same, only slower (one ack_wait a delivery).
// `awaitDeadLetter` then waits for the service under test to move it to OWRL_DLQ.
import type { JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import { STREAM_ADVISORIES, STREAM_DLQ } from '@owrl/bus';
import { waitUntil, type WaitOptions } from './wait.js';

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

/** The newest message of OWRL_DLQ, once there is one (the dead-letter mover has run). */
export async function awaitDeadLetter(jsm: JetStreamManager, opts: WaitOptions = {}): Promise<StoredMsg> {
  return waitUntil(
    `a message on ${STREAM_DLQ}`,
    async () => {
      const { state } = await jsm.streams.info(STREAM_DLQ);
      return state.messages > 0 ? ((await jsm.streams.getMessage(STREAM_DLQ, { seq: state.last_seq })) ?? undefined) : undefined;
    },
    { intervalMs: 200, ...opts },
  );
}
