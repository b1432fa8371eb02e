// One stats record per event: every dispatch, ingested result, abandonment and group fate goes
// through here, which updates the run state's counters and breakdowns, the round's own
// breakdowns and the metrics together (instead of three sinks updated by hand at each site).
// The round's part is saved with the round ledger, so a restart resumes the counts exactly.
import { hostOf } from '@owrl/core';
import { make, RunCountersSchema, terminationClassName, type ScoredTrajectory } from '@owrl/proto';
import { recordShadow } from './judge-calibration.js';
import type { LearnerMetrics } from './metrics.js';
import { REASON_STALE, type GroupState, type IngestResult } from './round-group.js';
import type { RunStateStore } from './run-state-store.js';

export class RoundStats {
  /** Termination classes of the round's ingested results. */
  readonly terminations: Record<string, number> = {};
  /** Exclusion causes of the round's results. */
  readonly excluded: Record<string, number> = {};
  /** Groups whose fate was counted (`round/group`): a group decided again after a restart is counted once. */
  private readonly decided = new Set<string>();
  /** Keys added to `decided` since the last save (takeDelta/markSaved). */
  private decidedSinceSave: string[] = [];
  /** Task timeouts of the round, by whom the failure rules blamed them on. */
  readonly timeouts = { policy: 0, site: 0 };
  /** Groups of the round dropped because a sample spent its attempts. */
  exhaustedGroups = 0;

  constructor(
    private readonly store: RunStateStore,
    private readonly metrics: LearnerMetrics,
  ) {
    store.mutable.counters ??= make(RunCountersSchema, {});
  }

  private get c() {
    return this.store.mutable.counters!;
  }

  dispatched(redispatch: boolean): void {
    this.c.dispatched += 1n;
    if (redispatch) this.c.redispatched += 1n;
    this.metrics.dispatched.inc();
  }

  /** One result taken from the bus, whatever became of it. */
  ingested(st: ScoredTrajectory, res: IngestResult): void {
    const c = this.c;
    switch (res.kind) {
      case 'duplicate':
        c.duplicatesDropped += 1n;
        this.metrics.dropped.inc({ cause: 'duplicate' });
        return;
      case 'late':
        c.lateDropped += 1n;
        this.metrics.dropped.inc({ cause: res.cause });
        return;
      case 'restored':
        return;
      default:
        break;
    }
    c.scoredIngested += 1n;
    const traj = st.trajectory;
    const cls = terminationClassName(traj?.termination?.class);
    this.terminations[cls] = (this.terminations[cls] ?? 0) + 1;
    const t = this.store.mutable.terminations;
    t[cls] = (t[cls] ?? 0n) + 1n;
    this.metrics.terminations.inc({ class: cls, host: hostOf(traj?.request?.task?.startUrl ?? '') });
    recordShadow(this.store.mutable, st);
    if (res.kind === 'trainable') {
      c.trainable += 1n;
      return;
    }
    c.excluded += 1n;
    this.excluded[res.reason] = (this.excluded[res.reason] ?? 0) + 1;
    const e = this.store.mutable.excluded;
    e[res.reason] = (e[res.reason] ?? 0n) + 1n;
    this.metrics.excluded.inc({ reason: res.reason });
  }

  /**
   * Async mode: `n` results counted trainable went stale before their group was trained: they
   * count as excluded (`stale`) instead, so trainable results stay those trained.
   */
  expiredStale(n: number): void {
    if (n === 0) return;
    const c = this.c;
    c.trainable -= BigInt(n);
    c.excluded += BigInt(n);
    this.excluded[REASON_STALE] = (this.excluded[REASON_STALE] ?? 0) + n;
    const e = this.store.mutable.excluded;
    e[REASON_STALE] = (e[REASON_STALE] ?? 0n) + BigInt(n);
    this.metrics.excluded.inc({ reason: REASON_STALE }, n);
  }

  /** Queue lag of an ingested result (dispatch to the actor's start) and its ingest lag (judged to ingested). */
  observeLag(scored: ScoredTrajectory): void {
    const traj = scored.trajectory;
    const req = traj?.request;
    if (req && traj.startedAtMs > 0n && req.dispatchedAtMs > 0n) this.metrics.queueLagSeconds.observe(Math.max(0, Number(traj.startedAtMs - req.dispatchedAtMs) / 1000));
    if (scored.judgedAtMs > 0n) this.metrics.ingestLagSeconds.observe(Math.max(0, Date.now() - Number(scored.judgedAtMs)) / 1000);
  }

  /** A task timeout the failure rules blamed on the policy (trained) or the site (excluded). */
  timeout(blame: 'policy' | 'site'): void {
    this.timeouts[blame] += 1;
    if (blame === 'policy') this.c.timeoutsPolicy += 1n;
    else this.c.timeoutsSite += 1n;
    this.metrics.timeouts.inc({ blame });
  }

  /** The in-flight count, from the ledger (exact after a restart too). */
  inFlight(n: number): void {
    this.c.inFlight = BigInt(n);
  }

  /** A complete group's fate (decided once by the ledger); `exhausted`: dropped because a sample spent its attempts. */
  groupDecided(g: GroupState, exhausted = false): void {
    const key = `${g.round}/${g.group}`;
    if (this.decided.has(key)) return;
    this.decided.add(key);
    this.decidedSinceSave.push(key);
    const c = this.c;
    if (g.fate === 'kept') c.groupsKept += 1n;
    else if (g.fate === 'dropped_all_zero') c.groupsDroppedAllZero += 1n;
    else if (g.fate === 'dropped_all_one') c.groupsDroppedAllOne += 1n;
    else if (g.fate === 'abandoned') c.groupsAbandoned += 1n;
    if (exhausted) {
      c.groupsExhausted += 1n;
      this.exhaustedGroups += 1;
      this.metrics.exhaustedGroups.inc();
    }
    this.metrics.groups.inc({ fate: g.fate });
  }

  toJSON(): RoundStatsJson {
    return { terminations: { ...this.terminations }, excluded: { ...this.excluded }, decided: [...this.decided], timeouts: { ...this.timeouts }, exhaustedGroups: this.exhaustedGroups };
  }

  /** The round file's delta: the breakdowns (small) and the groups decided since the last save. */
  takeDelta(): RoundStatsJson {
    const d = { terminations: { ...this.terminations }, excluded: { ...this.excluded }, decided: this.decidedSinceSave, timeouts: { ...this.timeouts }, exhaustedGroups: this.exhaustedGroups };
    this.decidedSinceSave = [];
    return d;
  }

  /** The whole record was saved (toJSON): the next delta starts from here. */
  markSaved(): void {
    this.decidedSinceSave = [];
  }

  restore(j: Partial<RoundStatsJson>): void {
    Object.assign(this.terminations, j.terminations ?? {});
    Object.assign(this.excluded, j.excluded ?? {});
    for (const k of j.decided ?? []) this.decided.add(k);
    this.timeouts.policy = j.timeouts?.policy ?? 0;
    this.timeouts.site = j.timeouts?.site ?? 0;
    this.exhaustedGroups = j.exhaustedGroups ?? 0;
  }
}

/** What a round file keeps of the round's stats (timeouts and exhaustedGroups absent in files written before the failure rules). */
export interface RoundStatsJson {
  terminations: Record<string, number>;
  excluded: Record<string, number>;
  decided: string[];
  timeouts?: { policy: number; site: number };
  exhaustedGroups?: number;
}
