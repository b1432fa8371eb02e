// The update request the learner hands to its trainer (docs/trainer.md): exactly the round's kept
// groups, each sample with the advantage the round ledger decided, the policy version that
// generated it, and per step the policy trace as the actor recorded it (a pointer trace, or a
// token trace with prompt and completion token ids, behaviour log-probs, loss mask and image
// references). Token steps the server gave no ids or log-probs for (`incomplete`), and steps
// whose loss mask leaves every token out (a length cut-off, an unparseable reply), train nothing
// and are left out, counted; a sample whose steps were all left out (or could not be read back)
// is not sent (its group's advantages stay as decided over the whole group), nor is a group with
// no sample left. Pure logic.
import { create, SCHEMA_VERSION, shareTrace, stepTraces, traceKind, TrainGroupSchema, TrainHeaderSchema, TrainSampleSchema, TrainStepSchema, type TrainGroup, type TrainHeader, type TrainHyperparams } from '@owrl/proto';
import type { GroupState } from './round-group.js';

export interface TrainBatch {
  header: TrainHeader;
  groups: TrainGroup[];
  /** Steps handed over, and steps left out (no usable trace; a loss mask of zeros). */
  steps: number;
  skippedSteps: number;
  maskedSteps: number;
  /** Kept samples not sent: no step left to train. */
  samplesNotSent: number;
  /**
   * Samples whose steps could not be read back (OWRL_HELD_STEPS: their message gone from the
   * stream, a failed read): handed over without steps, so they train nothing; why, by trajectory id.
   */
  unreadable: Array<{ trajectoryId: string; error: string }>;
  /** Mean reward over the batch's samples. */
  meanReward: number;
}

/** Idempotency key of the update that produces `target` (the contract's batch_id). */
export function batchId(runId: string, target: bigint): string {
  return `${runId}/update-${target}`;
}

/**
 * The request for the update from `baseVersion` to `baseVersion + 1` over `kept` (groups whose
 * fate is `kept`; any other group is an error of the caller).
 */
export function buildTrainBatch(runId: string, kept: readonly GroupState[], baseVersion: bigint, hyper: TrainHyperparams): TrainBatch {
  let steps = 0;
  let skippedSteps = 0;
  let maskedSteps = 0;
  let samplesNotSent = 0;
  const unreadable: TrainBatch['unreadable'] = [];
  let rewardSum = 0;
  let samples = 0;
  const groups = kept.flatMap((g) => {
    if (g.fate !== 'kept') throw new Error(`group ${g.group} of round ${g.round} has fate ${g.fate}; only kept groups are trained`);
    const group = create(TrainGroupSchema, {
      taskId: g.task.id,
      round: BigInt(g.round),
      group: g.group,
      samples: g.samples.flatMap((s, i) => {
        const traj = s.scored?.trajectory;
        const reward = g.rewards[i] ?? 0;
        // The steps' index and trace only: steps still encoded (decodeScoredLazy) are not decoded.
        let traces: ReturnType<typeof stepTraces> = [];
        try {
          traces = traj ? stepTraces(traj) : [];
        } catch (e) {
          unreadable.push({ trajectoryId: traj?.trajectoryId ?? s.trajectoryId, error: (e as Error).message });
        }
        const trained = traces.flatMap((st) => {
          // A pointer trace is usable as it is: its kind is read without decoding it (a trace
          // delivered encoded stays so until the trainer reads it: decodeScoredLazy).
          const kind = traceKind(st);
          const t = kind === 'tokens' ? st.trace : undefined;
          const usable = kind === 'pointer' || (t?.kind.case === 'tokens' && !t.kind.value.incomplete && t.kind.value.tokenIds.length > 0 && t.kind.value.promptTokenIds.length > 0);
          if (!usable) {
            skippedSteps += 1;
            return [];
          }
          if (t?.kind.case === 'tokens' && t.kind.value.lossMask.length > 0 && t.kind.value.lossMask.every((m) => m === 0)) {
            maskedSteps += 1;
            return [];
          }
          steps += 1;
          // Not copied: a finished round's traces are not changed again, and the request is
          // encoded (or copied to the update thread) as it is.
          const step = create(TrainStepSchema, { index: st.index });
          shareTrace(st, step);
          return [step];
        });
        // a sample that had steps (or whose steps could not be read) and kept none trains nothing
        const unread = unreadable.length > 0 && unreadable[unreadable.length - 1]?.trajectoryId === (traj?.trajectoryId ?? s.trajectoryId);
        if (trained.length === 0 && (traces.length > 0 || unread)) {
          samplesNotSent += 1;
          return [];
        }
        rewardSum += reward;
        samples += 1;
        return [
          create(TrainSampleSchema, {
            trajectoryId: s.acceptedId ?? traj?.trajectoryId ?? s.trajectoryId,
            reward,
            advantage: g.advantages[i] ?? 0,
            policyVersion: traj?.policyVersion ?? 0n,
            steps: trained,
          }),
        ];
      }),
    });
    return group.samples.length > 0 ? [group] : [];
  });
  const header = create(TrainHeaderSchema, {
    schemaVersion: SCHEMA_VERSION,
    runId,
    batchId: batchId(runId, baseVersion + 1n),
    baseVersion,
    targetVersion: baseVersion + 1n,
    hyper,
    groups: groups.length,
    samples,
  });
  return { header, groups, steps, skippedSteps, maskedSteps, samplesNotSent, unreadable, meanReward: samples > 0 ? rewardSum / samples : 0 };
}
