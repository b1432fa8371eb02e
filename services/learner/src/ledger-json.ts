// The round ledger as saved (round.json and its journal, a checkpoint's carried-over groups):
// everything but the scored payloads, which stay unacked on the bus until the round's update is
// checkpointed and come back after a restart. Between two full saves a delta holds only what
// changed (the groups touched, the ids newly consumed or dropped as late); applyLedgerDelta folds
// one into the saved JSON.
import { toJson, TaskSchema } from '@owrl/proto';
import type { GroupFate, GroupState, SampleSlot } from './round-group.js';

export interface SlotJson {
  sample: number;
  attempt: number;
  trajectoryId: string;
  outstanding: string[];
  status: SampleSlot['status'];
  acceptedId?: string;
  excludedReasons: string[];
}

export interface GroupJson {
  group: number;
  /** The round the group was dispatched in (absent: the ledger's round). */
  round?: number;
  /** Absent in a delta for a group whose task an earlier save holds. */
  task?: unknown;
  fate: GroupFate;
  samples: SlotJson[];
}

/** What changed in a ledger since its last save (takeDelta): groups replace the saved ones by number. */
export interface RoundLedgerDelta {
  nextGroup: number;
  /** Ids consumed since the last save. */
  consumed: string[];
  /** Ids dropped as late since the last save (absent in deltas written before they were kept). */
  late?: string[];
  groups: GroupJson[];
}

export interface RoundLedgerJson {
  format: 1;
  runId: string;
  round: number;
  incarnation: number;
  maxAttempts: number;
  /** Ids whose results were consumed as excluded (a redelivery of one is a duplicate). */
  consumed: string[];
  /** Ids of results dropped as late (a redelivery of one is a duplicate, not a second late drop). */
  late?: string[];
  /** Number the next new group gets (absent in ledgers written before async mode: groups.length). */
  nextGroup?: number;
  /** `round`: the round the group was dispatched in (absent: the ledger's round). */
  groups: GroupJson[];
}

/**
 * `base` with `delta` applied (a new object; `base` is not changed): groups replaced by number (a
 * new group brings its task), consumed ids added, nextGroup raised.
 * @throws RangeError when the delta names a group that neither holds nor brings a task.
 */
export function applyLedgerDelta(base: RoundLedgerJson, delta: RoundLedgerDelta): RoundLedgerJson {
  const groups = new Map(base.groups.map((g) => [g.group, g]));
  for (const g of delta.groups) {
    const task = g.task ?? groups.get(g.group)?.task;
    if (task === undefined) throw new RangeError(`round ledger delta: group ${g.group} is new but carries no task`);
    groups.set(g.group, { ...g, task });
  }
  return {
    ...base,
    consumed: [...base.consumed, ...delta.consumed],
    late: [...(base.late ?? []), ...(delta.late ?? [])],
    nextGroup: Math.max(base.nextGroup ?? 0, delta.nextGroup),
    groups: [...groups.values()].sort((a, b) => a.group - b.group),
  };
}

/** A slot's saved fields, copied (the scored trajectory is not part of the round file). */
export function slotCopy(s: SlotJson): SlotJson {
  return {
    sample: s.sample,
    attempt: s.attempt,
    trajectoryId: s.trajectoryId,
    outstanding: [...s.outstanding],
    status: s.status,
    ...(s.acceptedId ? { acceptedId: s.acceptedId } : {}),
    excludedReasons: [...s.excludedReasons],
  };
}

/** A group as saved (fates other than abandoned are decided again when the payloads come back). */
export function groupToJson(g: GroupState, withTask: boolean): GroupJson {
  return {
    group: g.group,
    round: g.round,
    ...(withTask ? { task: toJson(TaskSchema, g.task) } : {}),
    fate: g.fate === 'abandoned' ? 'abandoned' : 'pending',
    samples: g.samples.map(slotCopy),
  };
}
