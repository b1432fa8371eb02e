// Bookkeeping of one round (pure): which rollouts were dispatched, which came back scored or
// excluded, which must be re-dispatched, and when each group is complete — where its fate and
// advantages are decided, once. Every dispatched rollout ends in exactly one of: trainable,
// excluded (re-dispatched or abandoned), or still in flight.
//
// The ledger survives a learner crash: toJSON() holds everything but the scored payloads
// (ledger-json.ts), and RoundLedger.restore() rebuilds it under the new incarnation. Between two
// full saves, takeDelta() gives only what changed, so saving after each result costs the size of
// a group, not of the whole fleet's ledger. A result is accepted only for a group of this run and
// round whose task it was produced for (matched by task, not only by id), only once per slot, and
// never twice (ledger-ids.ts).
//
// In async mode a round ends at an update while other groups are still in flight: carryOver()
// moves those groups (with their ids and what came back) into the next round's ledger, so a group
// keeps the round it was dispatched in (its ids name it) and group numbers never repeat across
// the rounds of one ledger chain. A result produced by a policy more than the staleness bound
// behind is refused as `stale` and its slot re-dispatched (ingest's `staleBelow`, expireStale()).
import { parseTrajectoryId, trajectoryId } from '@owrl/core';
import { fromJson, TaskSchema, type ScoredTrajectory, type Task } from '@owrl/proto';
import { groupAdvantages, groupFate } from '@owrl/rl';
import { groupToJson, slotCopy, type GroupJson, type RoundLedgerDelta, type RoundLedgerJson } from './ledger-json.js';
import { LedgerIds } from './ledger-ids.js';
import { countGroups, REASON_STALE, type GroupFate, type GroupState, type IngestResult, type Redispatch, type SampleSlot } from './round-group.js';

export class RoundLedger {
  readonly groups = new Map<number, GroupState>();
  private ids = new LedgerIds();
  /** Number the next new group gets (unique along a chain of carried-over ledgers). */
  nextGroup = 0;
  /** Since the last save (takeDelta/markSaved): groups changed, groups added. */
  private readonly dirty = new Set<number>();
  private readonly added = new Set<number>();
  /**
   * pendingGroups/inFlight/kept, kept up to date at every change of a slot's status or a group's
   * fate (a count by scan was O(groups) per result: 9 % of the learner's CPU at 8000 slots).
   * `null`: recount at the next read (after groups were moved in or out wholesale).
   */
  private tally: { pending: number; inFlight: number; kept: number } | null = null;
  /** Groups of this ledger in the order their fate was decided (restored abandoned ones first). */
  private readonly decidedOrder: GroupState[] = [];

  constructor(
    readonly runId: string,
    readonly round: number,
    readonly maxAttempts: number,
    readonly incarnation = 0,
  ) {}

  /** Registers a group of `n` samples of `task`; returns the trajectory ids to dispatch. */
  addGroup(group: number, task: Task, n: number): string[] {
    if (this.groups.has(group)) throw new RangeError(`group ${group} of round ${this.round} already exists`);
    this.nextGroup = Math.max(this.nextGroup, group + 1);
    const samples: SampleSlot[] = [];
    for (let s = 0; s < n; s++) {
      const id = this.id(group, s, 0);
      samples.push({ sample: s, attempt: 0, trajectoryId: id, outstanding: [id], status: 'in_flight', excludedReasons: [] });
    }
    this.groups.set(group, { round: this.round, group, task, samples, fate: 'pending', rewards: [], advantages: [] });
    if (this.tally) {
      this.tally.pending += 1;
      this.tally.inFlight += n;
    }
    this.touch(group);
    this.added.add(group);
    return samples.map((s) => s.trajectoryId);
  }

  /** Id of an attempt of a slot; it names the round the group was dispatched in. */
  id(group: number, sample: number, attempt: number): string {
    const round = this.groups.get(group)?.round ?? this.round;
    return trajectoryId({ runId: this.runId, round, group, sample, attempt, incarnation: this.incarnation });
  }

  /**
   * Ingests one scored trajectory. Idempotent on trajectory id. A trainable result produced by a
   * policy version below `staleBelow` is excluded as `stale` (its slot re-dispatched).
   */
  ingest(st: ScoredTrajectory, staleBelow = 0): IngestResult {
    const id = st.trajectoryId;
    if (this.ids.has(id)) return { kind: 'duplicate' };
    const res = this.ingestNew(st, staleBelow);
    if (res.kind === 'late') this.ids.dropLate(id);
    return res;
  }

  /** Ids dropped as late by this ledger (the learner keeps them as settled for the next round). */
  lateIds(): string[] {
    return this.ids.lateIds();
  }

  private ingestNew(st: ScoredTrajectory, staleBelow: number): IngestResult {
    const id = st.trajectoryId;
    let key;
    try {
      key = parseTrajectoryId(id);
    } catch {
      return { kind: 'late', cause: 'malformed' };
    }
    if (key.runId !== this.runId) return { kind: 'late', cause: 'other_run' };
    const g = this.groups.get(key.group);
    if (!g || g.round !== key.round) return { kind: 'late', cause: key.round !== this.round ? 'other_round' : 'unknown_group' };
    const slot = g.samples[key.sample];
    if (!slot) return { kind: 'late', cause: 'unknown_group' };
    const taskId = st.trajectory?.request?.task?.id;
    const known = slot.outstanding.includes(id) || slot.acceptedId === id;
    // A result from before a crash whose dispatch the ledger never recorded is taken only when it
    // was produced for this group's task; any result naming another task is refused.
    if ((taskId !== undefined && taskId !== g.task.id) || (!known && taskId === undefined)) return { kind: 'late', cause: 'task_mismatch' };
    this.touch(g.group);
    if (slot.status === 'done' && slot.acceptedId === id && slot.scored === undefined) {
      this.ids.see(id);
      slot.scored = st;
      return { kind: 'restored', group: g, completed: this.settle(g) };
    }
    if (slot.status !== 'in_flight') {
      this.ids.see(id);
      slot.outstanding = slot.outstanding.filter((o) => o !== id);
      return { kind: 'late', cause: 'superseded' };
    }
    this.ids.see(id);
    slot.outstanding = slot.outstanding.filter((o) => o !== id);
    const stale = st.trainable && Number(st.trajectory?.policyVersion ?? 0n) < staleBelow;
    if (st.trainable && !stale) {
      this.setStatus(slot, 'done');
      slot.acceptedId = id;
      slot.scored = st;
      return { kind: 'trainable', group: g, completed: this.settle(g) };
    }
    this.ids.consume(id);
    const reason = stale ? REASON_STALE : st.excludedReason || 'excluded';
    slot.excludedReasons.push(reason);
    if (slot.outstanding.length > 0) return { kind: 'excluded', group: g, reason, completed: false };
    if (slot.attempt + 1 < this.maxAttempts) {
      slot.attempt += 1;
      slot.trajectoryId = this.id(g.group, slot.sample, slot.attempt);
      slot.outstanding = [slot.trajectoryId];
      return { kind: 'excluded', group: g, reason, redispatch: { sample: slot.sample, attempt: slot.attempt }, completed: false };
    }
    this.setStatus(slot, 'abandoned');
    return { kind: 'excluded', group: g, reason, completed: this.settle(g) };
  }

  /**
   * Withdraws the re-dispatch that ingest() just planned for `sample` of `group`, instead of
   * publishing it (its host became blacklisted): the slot is abandoned without a new attempt, so
   * the group ends abandoned once its other samples are back. Returns whether the group is now complete.
   * @throws RangeError when no re-dispatch of that slot is pending.
   */
  cancelRedispatch(group: number, sample: number): boolean {
    const g = this.groups.get(group);
    const slot = g?.samples[sample];
    if (!g || !slot || slot.status !== 'in_flight' || slot.attempt === 0) {
      throw new RangeError(`round ${this.round} group ${group} sample ${sample} has no pending re-dispatch to cancel`);
    }
    this.setStatus(slot, 'abandoned');
    slot.outstanding = [];
    this.touch(g.group);
    return this.settle(g);
  }

  /**
   * After a restart: a new id (this incarnation) for every slot still waiting for a result, so the
   * re-dispatch is never swallowed by a dedupe window. The earlier ids stay acceptable: whichever
   * result comes first fills the slot, a later one is dropped as superseded.
   */
  redispatchMissing(): Redispatch[] {
    const out: Redispatch[] = [];
    for (const g of this.groups.values()) {
      for (const s of g.samples) {
        if (s.status !== 'in_flight') continue;
        const id = this.id(g.group, s.sample, s.attempt);
        if (s.outstanding.includes(id)) continue;
        s.trajectoryId = id;
        s.outstanding.push(id);
        this.touch(g.group);
        out.push({ group: g, sample: s.sample, attempt: s.attempt, trajectoryId: id });
      }
    }
    return out;
  }

  /** Marks every rollout still in flight as abandoned (round timeout). Returns how many. */
  abandonInFlight(): number {
    let n = 0;
    for (const g of this.groups.values()) {
      for (const s of g.samples) {
        if (s.status === 'in_flight') {
          this.setStatus(s, 'abandoned');
          n++;
          this.touch(g.group);
        }
      }
      this.settle(g);
    }
    return n;
  }

  /**
   * Async mode, at an update: the ledger of round `round`, holding this ledger's groups that are
   * still pending (moved, not copied: this ledger keeps the groups decided in its round) with the
   * ids of theirs already consumed, so a redelivery stays a duplicate.
   */
  carryOver(round: number): RoundLedger {
    const next = new RoundLedger(this.runId, round, this.maxAttempts, this.incarnation);
    next.nextGroup = this.nextGroup;
    for (const [n, g] of [...this.groups]) {
      if (g.fate !== 'pending') continue;
      next.groups.set(n, g);
      this.groups.delete(n);
    }
    this.tally = null;
    next.tally = null;
    this.ids.carryInto(next.ids, (round, group) => next.groups.get(group)?.round === round);
    return next;
  }

  /**
   * Async mode, after an update: results of pending groups produced by a policy version below
   * `minVersion` are refused as `stale` (their ids consumed) and their slots re-dispatched under a
   * new attempt. Returns the re-dispatches to publish and the refused ids (to ack).
   */
  expireStale(minVersion: number): { redispatch: Redispatch[]; expired: string[] } {
    const redispatch: Redispatch[] = [];
    const expired: string[] = [];
    for (const g of this.groups.values()) {
      if (g.fate !== 'pending') continue;
      for (const s of g.samples) {
        if (s.status !== 'done' || !s.scored || !s.acceptedId) continue;
        if (Number(s.scored.trajectory?.policyVersion ?? 0n) >= minVersion) continue;
        expired.push(s.acceptedId);
        this.ids.consume(s.acceptedId);
        this.touch(g.group);
        s.excludedReasons.push(REASON_STALE);
        s.attempt += 1;
        this.setStatus(s, 'in_flight');
        delete s.acceptedId;
        delete s.scored;
        s.trajectoryId = this.id(g.group, s.sample, s.attempt);
        s.outstanding = [s.trajectoryId];
        redispatch.push({ group: g, sample: s.sample, attempt: s.attempt, trajectoryId: s.trajectoryId });
      }
    }
    return { redispatch, expired };
  }

  private touch(group: number): void {
    this.dirty.add(group);
  }

  private setStatus(slot: SampleSlot, status: SampleSlot['status']): void {
    if (this.tally) this.tally.inFlight += (status === 'in_flight' ? 1 : 0) - (slot.status === 'in_flight' ? 1 : 0);
    slot.status = status;
  }

  /** pendingGroups, inFlight and kept (counted in one pass only after a wholesale change). */
  private counts(): { pending: number; inFlight: number; kept: number } {
    this.tally ??= countGroups(this.groups.values());
    return this.tally;
  }

  /** Groups decided in this ledger, from the `from`-th decision on (the caller keeps its place). */
  decidedSince(from: number): GroupState[] {
    return this.decidedOrder.slice(from);
  }

  /** Groups kept (decided and trainable). */
  keptGroups(): number {
    return this.counts().kept;
  }

  /** What changed since the last takeDelta() or markSaved() (see applyLedgerDelta); starts the next delta. */
  takeDelta(): RoundLedgerDelta {
    const groups: GroupJson[] = [];
    for (const n of this.dirty) {
      const g = this.groups.get(n);
      if (g) groups.push(groupToJson(g, this.added.has(n)));
    }
    const delta = { nextGroup: this.nextGroup, ...this.ids.takeSinceSave(), groups };
    this.markSaved();
    return delta;
  }

  /** The whole ledger was saved (toJSON): the next delta starts from here. */
  markSaved(): void {
    this.dirty.clear();
    this.added.clear();
    this.ids.markSaved();
  }

  /** Groups still waiting for results. */
  pendingGroups(): number {
    return this.counts().pending;
  }

  /** Whether `id` is the accepted result of a group still pending (its delivery stays held). */
  holds(id: string): boolean {
    try {
      const k = parseTrajectoryId(id);
      const g = this.groups.get(k.group);
      return g !== undefined && g.round === k.round && g.fate === 'pending' && g.samples[k.sample]?.acceptedId === id;
    } catch {
      return false;
    }
  }

  /** Decides a complete group's fate and advantages, once. */
  private settle(g: GroupState): boolean {
    if (g.fate !== 'pending') return false;
    if (g.samples.some((s) => s.status === 'in_flight' || (s.status === 'done' && s.scored === undefined))) return false;
    this.decidedOrder.push(g);
    if (this.tally) this.tally.pending -= 1;
    if (g.samples.some((s) => s.status === 'abandoned')) {
      g.fate = 'abandoned';
      return true;
    }
    g.rewards = g.samples.map((s) => s.scored?.verdict?.reward ?? 0);
    const fate = groupFate(g.rewards);
    g.fate = fate === 'dropped_all_equal' ? 'dropped_all_zero' : fate;
    if (g.fate === 'kept' && this.tally) this.tally.kept += 1;
    g.advantages = g.fate === 'kept' ? groupAdvantages(g.rewards) : [];
    return true;
  }

  inFlight(): number {
    return this.counts().inFlight;
  }

  /** Slots whose result was ingested before a restart and whose payload has not come back yet. */
  awaitingPayload(): number {
    let n = 0;
    for (const g of this.groups.values()) for (const s of g.samples) if (s.status === 'done' && s.scored === undefined) n++;
    return n;
  }

  /** Groups whose samples are all back with their payloads (fate decided). */
  completeGroups(): GroupState[] {
    return [...this.groups.values()].filter((g) => g.fate !== 'pending' && g.fate !== 'abandoned');
  }

  /**
   * Whether `g` was dropped because one of its samples spent its attempts (every attempt came back
   * excluded), rather than for a round timeout or a blacklisted host.
   */
  exhausted(g: GroupState): boolean {
    return g.fate === 'abandoned' && g.samples.some((s) => s.status === 'abandoned' && s.attempt + 1 >= this.maxAttempts && s.excludedReasons.length >= s.attempt + 1);
  }

  /** Groups of the given fate. */
  byFate(fate: GroupFate): GroupState[] {
    return [...this.groups.values()].filter((g) => g.fate === fate);
  }

  toJSON(): RoundLedgerJson {
    return {
      format: 1,
      runId: this.runId,
      round: this.round,
      incarnation: this.incarnation,
      maxAttempts: this.maxAttempts,
      ...this.ids.toJSON(),
      nextGroup: this.nextGroup,
      groups: [...this.groups.values()].map((g) => groupToJson(g, true)),
    };
  }

  /**
   * Rebuilds a ledger saved by an earlier incarnation under `incarnation`. Slots that were done
   * wait for their payload (redelivered by the bus); what was in flight stays in flight.
   * @throws RangeError naming what is wrong with `j`.
   */
  static restore(j: RoundLedgerJson, incarnation: number): RoundLedger {
    if (j.format !== 1) throw new RangeError(`round ledger: unknown format ${String(j.format)}`);
    const l = new RoundLedger(j.runId, j.round, j.maxAttempts, incarnation);
    l.ids = new LedgerIds(j);
    l.nextGroup = j.nextGroup ?? 0;
    for (const g of j.groups) {
      if (g.task === undefined) throw new RangeError(`round ledger: group ${g.group} has no task`);
      const task = fromJson(TaskSchema, g.task as never);
      l.nextGroup = Math.max(l.nextGroup, g.group + 1);
      l.groups.set(g.group, {
        round: g.round ?? j.round,
        group: g.group,
        task,
        fate: g.fate === 'abandoned' ? 'abandoned' : 'pending',
        rewards: [],
        advantages: [],
        samples: g.samples.map(slotCopy),
      });
    }
    for (const g of l.groups.values()) if (g.fate === 'abandoned') l.decidedOrder.push(g);
    return l;
  }
}
