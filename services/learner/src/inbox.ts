// Ingestion's front door: the scored trajectories the run's consumer delivers, queued for the loop
// and held unacked until the update that used them is checkpointed. While held, each gets
// working() well within the consumer's ack_wait, so nothing is redelivered during a long round,
// and after a crash what was held comes back within ack_wait.
import type { Delivery } from '@owrl/bus';
import type { ScoredTrajectory } from '@owrl/proto';

export interface Pending {
  scored: ScoredTrajectory;
  delivery: Delivery<ScoredTrajectory>;
}

/** Longest time next() hands out queued deliveries without letting timers and I/O run. */
const YIELD_MS = 20;

export class Inbox {
  private readonly queue: Pending[] = [];
  private readonly held = new Set<Delivery<ScoredTrajectory>>();
  private wake: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** When next() last let timers and I/O run (see YIELD_MS). */
  private yieldedAt = Date.now();

  /** @param heartbeatMs interval of working() on held deliveries (a third of ack_wait or less). */
  constructor(private readonly heartbeatMs: number) {}

  start(): void {
    this.timer ??= setInterval(() => {
      for (const d of this.held) if (!d.settled) d.working();
    }, this.heartbeatMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.notify();
  }

  push(p: Pending): void {
    this.held.add(p.delivery);
    this.queue.push(p);
    this.notify();
  }

  /** Wakes a waiting next() (stop, resume, new work). */
  notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /**
   * The next delivery, or null at `deadline` or when `interrupted()` turns true. While deliveries
   * are queued it would resolve through microtasks alone, so a loop draining a burst (a fleet's
   * worth of results) starved timers and I/O: the working() heartbeats of held deliveries, the
   * NATS connection's pings (the server dropped the learner), gRPC. At least every YIELD_MS it
   * lets them run.
   */
  async next(deadline: number, interrupted: () => boolean): Promise<Pending | null> {
    if (this.queue.length > 0 && Date.now() - this.yieldedAt >= YIELD_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.yieldedAt = Date.now();
    }
    while (this.queue.length === 0) {
      if (interrupted() || Date.now() >= deadline) return null;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, Math.min(1000, Math.max(1, deadline - Date.now()))).unref();
      });
      this.yieldedAt = Date.now();
    }
    return this.queue.shift() ?? null;
  }

  /** Sleeps up to `ms` or until notify(). */
  async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      setTimeout(resolve, ms).unref();
    });
  }

  /** Stops holding `d` (it was acked). */
  release(d: Delivery<ScoredTrajectory>): void {
    this.held.delete(d);
  }

  /** Deliveries queued for the loop, not yet taken by next(). */
  get pending(): number {
    return this.queue.length;
  }

  get heldCount(): number {
    return this.held.size;
  }
}
