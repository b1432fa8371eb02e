// The fleet in the run state: RunState.actors from the actor registry (KV owrl_actors) and
// RunState.blacklist from KV owrl_blacklist, re-read every few seconds. An actor whose last
// heartbeat is older than its timeout (HEARTBEATS_MISSED of the intervals its record states, else
// the view's heartbeat timeout) is dropped even while its KV entry lives (the
// bucket TTL drops it on the server later), also while KV cannot be read: a failed or hung read
// (bounded by a timeout) keeps the last records, and actors still age out of them. The store
// changes (kind "fleet") only when what a reader sees differs from the last read.
import { HEARTBEATS_MISSED, type ActorRecord, type BlacklistEntry } from '@owrl/bus';
import { ActorInfoSchema, BlacklistInfoSchema, make, type ActorInfo, type BlacklistInfo } from '@owrl/proto';
import type { Logger } from '@owrl/core';
import type { RunStateStore } from './run-state-store.js';

/** What the view reads: the two KV wrappers of @owrl/bus (ActorRegistry, Blacklist) satisfy it. */
export interface FleetSources {
  actors: { list(): Promise<ActorRecord[]> };
  blacklist: { list(): Promise<Array<BlacklistEntry & { host: string }>> };
}

export interface FleetViewOptions {
  /** How often KV is re-read. Default 3 s. */
  intervalMs?: number;
  /**
   * An actor whose last heartbeat is older than this is left out, unless its record states its
   * interval (then HEARTBEATS_MISSED intervals). Default 30 s (3 heartbeats of 10 s).
   */
  heartbeatTimeoutMs?: number;
  /** A read that takes longer is abandoned as failed, so a hung request cannot freeze the view. Default max(10 s, 3 intervals). */
  readTimeoutMs?: number;
  clock?: () => number;
}

export class FleetView {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private lastKey = '';
  private failing = false;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly readTimeoutMs: number;
  private readonly clock: () => number;
  /** The last registry records and blacklist read, for aging actors out while KV cannot be read. */
  private lastRecords: readonly ActorRecord[] = [];
  private lastBlacklist: BlacklistInfo[] = [];

  constructor(
    private readonly sources: FleetSources,
    private readonly store: RunStateStore,
    private readonly log: Logger,
    o: FleetViewOptions = {},
  ) {
    this.intervalMs = o.intervalMs ?? 3000;
    this.timeoutMs = o.heartbeatTimeoutMs ?? 30_000;
    this.readTimeoutMs = o.readTimeoutMs ?? Math.max(10_000, 3 * this.intervalMs);
    this.clock = o.clock ?? Date.now;
    if (!Number.isFinite(this.intervalMs) || this.intervalMs < 1) throw new RangeError(`fleet view intervalMs=${String(o.intervalMs)} must be >= 1`);
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs < 1) throw new RangeError(`fleet view heartbeatTimeoutMs=${String(o.heartbeatTimeoutMs)} must be >= 1`);
    if (!Number.isFinite(this.readTimeoutMs) || this.readTimeoutMs < 1) throw new RangeError(`fleet view readTimeoutMs=${String(o.readTimeoutMs)} must be >= 1`);
  }

  /** Reads once, then every `intervalMs` until stop(). */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * Reads both buckets and updates the run state when they changed. A failed read keeps the last
   * known view (logged once per outage); it never throws.
   */
  refresh(): Promise<void> {
    this.running ??= this.read().finally(() => (this.running = null));
    return this.running;
  }

  private async read(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${this.readTimeoutMs} ms`)), this.readTimeoutMs);
      });
      const [a, b] = await Promise.race([Promise.all([this.sources.actors.list(), this.sources.blacklist.list()]), timeout]);
      this.lastRecords = a;
      this.lastBlacklist = b.map((e) => make(BlacklistInfoSchema, { host: e.host, reason: e.reason, failures: e.failures, untilMs: BigInt(Math.max(0, Math.trunc(e.untilMs))) }));
      if (this.failing) this.log.info({}, 'actor registry and blacklist readable again');
      this.failing = false;
    } catch (e) {
      if (!this.failing) this.log.warn({ err: e }, 'reading the actor registry or the blacklist failed; keeping the last fleet view, actors aging out of it');
      this.failing = true;
    } finally {
      clearTimeout(timer);
    }
    this.show(liveActors(this.lastRecords, this.clock(), this.timeoutMs), this.lastBlacklist);
  }

  private show(actors: ActorInfo[], blacklist: BlacklistInfo[]): void {
    const key = JSON.stringify([actors, blacklist], (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    if (key === this.lastKey) return;
    this.lastKey = key;
    this.store.change('fleet', (s) => {
      s.actors = actors;
      s.blacklist = blacklist;
    });
  }
}

/**
 * Registry records whose heartbeat is recent at `nowMs`, as ActorInfo, sorted by id (pure): at most
 * HEARTBEATS_MISSED intervals old for a record that states its interval, else at most `timeoutMs`.
 */
export function liveActors(records: readonly ActorRecord[], nowMs: number, timeoutMs: number): ActorInfo[] {
  return records
    .filter((r) => nowMs - r.updatedAtMs <= (r.intervalMs !== undefined ? HEARTBEATS_MISSED * r.intervalMs : timeoutMs))
    .sort((a, b) => a.actorId.localeCompare(b.actorId))
    .map((r) =>
      make(ActorInfoSchema, {
        actorId: r.actorId,
        slots: r.slots,
        busy: r.busy,
        policyVersion: BigInt(Math.trunc(r.policyVersion)),
        rssBytes: BigInt(Math.trunc(r.rssBytes)),
        episodes: BigInt(Math.trunc(r.episodes)),
        updatedAtMs: BigInt(Math.trunc(r.updatedAtMs)),
      }),
    );
}
