// Identity of rollouts: trajectory_id = run/round/group/sample/attempt[@incarnation]. It is the
// Nats-Msg-Id on publish and the dedupe key of the judge and the learner. The incarnation (the
// learner's start count, bumped and persisted at each start) makes a re-dispatch after a restart a
// new id, so neither JetStream's duplicate window nor the judge's dedupe can swallow it.

export interface TrajectoryKey {
  runId: string;
  round: number;
  group: number;
  sample: number;
  attempt: number;
  /** Start count of the learner that dispatched it; 0 (or absent) writes no `@` suffix. */
  incarnation?: number;
}

const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function trajectoryId(k: TrajectoryKey): string {
  if (!RUN_ID.test(k.runId)) {
    throw new RangeError(`run id ${JSON.stringify(k.runId)} must match ${RUN_ID} (letters, digits, _ -: it is a NATS subject token)`);
  }
  const inc = k.incarnation ?? 0;
  if (!Number.isInteger(inc) || inc < 0) throw new RangeError(`incarnation ${String(inc)} must be an integer >= 0`);
  return `${k.runId}/${k.round}/${k.group}/${k.sample}/${k.attempt}${inc > 0 ? `@${inc}` : ''}`;
}

/** @throws RangeError naming the id when it is not run/round/group/sample/attempt[@incarnation]. */
export function parseTrajectoryId(id: string): TrajectoryKey {
  const at = id.indexOf('@');
  const incRaw = at >= 0 ? id.slice(at + 1) : '0';
  const incarnation = /^\d{1,9}$/.test(incRaw) ? Number(incRaw) : NaN;
  const parts = (at >= 0 ? id.slice(0, at) : id).split('/');
  const nums = parts.slice(1).map((p) => Number(p));
  if (parts.length !== 5 || !RUN_ID.test(parts[0] ?? '') || nums.some((n) => !Number.isInteger(n) || n < 0) || Number.isNaN(incarnation)) {
    throw new RangeError(`trajectory id ${JSON.stringify(id)} is not run/round/group/sample/attempt[@incarnation]`);
  }
  const [round, group, sample, attempt] = nums as [number, number, number, number];
  const key: TrajectoryKey = { runId: parts[0] as string, round, group, sample, attempt };
  if (incarnation > 0) key.incarnation = incarnation;
  return key;
}

/** Key of the group a trajectory belongs to: run/round/group. */
export function groupKey(k: Pick<TrajectoryKey, 'runId' | 'round' | 'group'>): string {
  return `${k.runId}/${k.round}/${k.group}`;
}
