// PointerPolicyTrainer: real learning through the contract on a tiny problem (rollouts sample
// from the stored ONNX artifacts), the same update as the in-process GrpoTrainer on the learner's
// groups, idempotent replays (also after a restart), restoring an older base with its optimizer
// state, pruning, and refusals with the contract's codes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { initialModel } from '@owrl/policy';
import { create, PolicyTraceSchema, TokenTraceSchema, TrainStepSchema, type TrainGroup } from '@owrl/proto';
import { Adam, GrpoTrainer } from '@owrl/rl';
import { PointerPolicyTrainer, readToyArtifact as readArtifact, samplesOf, toTrainGroups, TOY_DIM as DIM, toyHeader as header, toyRollout as rollout } from '@owrl/pointer-trainer';
import { TrainerError, TrainerErrorCode } from '@owrl/trainer-rpc';

const dirs: string[] = [];
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-ptr-'));
  dirs.push(d);
  return d;
}
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

async function refusal(p: Promise<unknown>): Promise<TrainerError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof TrainerError, `expected a TrainerError, got ${String(e)}`);
    return e;
  }
  return assert.fail('expected a refusal');
}

function batch(version: bigint, seed: number): TrainGroup[] {
  const model = initialModel({ dim: DIM });
  return toTrainGroups(rollout(model, { groups: 6, seed, round: Number(version), version }).groups);
}

void describe('PointerPolicyTrainer', () => {
  void it('learns: the success rate of rollouts from its artifacts goes up', async () => {
    const t = new PointerPolicyTrainer({ dir: tmp(), dim: DIM, adam: { lr: 0.2 } });
    let model = t.model();
    const rates: number[] = [];
    let v = 0n;
    for (let round = 0; round < 12; round++) {
      const { groups, success } = rollout(model, { groups: 8, seed: 100 + round, round, version: v });
      rates.push(success);
      const kept = toTrainGroups(groups);
      if (kept.length === 0) continue; // every group all-equal: nothing to learn from
      const r = await t.train(header(v), kept);
      assert.equal(r.version, v + 1n);
      assert.equal(r.artifact?.kind, 'onnx-pointer');
      assert.equal(r.replayed, false);
      assert.equal(r.epochs.length, 2);
      // on-policy: the first epoch's ratios are 1 up to float32 rounding of the artifact
      assert.ok(Math.abs((r.epochs[0]?.meanRatio ?? 0) - 1) < 1e-4, `mean ratio ${r.epochs[0]?.meanRatio}`);
      model = readArtifact(r.artifact!);
      v = r.version;
      assert.equal(t.versions().at(-1), v);
    }
    const first = (rates[0]! + rates[1]!) / 2;
    const last = (rates.at(-1)! + rates.at(-2)!) / 2;
    assert.ok(first < 0.5, `start ${first}`);
    assert.ok(last >= 0.8 && last > first + 0.3, `success ${rates.map((x) => x.toFixed(2)).join(' ')}`);
    const info = await t.info();
    assert.equal(info.latestVersion, v);
    assert.deepEqual(info.traceKinds, ['pointer']);
    assert.equal(info.artifactKind, 'onnx-pointer');
    assert.deepEqual(info.restorableVersions, [v - 4n, v - 3n, v - 2n, v - 1n, v]);
    await t.close();
  });

  void it('makes the same update as GrpoTrainer on the learner groups it converts', async () => {
    const learnerGroups = rollout(initialModel({ dim: DIM }), { groups: 6, seed: 7, round: 0, version: 0n }).groups;
    const ref = new GrpoTrainer(initialModel({ dim: DIM }), new Adam(DIM), { epochs: 2, minibatches: 2 });
    const u = ref.update(learnerGroups.map((g) => ({ rewards: g.samples.map((s) => s.reward), trajectories: g.samples.map((s) => ({ steps: s.steps })) })));
    assert.ok(u.updated);
    const t = new PointerPolicyTrainer({ dir: tmp(), dim: DIM });
    const groups = toTrainGroups(learnerGroups);
    assert.equal(groups.length, u.fates.kept);
    assert.equal(samplesOf(groups).length, u.trajectories);
    const r = await t.train(header(0n, 'b', { minibatches: 2 }), groups);
    const got = readArtifact(r.artifact!);
    assert.deepEqual(got.weights, Float32Array.from(ref.model.weights));
    assert.ok(Math.abs((r.epochs[1]?.loss ?? NaN) - (u.epochs[1]?.loss ?? 0)) < 1e-12);
  });

  void it('replays a repeated (batch_id, base_version), also after a restart, without training twice', async () => {
    const dir = tmp();
    const t = new PointerPolicyTrainer({ dir, dim: DIM });
    const g = batch(0n, 1);
    const first = await t.train(header(0n), g);
    const again = await t.train(header(0n), g);
    assert.equal(again.replayed, true);
    assert.equal(again.artifact?.sha256, first.artifact?.sha256);
    assert.equal(again.artifact?.createdAtMs, first.artifact?.createdAtMs);
    assert.deepEqual(t.versions(), [0n, 1n]);
    const second = await t.train(header(1n), batch(1n, 2));
    await t.close();
    const restarted = new PointerPolicyTrainer({ dir, dim: DIM });
    assert.deepEqual(restarted.model().weights, readArtifact(second.artifact!).weights);
    const replay = await restarted.train(header(0n), g);
    assert.equal(replay.replayed, true);
    assert.equal(replay.artifact?.sha256, first.artifact?.sha256);
    assert.deepEqual(restarted.versions(), [0n, 1n, 2n]);
  });

  void it('restores an older base (weights and optimizer) for a different batch and drops newer versions', async () => {
    const a = batch(0n, 3);
    const b = batch(1n, 4);
    const c = batch(1n, 5);
    const t = new PointerPolicyTrainer({ dir: tmp(), dim: DIM });
    await t.train(header(0n, 'A'), a);
    await t.train(header(1n, 'B'), b);
    await t.train(header(2n, 'B2'), batch(2n, 6));
    const r = await t.train(header(1n, 'C'), c);
    assert.equal(r.replayed, false);
    assert.equal(r.version, 2n);
    assert.deepEqual(t.versions(), [0n, 1n, 2n]);
    // the same as a trainer that only ever saw A then C (Adam moments of A included)
    const ref = new PointerPolicyTrainer({ dir: tmp(), dim: DIM });
    await ref.train(header(0n, 'A'), a);
    const rc = await ref.train(header(1n, 'C'), c);
    assert.equal(r.artifact?.sha256, rc.artifact?.sha256);
    // batch B is gone with its version: a repeat of it trains again from v1
    const rb = await t.train(header(1n, 'B'), b);
    assert.equal(rb.replayed, false);
  });

  void it('keeps the newest versions and refuses a base it no longer holds', async () => {
    const t = new PointerPolicyTrainer({ dir: tmp(), dim: DIM, keepVersions: 2 });
    for (let v = 0n; v < 3n; v++) await t.train(header(v), batch(v, 10 + Number(v)));
    assert.deepEqual((await t.info()).restorableVersions, [2n, 3n]);
    const e = await refusal(t.train(header(0n, 'late'), batch(0n, 20)));
    assert.equal(e.code, TrainerErrorCode.UnknownBaseVersion);
    assert.match(e.message, /base_version 0 is not restorable; this trainer holds versions 2, 3/);
  });

  void it('refuses token traces, a wrong temperature and a bad target with the field named', async () => {
    const t = new PointerPolicyTrainer({ dir: tmp(), dim: DIM });
    const g = batch(0n, 30);
    const withTokens = structuredClone(g);
    withTokens[0]!.samples[0]!.steps[0] = create(TrainStepSchema, {
      trace: create(PolicyTraceSchema, { kind: { case: 'tokens', value: create(TokenTraceSchema, { tokenIds: [1], logprobs: [-1], promptTokenIds: [2] }) } }),
    });
    let e = await refusal(t.train(header(0n), withTokens));
    assert.equal(e.code, TrainerErrorCode.InvalidRequest);
    assert.match(e.message, /groups\[0\]\.samples\[0\]\.steps\[0\]\.trace is a tokens trace; this trainer takes pointer/);
    const hot = structuredClone(g);
    const tr = hot[0]!.samples[1]!.steps[0]!.trace!.kind;
    if (tr.case === 'pointer') tr.value.temperature = 2;
    e = await refusal(t.train(header(0n), hot));
    assert.match(e.message, /groups\[0\]\.samples\[1\]\.steps\[0\]\.trace\.pointer\.temperature 2 differs/);
    e = await refusal(t.train({ ...header(0n), targetVersion: 5n }, g));
    assert.match(e.message, /target_version 5 must be base_version \+ 1/);
    assert.deepEqual(t.versions(), [0n]);
  });
});
