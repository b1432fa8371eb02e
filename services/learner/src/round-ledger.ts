// Bookkeeping of one round (pure): which rollouts were dispatched, which came back scored or
// excluded, which must be re-dispatched, and when each group is complete. Every dispatched
// rollout ends in exactly one of: trainable, excluded (re-dispatched or abandoned), or still in flight.
import { parseTrajectoryId, trajectoryId } from '@owrl/core';
import type { ScoredTrajectory, Task } from '@owrl/proto';

export type GroupFate = 'pending' | 'kept' | 'dropped_all_zero' | 'dropped_all_one' | 'abandoned';

export interface SampleSlot {
  sample: number;
  attempt: number;
  trajectoryId: string;
  status: 'in_flight' | 'done' | 'abandoned';
  scored?: ScoredTrajectory;
  excludedReasons: string[];
}

export interface GroupState {
  round: number;
  group: number;
  task: Task;
  samples: SampleSlot[];
  fate: GroupFate;
  rewards: number[];
  advantages: number[];
}

export type IngestResult =
  | { kind: 'duplicate' }
  | { kind: 'late' }
  | { kind: 'trainable'; group: GroupState; completed: boolean }
  | { kind: 'excluded'; group: GroupState; reason: string; redispatch?: { sample: number; attempt: number }; completed: boolean };

export class RoundLedger {
  readonly groups = new Map<number, GroupState>();
  private readonly seen = new Set<string>();

  constructor(
    readonly runId: string,
    readonly round: number,
    private readonly maxAttempts: number,
  ) {}

  /** Registers a group of `n` samples of `task`; returns the trajectory ids to dispatch. */
  addGroup(group: number, task: Task, n: number): string[] {
    if (this.groups.has(group)) throw new RangeError(`group ${group} of round ${this.round} already exists`);
    const samples: SampleSlot[] = [];
    for (let s = 0; s < n; s++) {
      samples.push({ sample: s, attempt: 0, trajectoryId: this.id(group, s, 0), status: 'in_flight', excludedReasons: [] });
    }
    this.groups.set(group, { round: this.round, group, task, samples, fate: 'pending', rewards: [], advantages: [] });
    return samples.map((s) => s.trajectoryId);
  }

  id(group: number, sample: number, attempt: number): string {
    return trajectoryId({ runId: this.runId, round: this.round, group, sample, attempt });
  }

  /** Ingests one scored trajectory. Idempotent on trajectory id. */
  ingest(st: ScoredTrajectory): IngestResult {
    if (this.seen.has(st.trajectoryId)) return { kind: 'duplicate' };
    let key;
    try {
      key = parseTrajectoryId(st.trajectoryId);
    } catch {
      return { kind: 'late' };
    }
    const g = key.runId === this.runId && key.round === this.round ? this.groups.get(key.group) : undefined;
    const slot = g?.samples[key.sample];
    if (!g || !slot || slot.attempt !== key.attempt || slot.status !== 'in_flight') return { kind: 'late' };
    this.seen.add(st.trajectoryId);
    if (st.trainable) {
      slot.status = 'done';
      slot.scored = st;
      return { kind: 'trainable', group: g, completed: this.settle(g) };
    }
    const reason = st.excludedReason || 'excluded';
    slot.excludedReasons.push(reason);
    if (slot.attempt + 1 < this.maxAttempts) {
      slot.attempt += 1;
      slot.trajectoryId = this.id(g.group, slot.sample, slot.attempt);
      return { kind: 'excluded', group: g, reason, redispatch: { sample: slot.sample, attempt: slot.attempt }, completed: false };
    }
    slot.status = 'abandoned';
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
    slot.status = 'abandoned';
    return this.settle(g);
  }

  /** Marks every rollout still in flight as abandoned (round timeout). Returns how many. */
  abandonInFlight(): number {
    let n = 0;
    for (const g of this.groups.values()) {
      for (const s of g.samples) {
        if (s.status === 'in_flight') {
          s.status = 'abandoned';
          n++;
        }
      }
      this.settle(g);
    }
    return n;
  }

  private settle(g: GroupState): boolean {
    if (g.fate !== 'pending') return false;
    if (g.samples.some((s) => s.status === 'in_flight')) return false;
    if (g.samples.some((s) => s.status === 'abandoned')) {
      g.fate = 'abandoned';
      return true;
    }
    g.rewards = g.samples.map((s) => s.scored?.verdict?.reward ?? 0);
    return true;
  }

  inFlight(): number {
    let n = 0;
    for (const g of this.groups.values()) for (const s of g.samples) if (s.status === 'in_flight') n++;
    return n;
  }

  /** Groups whose samples are all back (fate decided by the caller's dynamic sampling). */
  completeGroups(): GroupState[] {
    return [...this.groups.values()].filter((g) => g.samples.every((s) => s.status === 'done'));
  }
}

