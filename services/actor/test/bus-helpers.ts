// Test helpers of the actor tests on a real nats-server: await a run's trajectories as they are
// published, and the number of requests left in OWRL_TASKS once the actor's acks have landed.
import { STREAM_TRAJ, type Bus } from '@owrl/bus';
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
    left = (await bus.jsm.streams.info('OWRL_TASKS')).state.messages;
    if (left === 0 || Date.now() >= until) return left;
  }
}
