// Test helpers of the actor tests on a real nats-server: await a run's trajectories as they are
// published, watch the order of trajectory publishes and request acks, and the number of requests
// left in OWRL_TASKS once the actor's acks have landed.
import { CONSUMER_ACTORS, STREAM_TASKS, STREAM_TRAJ, type Bus } from '@owrl/bus';
import { parseAckSubject } from '@owrl/testkit';
import { decode, TrajectorySchema, type Trajectory } from '@owrl/proto';

/** Awaits the first `n` trajectories of a run as they are published (ordered consumer, no polling). */
export async function collectTrajectories(bus: Bus, runId: string, n: number, timeoutMs = 60_000): Promise<Trajectory[]> {
  const deadline = Date.now() + timeoutMs;
  // A test may have the server down at this moment (a broker restart): the consumer is created
  // once the connection is back, within the same deadline.
  let consumer;
  for (;;) {
    try {
      consumer = await bus.js.consumers.get(STREAM_TRAJ, { filter_subjects: `owrl.traj.${runId}` });
      break;
    } catch (e) {
      if (Date.now() >= deadline) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const messages = await consumer.consume({ expires: 1000 });
  const timer = setTimeout(() => void messages.close(), Math.max(1, deadline - Date.now()));
  const out: Trajectory[] = [];
  try {
    for await (const m of messages) {
      out.push(decode(TrajectorySchema, m.data));
      if (out.length >= n) break;
    }
  } finally {
    clearTimeout(timer);
    await messages.close();
  }
  return out;
}

/**
 * Requests left in OWRL_TASKS. The ack of the last request can still be in flight when its
 * trajectory arrives (JetStream has no event for "acked"), so this polls the stream for up to `ms`.
 */
export async function workQueueLeft(bus: Bus, ms = 10_000): Promise<number> {
  let left = -1;
  for (const until = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 100))) {
    left = (await bus.jsm.streams.info(STREAM_TASKS)).state.messages;
    if (left === 0 || Date.now() >= until) return left;
  }
}

/** One thing the watcher saw, in arrival order. */
export type BusEvent = { kind: 'traj'; id: string } | { kind: 'ack'; seq: number; body: string };

export interface PublishAckWatch {
  /** Everything seen so far, in the order the server delivered it. */
  readonly events: readonly BusEvent[];
  /** Resolves once a final ack (not +WIP or -NAK) of each of these OWRL_TASKS sequences has been seen. */
  acked(seqs: Iterable<number>, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** An ack settles the message unless it only extends (+WIP) or gives it back (-NAK). */
function isFinalAck(body: string): boolean {
  return body === '' || body.startsWith('+ACK') || body.startsWith('+TERM');
}

/**
 * Watches, on the bus's own connection, a run's trajectory publishes (core subscription to their
 * subject) and the acks of OWRL_TASKS messages (the ack subject `$JS.ACK.<stream>.<consumer>.
 * <delivered>.<stream seq>.…` names the request's stream sequence). The server delivers both in
 * the order it received them, so the events show whether a request was acked before its
 * trajectory was published.
 */
export function watchPublishAck(bus: Bus, runId: string): PublishAckWatch {
  const events: BusEvent[] = [];
  const waiters = new Set<() => void>();
  const seen = (): void => {
    for (const w of waiters) w();
  };
  const traj = bus.nc.subscribe(`owrl.traj.${runId}`, {
    callback: (err, m) => {
      if (err) return;
      events.push({ kind: 'traj', id: decode(TrajectorySchema, m.data).trajectoryId });
      seen();
    },
  });
  const acks = bus.nc.subscribe(`$JS.ACK.${STREAM_TASKS}.>`, {
    callback: (err, m) => {
      if (err) return;
      const a = parseAckSubject(m.subject, STREAM_TASKS, CONSUMER_ACTORS);
      if (a) events.push({ kind: 'ack', seq: a.streamSeq, body: new TextDecoder().decode(m.data) });
      seen();
    },
  });
  return {
    events,
    acked(seqs, timeoutMs = 30_000) {
      const want = [...seqs];
      const all = (): boolean => want.every((q) => events.some((e) => e.kind === 'ack' && e.seq === q && isFinalAck(e.body)));
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!all()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no final ack of OWRL_TASKS seq ${want.join(',')} within ${timeoutMs} ms: ${JSON.stringify(events)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      traj.unsubscribe();
      acks.unsubscribe();
    },
  };
}

/** Index of the trajectory publish and of the final ack of its request (-1 when not seen). */
export function publishAndAckIndex(events: readonly BusEvent[], trajectoryId: string, requestSeq: number): { published: number; acked: number } {
  return {
    published: events.findIndex((e) => e.kind === 'traj' && e.id === trajectoryId),
    acked: events.findIndex((e) => e.kind === 'ack' && e.seq === requestSeq && isFinalAck(e.body)),
  };
}
