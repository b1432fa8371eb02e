// Test helper: the number of requests left in OWRL_TASKS once the actor's acks have landed. The ack
// of the last request can still be in flight when its trajectory arrives, so wait up to `ms`.
import type { Bus } from '@owrl/bus';

export async function workQueueLeft(bus: Bus, ms = 10_000): Promise<number> {
  let left = -1;
  for (const until = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 100))) {
    left = (await bus.jsm.streams.info('OWRL_TASKS')).state.messages;
    if (left === 0 || Date.now() >= until) return left;
  }
}
