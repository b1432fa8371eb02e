// PointerPolicyTrainer: real learning through the contract on a tiny problem (rollouts sample
// from the stored ONNX artifacts), the same update as the in-process GrpoTrainer on the learner's
// groups, idempotent replays (also after a restart), restoring an older base with its optimizer
// state, pruning, and refusals with the contract's codes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { initialModel, PointerModel } from '@owrl/policy';
import { create, decodeTrajectoryLazy, encode, make, pendingTraceBytes, PolicyTraceSchema, shareTrace, StepSchema, TokenTraceSchema, TrainStepSchema, TrajectorySchema, type TrainGroup } from '@owrl/proto';
import { Adam, GrpoTrainer, type GrpoTrainerOptions } from '@owrl/rl';
import { InProcessPointerTrainer, PointerPolicyTrainer, UpdateThread, readToyArtifact as readArtifact, samplesOf, toTrainGroups, TOY_DIM as DIM, toyHeader as header, toyRollout as rollout } from '@owrl/pointer-trainer';
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

/**
 * `groups` with every step's trace still encoded, as the learner builds them from scored
 * trajectories it decoded lazily (decodeScoredLazy → buildTrainBatch's shareTrace).
 */
function encodedTraces(groups: TrainGroup[]): TrainGroup[] {
  return groups.map((g) => ({
    ...g,
    samples: g.samples.map((s) => ({
      ...s,
      steps: s.steps.map((st) => {
        const traj = decodeTrajectoryLazy(encode(TrajectorySchema, make(TrajectorySchema, { steps: [create(StepSchema, { index: st.index, trace: st.trace })] })));
        const out = create(TrainStepSchema, { index: st.index });
        shareTrace(traj.steps[0]!, out);
        return out;
      }),
    })),
  }));
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

  void it('follows the request\'s trust region, loss aggregation and kl_stop as GrpoTrainer does', async () => {
    const learnerGroups = rollout(initialModel({ dim: DIM }), { groups: 8, seed: 11, round: 0, version: 0n }).groups;
    const groups = toTrainGroups(learnerGroups);
    // A step far too long for the region: the trust region must shorten it.
    const rules: { hyper: Parameters<typeof header>[2]; rule: GrpoTrainerOptions }[] = [
      { hyper: { ppoEpochs: 1, minibatches: 6, trustKl: 0.02, learningRate: 2 }, rule: { epochs: 1, minibatches: 6, trustKl: 0.02 } },
      { hyper: { ppoEpochs: 2, minibatches: 2, trustKl: 0.05, learningRate: 0.5, lossAgg: 'seq_mean' }, rule: { epochs: 2, minibatches: 2, trustKl: 0.05, lossAgg: 'seq_mean' } },
      { hyper: { ppoEpochs: 4, minibatches: 1, learningRate: 0.5, klStop: 1e-6 }, rule: { epochs: 4, minibatches: 1, trustKl: 0, klStop: 1e-6 } },
    ];
    for (const { hyper, rule } of rules) {
      const ref = new GrpoTrainer(initialModel({ dim: DIM }), new Adam(DIM, { lr: hyper?.learningRate ?? 0.05 }), rule);
      const want = ref.updateSamples(samplesOf(groups), groups.flatMap((g, gi) => g.samples.map(() => gi)));
      const r = await new PointerPolicyTrainer({ dir: tmp(), dim: DIM }).train(header(0n, 'b', hyper), groups);
      assert.deepEqual(readArtifact(r.artifact!).weights, Float32Array.from(ref.model.weights), JSON.stringify(hyper));
      assert.equal(r.epochs.length, want.epochs.length, JSON.stringify(hyper));
      r.epochs.forEach((e, i) => assert.ok(Math.abs(e.learningRate - (want.epochs[i]?.learningRate ?? NaN)) < 1e-12));
    }
    // The first rule's steps were shortened (effective learning rate below Adam's 2) ...
    const short = await new PointerPolicyTrainer({ dir: tmp(), dim: DIM }).train(header(0n, 'b', rules[0]!.hyper), groups);
    assert.ok((short.epochs[0]?.learningRate ?? 2) < 2, `effective learning rate ${short.epochs[0]?.learningRate}`);
    // ... and kl_stop ended the third after its second epoch (the first starts on-policy, at KL 0).
    const stopped = await new PointerPolicyTrainer({ dir: tmp(), dim: DIM }).train(header(0n, 'b', rules[2]!.hyper), groups);
    assert.equal(stopped.epochs.length, 2);
    await assert.rejects(new PointerPolicyTrainer({ dir: tmp(), dim: DIM }).train(header(0n, 'b', { lossAgg: 'median' }), groups), /loss_agg "median"/);
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

void describe('InProcessPointerTrainer off the caller thread', () => {
  const runThreaded = async (offThread: boolean, rule: GrpoTrainerOptions = { epochs: 2, minibatches: 3 }) => {
    const model = initialModel({ dim: DIM });
    const trainer = new GrpoTrainer(model, new Adam(DIM, { lr: 0.1 }), rule);
    const stored: Uint8Array[] = [];
    const t = new InProcessPointerTrainer({ trainer, offThread, store: (_v, bytes) => (stored.push(bytes), { uri: `mem://${stored.length}`, sha256: '', bytes: bytes.length }) });
    const ticks: boolean[] = [];
    for (let v = 0n; v < 3n; v++) {
      let done = false;
      const p = t.train(header(v), batch(v, 40 + Number(v))).finally(() => (done = true));
      // A callback queued after the update started runs before it ends only when the update is off
      // the thread (for the first update certainly: the worker is still starting).
      setImmediate(() => ticks.push(!done));
      const r = await p;
      assert.equal(r.version, v + 1n);
      if (trainer.klStop === 0) assert.equal(r.epochs.length, trainer.epochs);
      assert.deepEqual(PointerModel.fromOnnx(stored.at(-1)!).weights, model.weights, 'the artifact is the trained model');
    }
    await t.close();
    return { weights: model.weights, m: trainer.optimizer.m, v: trainer.optimizer.v, counts: trainer.optimizer.counts, steps: trainer.optimizer.steps, epochs: t.lastEpochs, ticks };
  };

  void it('makes the same update as on the caller thread, with the loop running meanwhile, and leaves the same state', async () => {
    const same = await runThreaded(false);
    const off = await runThreaded(true);
    assert.deepEqual(same.ticks, [false, false, false]);
    assert.equal(off.ticks[0], true, 'the caller thread ran while the update trained');
    assert.deepEqual(off.weights, same.weights);
    assert.deepEqual(off.m, same.m);
    assert.deepEqual(off.v, same.v);
    assert.deepEqual(off.counts, same.counts);
    assert.equal(off.steps, same.steps);
    assert.deepEqual(off.epochs, same.epochs);
    assert.ok(same.steps > 0 && same.weights.some((w) => w !== 0), 'the updates changed the model');
  });

  void it('hands the whole rule to the worker thread (trust scope, deal, step stretch, loss aggregation, kl stop)', async () => {
    const variants: GrpoTrainerOptions[] = [
      { epochs: 1, minibatches: 3, trustKl: 0.01, trustScope: 'batch', deal: 'group', maxStepScale: 4 },
      { epochs: 1, minibatches: 3, trustKl: 0.01, lossAgg: 'seq_mean' },
      { epochs: 3, minibatches: 1, trustKl: 0.01, klStop: 1e-9 },
    ];
    const plain = await runThreaded(false, { epochs: 1, minibatches: 3, trustKl: 0.01 });
    for (const rule of variants) {
      const same = await runThreaded(false, rule);
      const off = await runThreaded(true, rule);
      assert.deepEqual(off.weights, same.weights, JSON.stringify(rule));
      assert.deepEqual(off.epochs, same.epochs, JSON.stringify(rule));
      if (rule.epochs === 1) assert.notDeepEqual(plain.weights, same.weights, `the variant options change the update: ${JSON.stringify(rule)}`);
      else assert.ok((same.epochs?.length ?? 3) < 3, `kl_stop ended the last update early (${same.epochs?.length} epochs)`);
    }
  });

  void it('trains traces still encoded in the worker, to the same state, without decoding them on the caller thread', async () => {
    const make2 = () => {
      const model = initialModel({ dim: DIM });
      const trainer = new GrpoTrainer(model, new Adam(DIM, { lr: 0.1 }), { epochs: 2, minibatches: 3 });
      return { trainer, t: new InProcessPointerTrainer({ trainer, offThread: true, store: (_v, bytes) => ({ uri: 'mem://x', sha256: '', bytes: bytes.length }) }) };
    };
    const plain = make2();
    const lazy = make2();
    const dir = tmp();
    for (let v = 0n; v < 2n; v++) {
      await plain.t.train(header(v), batch(v, 70 + Number(v)));
      const groups = encodedTraces(batch(v, 70 + Number(v)));
      if (v === 0n) {
        await lazy.t.train(header(v), groups);
      } else {
        // The written-ahead path (async mode): stored in the worker, then trained from what it kept.
        const file = path.join(dir, 'req.bin');
        await lazy.t.storeAhead(file, header(v), groups);
        await lazy.t.trainStored(file, v + 1n);
      }
      assert.ok(pendingTraceBytes(groups[0]!.samples[0]!.steps[0]!), 'the caller did not decode the traces');
    }
    assert.deepEqual(lazy.trainer.model.weights, plain.trainer.model.weights);
    assert.deepEqual(lazy.trainer.optimizer.m, plain.trainer.optimizer.m);
    assert.deepEqual(lazy.t.lastEpochs, plain.t.lastEpochs);
    // A trace the caller only checked the kind of is checked in the worker, with the contract's code.
    const bad = batch(2n, 72);
    const tr = bad[0]!.samples[0]!.steps[0]!.trace!.kind;
    if (tr.case === 'pointer') tr.value.chosen = 10_000;
    const e = await refusal(lazy.t.train(header(2n), encodedTraces(bad)));
    assert.equal(e.code, TrainerErrorCode.InvalidRequest);
    assert.match(e.message, /groups\[0\]\.samples\[0\]\.steps\[0\]\.trace\.pointer\.chosen 10000/);
    // Written ahead, it is stored as it came and refused by the update that reads it back.
    const file = path.join(dir, 'bad.bin');
    await lazy.t.storeAhead(file, header(2n), encodedTraces(bad));
    const stored = await refusal(lazy.t.trainStored(file, 3n));
    assert.equal(stored.code, TrainerErrorCode.InvalidRequest);
    assert.match(stored.message, /groups\[0\]\.samples\[0\]\.steps\[0\]\.trace\.pointer\.chosen 10000/);
    await plain.t.close();
    await lazy.t.close();
  });

  void it('rejects an update that fails in the worker with its message, and trains the next one', async () => {
    const model = initialModel({ dim: DIM });
    const trainer = new GrpoTrainer(model, new Adam(DIM), { epochs: 1, minibatches: 1 });
    const thread = new UpdateThread();
    const bad = structuredClone(batch(0n, 50));
    const tr = bad[0]!.samples[0]!.steps[0]!.trace!.kind;
    if (tr.case === 'pointer') tr.value.chosen = 10_000;
    await assert.rejects(thread.run(trainer, bad), /chosen/);
    assert.ok(model.weights.every((w) => w === 0), 'a failed update leaves the model as it was');
    const ok = await thread.run(trainer, batch(0n, 50));
    assert.ok(ok.actions > 0 && model.weights.some((w) => w !== 0));
    await thread.close();
  });
});
