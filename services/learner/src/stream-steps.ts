// The held results' steps, read back from OWRL_SCORED instead of kept. A learner holds every result
// of a round (and of the rounds it keeps readable) until its update is checkpointed; their steps
// are most of their bytes and are read at most twice: by the update and by a console asking for
// the trajectory. The stream already stores every scored trajectory (limits retention, a week by
// default) and the learner knows each one's sequence, so a held result need not keep its steps
// anywhere else: the trajectory lets go of them, its delivery of the message's bytes, and the
// update (prefetchSteps) or GetTrajectory reads the message back by sequence (a direct get) and
// takes the steps out of it.
//
// Against the segment files of step-spill.ts (OWRL_HELD_STEPS=disk) this writes nothing per
// result: on the bus bench the learner that spilled moved 590–600 trajectories a second, one that
// kept no steps at all 795 (the spill's writes, on the cores and the disk nats-server shares).
// What it costs instead is one direct get per held result when it is read, in the thread of the
// caller that reads ahead: the steps cannot be read synchronously, so a read that was not read
// ahead (or whose read-ahead failed) throws, naming the result and why. That read costs more than
// the spill's write once updates are counted: nats-server loads the whole message block (up to
// 8 MB) a message lies in, and an update's kept results lie all over the stream. On the bus bench
// with updates in the window this moved 353 trajectories a second against the spill's 410; at
// 8000 slots nats-server grew to 1.3–1.7 GiB (240 MiB with the spill) and the learner's ingest
// lag to 0.74–0.76 s (0.10 s), the update's 3600 reads sharing its connection with the results
// coming in. Hence not the default (OWRL_HELD_STEPS=stream); the bus bench without updates in
// its window (762–792 against 595–655 trajectories a second) had counted the writes, not the reads.
import { STREAM_SCORED, type Bus } from '@owrl/bus';
import { scoredStepBytes, spillSteps, type Trajectory } from '@owrl/proto';
import type { Logger } from '@owrl/core';

export interface StreamStepsOptions {
  logger: Logger;
  /** Steps of fewer bytes than this stay in memory (default 4 KiB: not worth a round trip). */
  minBytes?: number;
  /** Reads in flight at once (default 32): an update reads back thousands. */
  concurrency?: number;
  /** Attempts of one read before it fails (default 3). */
  attempts?: number;
}

export interface StreamStepsStats {
  /** Trajectories whose steps were let go of (read back from the stream), and their bytes. */
  held: number;
  heldBytes: number;
  /** Reads from the stream, and those that failed every attempt. */
  reads: number;
  failedReads: number;
}

/** A stored message as a direct get returns it (the parts read here). */
interface Stored {
  readonly data: Uint8Array;
  readonly header?: { get(k: string): string } | undefined;
}

export class StreamSteps {
  private readonly minBytes: number;
  private readonly concurrency: number;
  private readonly attempts: number;
  private readonly counts = { held: 0, heldBytes: 0, reads: 0, failedReads: 0 };
  private active = 0;
  /** Reads waiting for a slot; sorted highest sequence first when `unsorted` is false (taken from the end). */
  private readonly waiting: Array<{ seq: number; start: () => void }> = [];
  private unsorted = false;
  private pumpQueued = false;
  /** Whether the stream allows direct gets (asked at the first read); else the API's message get. */
  private direct: Promise<boolean> | null = null;
  private closed = false;

  constructor(
    private readonly bus: Bus,
    private readonly o: StreamStepsOptions,
  ) {
    this.minBytes = o.minBytes ?? 4096;
    this.concurrency = o.concurrency ?? 32;
    this.attempts = o.attempts ?? 3;
    if (!(Number.isInteger(this.concurrency) && this.concurrency >= 1)) throw new RangeError(`stream steps: concurrency ${this.concurrency} must be an integer >= 1`);
    if (!(Number.isInteger(this.attempts) && this.attempts >= 1)) throw new RangeError(`stream steps: attempts ${this.attempts} must be an integer >= 1`);
  }

  /**
   * Lets `traj` go of its still-encoded steps: they are read back from OWRL_SCORED message `seq`
   * (the scored trajectory it was decoded from) when read ahead. Returns the bytes let go of (0:
   * kept in memory: decoded already, small, or this store is closed).
   */
  hold(traj: Trajectory, seq: number): number {
    if (this.closed) return 0;
    const id = traj.trajectoryId;
    let failure: Error | null = null;
    const n = spillSteps(traj, (chunks) => {
      let len = 0;
      for (const c of chunks) len += c.length;
      if (len < this.minBytes) return null;
      return {
        read: () => {
          throw new Error(
            failure
              ? `the steps of trajectory ${JSON.stringify(id)} could not be read back from ${STREAM_SCORED} #${seq}: ${failure.message}`
              : `the steps of trajectory ${JSON.stringify(id)} are in ${STREAM_SCORED} #${seq} and are read back only ahead of use (prefetchSteps); this read came without one`,
          );
        },
        readInto: async (into) => {
          try {
            await this.readInto(id, seq, into);
            failure = null;
          } catch (e) {
            failure = e as Error;
            throw e;
          }
        },
      };
    });
    if (n > 0) {
      this.counts.held++;
      this.counts.heldBytes += n;
    }
    return n;
  }

  stats(): StreamStepsStats {
    return { ...this.counts };
  }

  /** No more results are let go of (the learner is stopping); reads still work while the bus is open. */
  close(): void {
    this.closed = true;
  }

  private async readInto(id: string, seq: number, into: Uint8Array): Promise<void> {
    await this.slot(seq);
    try {
      this.counts.reads++;
      const m = await this.get(id, seq);
      const msgId = m.header?.get('Nats-Msg-Id') ?? '';
      // The judge publishes each scored trajectory with its id as the message id.
      if (msgId !== '' && msgId !== id) throw new Error(`${STREAM_SCORED} #${seq} holds trajectory ${JSON.stringify(msgId)}, not ${JSON.stringify(id)}`);
      const steps = scoredStepBytes(m.data);
      let len = 0;
      for (const s of steps) len += s.length;
      if (len !== into.length) throw new Error(`${STREAM_SCORED} #${seq} holds ${len} bytes of steps for trajectory ${JSON.stringify(id)}, ${into.length} were let go of`);
      let at = 0;
      for (const s of steps) {
        into.set(s, at);
        at += s.length;
      }
    } catch (e) {
      this.counts.failedReads++;
      throw e;
    } finally {
      this.release();
    }
  }

  /** The stored message `seq`, tried `attempts` times; a message the stream no longer has fails at once. */
  private async get(id: string, seq: number): Promise<Stored> {
    for (let attempt = 1; ; attempt++) {
      let m: Stored | null;
      try {
        m = await this.getOnce(seq);
      } catch (e) {
        if (attempt >= this.attempts) throw new Error(`reading ${STREAM_SCORED} #${seq} failed ${attempt} times: ${(e as Error).message}`, { cause: e });
        await new Promise((r) => setTimeout(r, 100 * attempt));
        continue;
      }
      if (!m) throw new Error(`${STREAM_SCORED} no longer has message #${seq} (trajectory ${JSON.stringify(id)}): purged, or past the stream's limits`);
      return m;
    }
  }

  private async getOnce(seq: number): Promise<Stored | null> {
    // A topology this learner did not converge may lack allow_direct (a direct get then finds no
    // responder and times out): asked once, then the API's message get (base64 in JSON) instead.
    this.direct ??= this.bus.jsm.streams.info(STREAM_SCORED).then(
      (info) => {
        const ok = info.config.allow_direct === true;
        if (!ok) this.o.logger.warn({ stream: STREAM_SCORED }, 'direct get refused (the stream has no allow_direct): held results are read back through the JetStream API instead');
        return ok;
      },
      (e: unknown) => {
        this.direct = null; // asked again at the next read
        throw e;
      },
    );
    if (await this.direct) return await this.bus.jsm.direct.getMessage(STREAM_SCORED, { seq });
    return await this.bus.jsm.streams.getMessage(STREAM_SCORED, { seq });
  }

  /**
   * Waits for one of the `concurrency` read slots. Reads start in stream order, lowest sequence
   * first, not in the order they were asked for: an update asks for its kept results group by
   * group, whose messages lie all over the stream, and nats-server loads a whole message block
   * (up to 8 MB, cached for 5 s) to serve a read from it: in stream order each block is loaded
   * once, in group order it may be loaded again for every read that finds its cache expired (at
   * 8000 slots, one run each: nats-server's largest RSS 1346 MiB against 1689; the ingest lag was
   * the same, 0.76 against 0.74 s). All of an update's reads are asked for at once
   * (prefetchSteps), so the slots are handed out in a microtask after them.
   */
  private slot(seq: number): Promise<void> {
    return new Promise<void>((start) => {
      this.waiting.push({ seq, start });
      this.unsorted = true;
      if (!this.pumpQueued) {
        this.pumpQueued = true;
        queueMicrotask(() => {
          this.pumpQueued = false;
          this.pump();
        });
      }
    });
  }

  private release(): void {
    this.active--;
    this.pump();
  }

  private pump(): void {
    if (this.unsorted) {
      // Once per burst of reads asked for (an update's), nearly sorted after that.
      this.waiting.sort((a, b) => b.seq - a.seq);
      this.unsorted = false;
    }
    while (this.active < this.concurrency) {
      const next = this.waiting.pop();
      if (!next) return;
      this.active++;
      next.start();
    }
  }
}
