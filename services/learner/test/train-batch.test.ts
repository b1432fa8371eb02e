// The update request leaves out what trains nothing: token steps without ids or log-probs, steps
// whose loss mask is all zeros (a reply cut off at max_tokens, an unparseable reply), and then the
// samples with no step left and the groups with no sample left, each counted. The advantages of
// the samples sent are the ones the group decided. Hand-made traces; expected values written out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create, make, PolicyTraceSchema, ScoredTrajectorySchema, StepSchema, TaskSchema, TokenTraceSchema, TrainHyperparamsSchema, TrajectorySchema, type PolicyTrace } from '@owrl/proto';
import type { GroupState } from '../src/round-group.js';
import { buildTrainBatch } from '../src/train-batch.js';

const tokens = (ids: number[], mask: number[] = [], incomplete = false): PolicyTrace =>
  create(PolicyTraceSchema, {
    kind: { case: 'tokens', value: create(TokenTraceSchema, { tokenIds: ids, logprobs: ids.map(() => -0.5), promptTokenIds: [1, 2], lossMask: mask, incomplete }) },
  });

function group(n: number, samples: PolicyTrace[][], advantages: number[]): GroupState {
  return {
    round: 0,
    group: n,
    task: make(TaskSchema, { id: `t${n}` }),
    fate: 'kept',
    rewards: advantages.map((a) => (a > 0 ? 1 : 0)),
    advantages,
    samples: samples.map((steps, i) => {
      const id = `run/0/${n}/${i}/0`;
      return {
        sample: i,
        attempt: 0,
        trajectoryId: id,
        outstanding: [],
        status: 'done' as const,
        acceptedId: id,
        excludedReasons: [],
        scored: make(ScoredTrajectorySchema, { trajectoryId: id, trainable: true, trajectory: make(TrajectorySchema, { trajectoryId: id, steps: steps.map((trace, index) => make(StepSchema, { index, trace })) }) }),
      };
    }),
  };
}

void test('steps that train nothing are left out, then samples with no step left, then groups with no sample left', () => {
  const kept = [
    group(0, [[tokens([5, 6]), tokens([7, 8, 9], [0, 0, 0])], [tokens([10], [0])], [tokens([11, 12], [1, 0])]], [1, -1, 0.5]),
    group(1, [[tokens([13], [], true)], [tokens([14], [0])]], [1, -1]),
  ];
  const b = buildTrainBatch('run', kept, 0n, make(TrainHyperparamsSchema, {}));
  assert.deepEqual(
    b.groups.map((g) => g.samples.map((s) => [s.trajectoryId, s.advantage, s.steps.map((st) => st.index)])),
    [
      [
        ['run/0/0/0/0', 1, [0]],
        ['run/0/0/2/0', 0.5, [0]],
      ],
    ],
  );
  assert.deepEqual([b.steps, b.maskedSteps, b.skippedSteps, b.samplesNotSent, b.header.groups, b.header.samples], [2, 3, 1, 3, 1, 2]);
});
