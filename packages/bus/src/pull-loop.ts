// Bounded pull loop over a durable pull consumer: requests only as many messages as there are
// free slots (a delivered message starts its ack_wait clock, so nothing is pulled that cannot be
// worked on now), refills a slot as soon as it frees, survives reconnects and server restarts,
// and on stop() lets outstanding pull requests finish so no delivered message is stranded.
import { type Consumer, type JetStreamClient, type JsMsg, JetStreamApiError } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '@owrl/core';
import { BusError, BusErrorCode } from './errors.js';
import { errFields } from './logger.js';

export interface PullLoopOptions {
  nc: NatsConnection;
  js: JetStreamClient;
  stream: string;
  consumer: string;
  /** Messages worked on at once (e.g. browser slots). */
  maxInFlight: number;
  /** Lifetime of one pull request; also bounds how long stop() waits for outstanding pulls. */
  pullExpiresMs: number;
  /** working() interval for messages delivered beyond maxInFlight (after a reconnect re-pull). */
  overflowHeartbeatMs: number;
  /** Works on one message and settles it; a rejection is logged, never stops the loop. */
  onMessage: (m: JsMsg) => Promise<void>;
  /**
   * Take at most this many messages in all, then stop by itself once they are worked on (an
   * actor that serves N episodes and exits). Pulls never ask for more than remain; a message a
   * reconnect delivers beyond the limit is naked at once, back to the queue. Default: no limit.
   */
  maxMessages?: number;
  signal?: AbortSignal;
  logger: Logger;
}

export interface PullLoopHandle {
  /** Stops pulling, waits for outstanding pulls (≤ pullExpiresMs) and for in-flight messages. */
  stop(): Promise<void>;
  /** Resolves once the loop has stopped (stop(), the signal, or the connection closing). */
  readonly closed: Promise<void>;
}

const MAX_CONCURRENT_PULLS = 16;

/** @throws BusError BUS_NOT_FOUND when the stream or consumer does not exist. */
export async function startPullLoop(opts: PullLoopOptions): Promise<PullLoopHandle> {
  let consumer: Consumer;
  try {
    consumer = await opts.js.consumers.get(opts.stream, opts.consumer);
  } catch (e) {
    if (e instanceof JetStreamApiError && (e.code === 10014 || e.code === 10059)) {
      throw new BusError(BusErrorCode.NotFound, `consumer ${opts.stream}/${opts.consumer} does not exist: run ensureTopology() first`, { cause: e });
    }
    throw new BusError(BusErrorCode.ApiFailed, `consumer ${opts.stream}/${opts.consumer}: ${(e as Error).message}`, { cause: e });
  }
  const loop = new PullLoop(opts, consumer);
  loop.start();
  return loop;
}

class PullLoop implements PullLoopHandle {
  private inFlight = 0;
  /** Messages handed to onMessage or parked in overflow (counted against maxMessages). */
  private taken = 0;
  /** Messages asked for by outstanding pull requests and not yet received. */
  private requested = 0;
  private pulls = 0;
  private readonly overflow: JsMsg[] = [];
  private overflowTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopping = false;
  private readonly tasks = new Set<Promise<void>>();
  private resolveClosed!: () => void;
  readonly closed = new Promise<void>((r) => (this.resolveClosed = r));
  private stopPromise: Promise<void> | null = null;
  private readonly log: Logger;

  constructor(
    private readonly o: PullLoopOptions,
    private readonly consumer: Consumer,
  ) {
    this.log = o.logger;
  }

  start(): void {
    if (this.o.signal?.aborted) {
      void this.stop();
      return;
    }
    this.o.signal?.addEventListener('abort', () => void this.stop(), { once: true });
    void this.o.nc.closed().then(() => void this.stop());
    this.pump();
  }

  stop(): Promise<void> {
    if (this.stopPromise) return this.stopPromise;
    this.stopping = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.stopPromise = (async () => {
      while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
      this.setOverflowTimer();
      this.resolveClosed();
    })();
    return this.stopPromise;
  }

  private track(p: Promise<void>): void {
    this.tasks.add(p);
    void p.finally(() => this.tasks.delete(p));
  }

  private pump(): void {
    if (this.stopping || this.retryTimer !== null || this.o.nc.isClosed()) return;
    const slots = this.o.maxInFlight - this.inFlight - this.requested - this.overflow.length;
    const free = Math.min(slots, this.remaining() - this.requested);
    if (free <= 0 || this.pulls >= MAX_CONCURRENT_PULLS) return;
    // While a pull is out, freed slots are asked for together, an eighth of maxInFlight at a
    // time (or the last ones under maxMessages): each pull is a subscription, a request and an
    // unsubscribe, and a pull per freed slot (a fast handler frees one at a time) made the
    // learner's and the judge's pulls mostly one message each. With no pull out, whatever is
    // free is asked for at once, so a slot waits only while other slots' pull is still open.
    const batch = Math.min(Math.max(1, Math.floor(this.o.maxInFlight / 8)), this.remaining() - this.requested);
    if (this.pulls > 0 && free < batch) return;
    this.pull(free);
  }

  private pull(n: number): void {
    this.requested += n;
    this.pulls++;
    const task = (async () => {
      let received = 0;
      let failed = false;
      try {
        const iter = await this.consumer.fetch({ max_messages: n, expires: this.o.pullExpiresMs });
        for await (const m of iter) {
          received++;
          if (received <= n) this.requested--;
          this.dispatch(m);
        }
        this.failures = 0;
      } catch (e) {
        failed = true;
        this.failures++;
        if (!this.o.nc.isClosed()) this.log.warn({ ...errFields(e), failures: this.failures }, 'pull failed; retrying');
      } finally {
        this.requested -= Math.max(0, n - received);
        this.pulls--;
      }
      if (failed) this.retryLater();
      else this.pump();
    })();
    this.track(task);
  }

  private retryLater(): void {
    if (this.stopping || this.retryTimer !== null || this.o.nc.isClosed()) return;
    const ms = Math.min(100 * 2 ** Math.min(this.failures, 6), 5000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.pump();
    }, ms);
  }

  /** Messages still to take under maxMessages (Infinity without a limit). */
  private remaining(): number {
    return this.o.maxMessages === undefined ? Infinity : this.o.maxMessages - this.taken;
  }

  private dispatch(m: JsMsg): void {
    if (this.remaining() <= 0) {
      // Beyond the limit (a reconnect re-pull): give it straight back for another consumer.
      m.nak();
      this.log.info({ seq: m.seq, maxMessages: this.o.maxMessages }, 'message beyond maxMessages naked back to the queue');
      return;
    }
    this.taken++;
    if (this.inFlight < this.o.maxInFlight) {
      this.run(m);
      return;
    }
    // More than asked for (a reconnect re-pulls): keep it alive until a slot frees.
    this.overflow.push(m);
    m.working();
    this.setOverflowTimer();
  }

  private setOverflowTimer(): void {
    if (this.overflow.length > 0 && this.overflowTimer === null) {
      this.overflowTimer = setInterval(() => {
        for (const m of this.overflow) m.working();
      }, this.o.overflowHeartbeatMs);
    } else if (this.overflow.length === 0 && this.overflowTimer !== null) {
      clearInterval(this.overflowTimer);
      this.overflowTimer = null;
    }
  }

  private run(m: JsMsg): void {
    this.inFlight++;
    const task = this.o
      .onMessage(m)
      .catch((e: unknown) => this.log.error({ ...errFields(e), seq: m.seq }, 'message processing failed'))
      .finally(() => {
        this.inFlight--;
        const next = this.overflow.shift();
        this.setOverflowTimer();
        if (next) this.run(next);
        else if (this.remaining() <= 0 && this.inFlight === 0) void this.stop();
        this.pump();
      });
    this.track(task);
  }
}
