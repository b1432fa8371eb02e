// The held results' steps, on disk instead of in memory (OWRL_HELD_STEPS=disk, the default; the
// alternative reads them back from the stream: stream-steps.ts). A learner holds every result of a round
// (and of the rounds it keeps readable) until its update is checkpointed; their steps are most of
// their bytes (~60 KB a pointer trajectory, megabytes with a VLM's screenshots or long token
// traces) and are read only twice, if at all: by the update and by a console asking for the
// trajectory. Held in memory they grow the heap by a round's worth of payloads, and every byte of
// it is fresh memory from the kernel and more for the garbage collector to walk: on the bus
// bench a learner that held its results' bytes moved 331–400 trajectories a second with 1.1–1.2 GB
// resident, one that let go of them 445–522 with 0.5 GB.
//
// Each held result's still-encoded steps are appended to a segment file (`spillSteps` of
// @owrl/proto); the trajectory keeps where they are and reads them back on first use. A segment
// is written up to `segmentBytes` and then another begins; a segment is deleted once every
// trajectory spilled into it has been collected (a FinalizationRegistry: results are released by
// the rounds' retention, not by a call). The files are a cache, not state: nothing is fsynced, the
// folder is emptied at start (a resumed learner gets its held results back from the bus, unacked),
// and a write that fails (a full disk) leaves that result's steps in memory, logged once.
import fs from 'node:fs';
import path from 'node:path';
import { spillSteps, type SpillReader, type Trajectory } from '@owrl/proto';
import type { Logger } from '@owrl/core';

export interface StepSpillOptions {
  logger: Logger;
  /** A segment file grows to this many bytes before the next begins (default 64 MiB). */
  segmentBytes?: number;
  /** Steps of fewer bytes than this stay in memory (default 4 KiB). */
  minBytes?: number;
}

interface Segment {
  readonly id: number;
  readonly file: string;
  fd: number;
  size: number;
  /** Trajectories spilled into it and not yet collected. */
  live: number;
}

export interface StepSpillStats {
  /** Trajectories whose steps went to disk, and their bytes. */
  spilled: number;
  spilledBytes: number;
  /** Segment files on disk now, and their bytes. */
  segments: number;
  diskBytes: number;
  /** Spills that failed (their steps stayed in memory). */
  failed: number;
}

export class StepSpill {
  private readonly segments = new Map<number, Segment>();
  private current: Segment | null = null;
  private nextId = 0;
  private closed = false;
  private warned = false;
  private readonly segmentBytes: number;
  private readonly minBytes: number;
  private readonly counts = { spilled: 0, spilledBytes: 0, failed: 0 };
  private readonly collected = new FinalizationRegistry<number>((id) => this.release(id));

  constructor(
    readonly dir: string,
    private readonly o: StepSpillOptions,
  ) {
    this.segmentBytes = o.segmentBytes ?? 64 * 2 ** 20;
    this.minBytes = o.minBytes ?? 4096;
    if (!(this.segmentBytes > 0)) throw new RangeError(`step spill: segmentBytes ${this.segmentBytes} must be > 0`);
    // What an earlier process spilled is of no use to this one.
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
  }

  /** HeldSteps of the learner: the steps go to disk (the stream sequence is not needed). */
  hold(traj: Trajectory): number {
    return this.spill(traj);
  }

  /** Moves the still-encoded steps of `traj` to disk; returns the bytes moved (0: kept in memory). */
  spill(traj: Trajectory): number {
    if (this.closed) return 0;
    let w: { seg: Segment; read: SpillReader } | null = null;
    const n = spillSteps(traj, (chunks) => (w = this.write(chunks))?.read ?? null);
    const seg = (w as { seg: Segment } | null)?.seg;
    if (n > 0 && seg) {
      seg.live++;
      this.collected.register(traj, seg.id);
      this.counts.spilled++;
      this.counts.spilledBytes += n;
    }
    return n;
  }

  stats(): StepSpillStats {
    let diskBytes = 0;
    for (const s of this.segments.values()) diskBytes += s.size;
    return { ...this.counts, segments: this.segments.size, diskBytes };
  }

  /** Closes and deletes every segment (the learner is stopping); spilled steps can no longer be read. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.segments.values()) this.drop(s);
    this.current = null;
  }

  /** Appends `chunks` to the current segment: where they went and how to read them back, or null (kept in memory). */
  private write(chunks: readonly Uint8Array[]): { seg: Segment; read: SpillReader } | null {
    const len = chunks.reduce((a, c) => a + c.length, 0);
    if (len < this.minBytes) return null;
    let seg: Segment;
    try {
      seg = this.segmentFor();
      let done = 0;
      // writev of the steps as they are: no copy into one buffer first.
      while (done < len) {
        const rest = done === 0 ? chunks : remainder(chunks, done);
        done += fs.writevSync(seg.fd, rest as Uint8Array[], seg.size + done);
      }
    } catch (e) {
      this.counts.failed++;
      if (!this.warned) {
        this.warned = true;
        this.o.logger.warn({ dir: this.dir, err: e }, 'spilling held results to disk failed: their steps stay in memory (warned once)');
      }
      return null;
    }
    const at = seg.size;
    seg.size += len;
    return { seg, read: { read: () => readAt(seg, at, len), readInto: (into) => readAtInto(seg, at, into) } };
  }

  private segmentFor(): Segment {
    const cur = this.current;
    if (cur && cur.size < this.segmentBytes) return cur;
    const id = this.nextId++;
    const file = path.join(this.dir, `steps-${id}.bin`);
    const seg: Segment = { id, file, fd: fs.openSync(file, 'w+'), size: 0, live: 0 };
    this.segments.set(id, seg);
    this.current = seg;
    // The full segment is deleted as soon as nothing spilled into it is left.
    if (cur && cur.live === 0) this.drop(cur);
    return seg;
  }

  private release(id: number): void {
    const seg = this.segments.get(id);
    if (!seg) return;
    seg.live--;
    if (seg.live <= 0 && seg !== this.current) this.drop(seg);
  }

  private drop(seg: Segment): void {
    this.segments.delete(seg.id);
    try {
      fs.closeSync(seg.fd);
    } catch {
      // closed already
    }
    fs.rmSync(seg.file, { force: true });
  }
}

/** The chunks from byte `skip` on (after a short writev). */
function remainder(chunks: readonly Uint8Array[], skip: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const c of chunks) {
    if (skip >= c.length) {
      skip -= c.length;
      continue;
    }
    out.push(skip > 0 ? c.subarray(skip) : c);
    skip = 0;
  }
  return out;
}

/** The read of `len` bytes at `at` ended after `done`: the segment is shorter than what was written to it. */
function shortRead(seg: Segment, at: number, len: number, done: number): Error {
  return new Error(`step spill ${seg.file}: ${len} bytes at ${at} expected, the file ends after ${done}`);
}

function readAt(seg: Segment, at: number, len: number): Uint8Array {
  const out = Buffer.allocUnsafe(len);
  let done = 0;
  while (done < len) {
    const n = fs.readSync(seg.fd, out, done, len - done, at + done);
    if (n === 0) throw shortRead(seg, at, len, done);
    done += n;
  }
  return out;
}

/** readAt into `into` in libuv's thread pool: the caller's thread goes on meanwhile (prefetchSteps). */
async function readAtInto(seg: Segment, at: number, into: Uint8Array): Promise<void> {
  const len = into.length;
  let done = 0;
  while (done < len) {
    const n = await new Promise<number>((resolve, reject) => fs.read(seg.fd, into, done, len - done, at + done, (err, bytes) => (err ? reject(err) : resolve(bytes))));
    if (n === 0) throw shortRead(seg, at, len, done);
    done += n;
  }
}
