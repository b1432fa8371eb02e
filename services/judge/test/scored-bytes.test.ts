// encodeScoredWith: a ScoredTrajectory built around the trajectory's bytes as delivered reads back
// exactly as the full encoding, unknown fields of the trajectory included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decode, encode, equals, make, ScoredTrajectorySchema, StepSchema, TrajectorySchema, VerdictSchema, VerdictSource } from '@owrl/proto';
import { encodeScoredWith } from '../src/scored-bytes.js';

function scoredOf(stepCount: number) {
  const trajectory = make(TrajectorySchema, {
    trajectoryId: 'run/0/1/2/0',
    finalAnswer: 'order-7',
    steps: Array.from({ length: stepCount }, (_, i) => make(StepSchema, { index: i, reasoning: 'x'.repeat(200 + i) })),
    finalScreenshot: new Uint8Array(300).fill(7),
  });
  const bytes = encode(TrajectorySchema, trajectory);
  const scored = make(ScoredTrajectorySchema, {
    trajectoryId: trajectory.trajectoryId,
    trajectory: decode(TrajectorySchema, bytes),
    trainable: true,
    judgedAtMs: 1234n,
    verdict: make(VerdictSchema, { reward: 1, success: true, source: VerdictSource.VERIFIER, judgeVersion: 'verifier-1' }),
  });
  return { bytes, scored };
}

void test('reads back as the full encoding, for small and large trajectories', () => {
  // 0 steps: a length of one varint byte; 600 steps: a length of three.
  for (const n of [0, 3, 600]) {
    const { bytes, scored } = scoredOf(n);
    const got = decode(ScoredTrajectorySchema, encodeScoredWith(scored, bytes));
    assert.ok(equals(ScoredTrajectorySchema, got, decode(ScoredTrajectorySchema, encode(ScoredTrajectorySchema, scored))), `${n} steps`);
    assert.equal(got.trajectory?.steps.length, n);
    assert.equal(got.verdict?.reward, 1);
  }
});

void test('the trajectory goes out byte for byte, unknown fields included', () => {
  const { bytes, scored } = scoredOf(2);
  // Field 999 (varint 5), unknown to this build: a newer actor's addition.
  const extra = new Uint8Array([0xb8, 0x3e, 0x05]);
  const withUnknown = new Uint8Array([...bytes, ...extra]);
  const out = encodeScoredWith(scored, withUnknown);
  const tail = out.subarray(out.length - withUnknown.length);
  assert.deepEqual(tail, withUnknown);
  assert.equal(decode(ScoredTrajectorySchema, out).trajectory?.trajectoryId, 'run/0/1/2/0');
});
