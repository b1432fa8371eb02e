// Identity of rollouts: trajectory_id = run/round/group/sample/attempt. It is the Nats-Msg-Id on
// publish and the dedupe key of the judge and the learner.

export interface TrajectoryKey {
  runId: string;
  round: number;
  group: number;
  sample: number;
  attempt: number;
}

const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function trajectoryId(k: TrajectoryKey): string {
  if (!RUN_ID.test(k.runId)) {
    throw new RangeError(`run id ${JSON.stringify(k.runId)} must match ${RUN_ID} (letters, digits, _ -: it is a NATS subject token)`);
  }
  return `${k.runId}/${k.round}/${k.group}/${k.sample}/${k.attempt}`;
}

/** @throws RangeError naming the id when it is not run/round/group/sample/attempt. */
export function parseTrajectoryId(id: string): TrajectoryKey {
  const parts = id.split('/');
  const nums = parts.slice(1).map((p) => Number(p));
  if (parts.length !== 5 || !RUN_ID.test(parts[0] ?? '') || nums.some((n) => !Number.isInteger(n) || n < 0)) {
    throw new RangeError(`trajectory id ${JSON.stringify(id)} is not run/round/group/sample/attempt`);
  }
  const [round, group, sample, attempt] = nums as [number, number, number, number];
  return { runId: parts[0] as string, round, group, sample, attempt };
}

/** Key of the group a trajectory belongs to: run/round/group. */
export function groupKey(k: Pick<TrajectoryKey, 'runId' | 'round' | 'group'>): string {
  return `${k.runId}/${k.round}/${k.group}`;
}
