// A round's groups as the ledger keeps them (round-ledger.ts): a task, its sample slots, each
// dispatched, re-dispatched, done or abandoned, and the fate and advantages the ledger decides
// once the group is complete; and what ingesting one result can come to.
import type { ScoredTrajectory, Task } from '@owrl/proto';

export type GroupFate = 'pending' | 'kept' | 'dropped_all_zero' | 'dropped_all_one' | 'abandoned';

export interface SampleSlot {
  sample: number;
  attempt: number;
  /** Id of the latest dispatch of this slot. */
  trajectoryId: string;
  /** Ids dispatched for this slot whose result has not come back (more than one after a restart re-dispatch). */
  outstanding: string[];
  status: 'in_flight' | 'done' | 'abandoned';
  /** Id of the result the slot holds (status done). */
  acceptedId?: string;
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

/** Exclusion reason of a result produced by a policy more versions behind than the staleness bound. */
export const REASON_STALE = 'stale';

/** Why a result was not taken into the round (each counted, then acked). */
export type DropCause = 'malformed' | 'other_run' | 'other_round' | 'unknown_group' | 'task_mismatch' | 'superseded';

export type IngestResult =
  | { kind: 'duplicate' }
  | { kind: 'late'; cause: DropCause }
  /** The payload of a result ingested before a restart came back: attached, counted nowhere again. */
  | { kind: 'restored'; group: GroupState; completed: boolean }
  | { kind: 'trainable'; group: GroupState; completed: boolean }
  | { kind: 'excluded'; group: GroupState; reason: string; redispatch?: { sample: number; attempt: number }; completed: boolean };

/** A re-dispatch the caller must publish. */
export interface Redispatch {
  group: GroupState;
  sample: number;
  attempt: number;
  trajectoryId: string;
}

/** Groups pending and kept, and rollouts in flight, counted in one pass. */
export function countGroups(groups: Iterable<GroupState>): { pending: number; inFlight: number; kept: number } {
  let pending = 0;
  let inFlight = 0;
  let kept = 0;
  for (const g of groups) {
    if (g.fate === 'pending') pending++;
    else if (g.fate === 'kept') kept++;
    for (const s of g.samples) if (s.status === 'in_flight') inFlight++;
  }
  return { pending, inFlight, kept };
}
