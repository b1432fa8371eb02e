// The learner's side of the host blacklist: counts every ingested outcome that is the site's fault
// against the task's host, writes the host to KV owrl_blacklist when it crosses the threshold, and
// answers "is this host blocked" for dispatch and re-dispatch (with the gauge of blocked hosts).
import { BlacklistCache, type Blacklist, type BlacklistEntry } from '@owrl/bus';
import { hostFailureCause, hostOf, type Logger } from '@owrl/core';
import { terminationClassName, type ScoredTrajectory } from '@owrl/proto';
import { HostFailureWindow, type HostTrip } from './host-failures.js';
import type { LearnerMetrics } from './metrics.js';

export interface HostGuardOptions {
  /** Failures within the window that blacklist a host; 0 turns automatic blacklisting off. */
  threshold: number;
  windowMs: number;
  /** Life of an automatic entry (`untilMs = now + ttlMs`). */
  ttlMs: number;
  /** How long a per-host look-up of KV is reused (entries written by others, e.g. `owrl blacklist add`). */
  cacheMs: number;
}

export class HostGuard {
  private readonly window: HostFailureWindow | null;
  private readonly cache: BlacklistCache;
  /** The last full read of the bucket (blockedHosts), reused for cacheMs. */
  private blocked: { atMs: number; hosts: Set<string> } | null = null;

  constructor(
    private readonly blacklist: Blacklist,
    private readonly o: HostGuardOptions,
    private readonly metrics: Pick<LearnerMetrics, 'blacklistHosts' | 'hostFailures'>,
    private readonly log: Logger,
    private readonly clock: () => number = Date.now,
  ) {
    this.window = o.threshold > 0 ? new HostFailureWindow({ threshold: o.threshold, windowMs: o.windowMs }) : null;
    this.cache = new BlacklistCache(blacklist, o.cacheMs, clock);
  }

  /**
   * Counts `scored` against its task's host when it is a site failure; when that crosses the
   * threshold, blacklists the host and returns the trip. A failed KV write is logged, not thrown:
   * training goes on, and the host trips again after another threshold of failures.
   */
  async observe(scored: ScoredTrajectory): Promise<HostTrip | null> {
    const traj = scored.trajectory;
    const host = hostOf(traj?.request?.task?.startUrl ?? '');
    const cause = hostFailureCause(terminationClassName(traj?.termination?.class), traj?.termination?.reason ?? '');
    if (!host || cause === null) return null;
    this.metrics.hostFailures.inc({ host, reason: cause });
    const now = this.clock();
    const trip = this.window?.record(host, cause, now) ?? null;
    if (!trip) return null;
    const entry: BlacklistEntry = { reason: trip.reason, failures: trip.failures, untilMs: now + this.o.ttlMs };
    try {
      await this.blacklist.add(host, entry);
    } catch (e) {
      this.log.error({ err: e, host, reason: trip.reason }, 'blacklisting a failing host failed');
      return null;
    }
    this.cache.note(host, entry);
    this.blocked = null;
    this.log.warn({ host, reason: trip.reason, failures: trip.failures, until: new Date(entry.untilMs).toISOString() }, 'host blacklisted');
    await this.blockedHosts().catch((e: unknown) => this.log.warn({ err: e }, 'reading the blacklist failed'));
    return trip;
  }

  /** The host-failure windows, for checkpoints. */
  snapshot(): Record<string, Array<{ atMs: number; cause: string }>> {
    return this.window?.snapshot() ?? {};
  }

  restore(s: Record<string, Array<{ atMs: number; cause: string }>>): void {
    this.window?.restore(s);
  }

  /** Whether `host` is blocked now (cached look-up; the guard's own entries count at once). KV errors read as not blocked. */
  async isBlocked(host: string): Promise<boolean> {
    try {
      return await this.cache.isBlocked(host);
    } catch (e) {
      this.log.warn({ err: e, host }, 'blacklist look-up failed; treating the host as not blocked');
      return false;
    }
  }

  /**
   * Every host blocked now, for scheduling: a full read of the bucket, reused for cacheMs like the
   * per-host look-ups (a read per dispatch batch was a KV watcher round trip for every group a
   * large fleet asks for); the guard's own entries count at once. Updates the gauge.
   */
  async blockedHosts(): Promise<Set<string>> {
    const now = this.clock();
    if (this.blocked && now - this.blocked.atMs < this.o.cacheMs) return this.blocked.hosts;
    const hosts = await this.blacklist.blockedHosts(now);
    this.blocked = { atMs: now, hosts };
    this.metrics.blacklistHosts.set(hosts.size);
    return hosts;
  }

  /** The next blockedHosts() reads the bucket again (waiting for an entry to expire or be removed). */
  refresh(): void {
    this.blocked = null;
  }
}
