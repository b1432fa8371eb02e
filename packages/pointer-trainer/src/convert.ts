// The learner's pointer groups to and from the trainer contract's TrainGroup. The learner builds,
// per kept group, the rewards and each trajectory's pointer traces (GroupLike of @owrl/rl); the
// contract carries the same traces with the group-relative advantage per sample. `toTrainGroups`
// applies dynamic sampling and the advantages exactly as GrpoTrainer does, so an update through
// the contract trains on what the in-process GrpoTrainer would; `samplesOf` is the way back.
import { DEFAULTS } from '@owrl/core';
import { create, PolicyTraceSchema, PointerTraceSchema, TrainGroupSchema, TrainSampleSchema, TrainStepSchema, type PointerTrace, type TrainGroup } from '@owrl/proto';
import { groupAdvantages, groupFate, type GrpoSample, type PointerTraceLike } from '@owrl/rl';

/** One sample of a group as the learner holds it. */
export interface PointerSampleIn {
  trajectoryId: string;
  reward: number;
  /** Policy version that generated it. */
  policyVersion: bigint | number;
  steps: readonly PointerTraceLike[];
}

/** One finished group as the learner holds it. */
export interface PointerGroupIn {
  taskId: string;
  round: bigint | number;
  group: number;
  samples: readonly PointerSampleIn[];
}

/** A pointer trace as the proto message (copies the arrays). */
export function toPointerTrace(t: PointerTraceLike): PointerTrace {
  return create(PointerTraceSchema, {
    numCandidates: Math.max(0, t.offsets.length - 1),
    offsets: Array.from(t.offsets),
    featureIndex: Array.from(t.featureIndex),
    featureValue: Array.from(t.featureValue),
    chosen: t.chosen,
    logprob: t.logprob,
    temperature: t.temperature,
  });
}

/**
 * The kept groups as TrainGroups: groups whose rewards are all equal are left out (dynamic
 * sampling), every sample carries (r − mean) / (std + eps) of its group.
 */
export function toTrainGroups(groups: readonly PointerGroupIn[], advantageEps: number = DEFAULTS.advantageEps): TrainGroup[] {
  const out: TrainGroup[] = [];
  for (const g of groups) {
    const rewards = g.samples.map((s) => s.reward);
    if (rewards.length === 0 || groupFate(rewards) !== 'kept') continue;
    const adv = groupAdvantages(rewards, advantageEps);
    out.push(
      create(TrainGroupSchema, {
        taskId: g.taskId,
        round: BigInt(g.round),
        group: g.group,
        samples: g.samples.map((s, i) =>
          create(TrainSampleSchema, {
            trajectoryId: s.trajectoryId,
            reward: s.reward,
            advantage: adv[i] ?? 0,
            policyVersion: BigInt(s.policyVersion),
            steps: s.steps.map((t, index) => create(TrainStepSchema, { index, trace: create(PolicyTraceSchema, { kind: { case: 'pointer', value: toPointerTrace(t) } }) })),
          }),
        ),
      }),
    );
  }
  return out;
}

/** Per sample of every group, in order: its pointer steps with the sample's advantage. Non-pointer steps are skipped. */
export function samplesOf(groups: readonly TrainGroup[]): GrpoSample[][] {
  return groups.flatMap((g) =>
    g.samples.map((s) => s.steps.flatMap((st) => (st.trace?.kind.case === 'pointer' ? [{ trace: st.trace.kind.value, advantage: s.advantage }] : []))),
  );
}

/** The group index of each sample `samplesOf` returns (for GrpoTrainer's deal 'group'). */
export function groupIndexOf(groups: readonly TrainGroup[]): number[] {
  return groups.flatMap((g, gi) => g.samples.map(() => gi));
}
