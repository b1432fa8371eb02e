// The judge service with a real (tiny) ONNX judge model on a real nats-server: tasks without a
// verifier are judged by the model with the model's version; verified tasks are rewarded by the
// verifier and carry the model's shadow verdict, counted into the calibration metrics.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectBus, ensureTopology, trajSubject, CONSUMER_LEARNER, STREAM_SCORED, STREAM_TRAJ } from '@owrl/bus';
import { judgeInputFromTrajectory, OnnxJudge, modelVerdictSource } from '@owrl/judge-model';
import { writeTinyDecoderJudge } from '@owrl/judge-model/testing';
import {
  ScoredTrajectorySchema,
  TrajectorySchema,
  VerdictSource,
  type ScoredTrajectory,
  type Trajectory,
} from '@owrl/proto';
import { MemoryMeter } from '@owrl/core';
import { concurrencyDefault } from '../src/config.js';
import { answerVerifier, buildTrajectory, startNatsServer, type NatsServer } from '@owrl/testkit';
import { JudgeService, readConfig } from '../src/index.js';

let nats: NatsServer;
let dir = '';
let judge: OnnxJudge;

before(async () => {
  nats = await startNatsServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-judge-shadow-'));
  writeTinyDecoderJudge(path.join(dir, 'model'), { seed: 7 });
  judge = await OnnxJudge.load({ modelDir: path.join(dir, 'model'), device: 'cpu', threads: 1 });
});
after(async () => {
  await judge?.close();
  await nats?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

function trajectory(sample: number, answer: string, accepted?: string): Trajectory {
  const verifier = accepted === undefined ? {} : { verifier: answerVerifier(accepted) };
  return buildTrajectory({ runId: 'runM', sample, answer, task: { id: `t${sample}`, startUrl: 'https://example.org/', instruction: `What is the code of item ${sample}?`, ...verifier } });
}

void test('model verdicts for unverified tasks, shadow verdicts and calibration for verified ones', async () => {
  const bus = await connectBus({ servers: nats.url, name: 'judge-shadow-test' });
  await ensureTopology(bus, { storage: 'memory' });
  const meter = new MemoryMeter();
  // Threshold 0: every model verdict is a success whatever P(yes) the model gives, so the verdicts
  // and the calibration counts below are known by hand, independently of the model's scores.
  const source = modelVerdictSource(judge, { threshold: 0 });
  const service = new JudgeService({ bus, meter, judgeVersion: 'verifier-7', concurrency: 4, timeoutMs: 20_000, sources: [source], shadow: source, pullExpiresMs: 1000 });
  const items: ScoredTrajectory[] = [];
  let notify = (): void => {};
  const reader = await bus.consume({
    stream: STREAM_SCORED,
    consumer: CONSUMER_LEARNER,
    schema: ScoredTrajectorySchema,
    maxInFlight: 8,
    pullExpiresMs: 1000,
    handler: (d) => {
      items.push(d.value);
      notify();
    },
  });
  try {
    const trajs = [trajectory(0, 'AB-12', 'AB-12'), trajectory(1, 'ZZ-99', 'AB-12'), trajectory(2, 'free text answer'), trajectory(3, 'AB-12', 'ab-12')];
    for (const t of trajs) await bus.publish(trajSubject('runM'), TrajectorySchema, t, { msgId: t.trajectoryId });
    const all = new Promise<void>((resolve) => (notify = () => items.length >= trajs.length && resolve()));
    await service.start();
    await all;

    // The model's probabilities for the same trajectories, computed directly: the service must pass
    // them through unchanged (the verdicts above do not depend on them).
    const expected = await judge.scoreBatch(trajs.map((t) => judgeInputFromTrajectory(t)));
    const byId = new Map(items.map((s) => [s.trajectoryId, s]));
    trajs.forEach((t, i) => {
      const s = byId.get(t.trajectoryId);
      assert.ok(s, t.trajectoryId);
      const p = expected[i]?.pYes ?? NaN;
      assert.ok(p > 0 && p < 1, `p_yes ${p}`);
      const verified = t.request?.task?.verifier !== undefined;
      if (verified) {
        assert.equal(s.verdict?.source, VerdictSource.VERIFIER);
        assert.equal(s.verdict?.judgeVersion, 'verifier-7');
        assert.equal(s.shadow?.source, VerdictSource.MODEL);
        assert.equal(s.shadow?.judgeVersion, judge.version);
        assert.ok(Math.abs((s.shadow?.pSuccess ?? -1) - p) < 1e-5, `shadow p ${s.shadow?.pSuccess} vs ${p}`);
        assert.equal(s.shadow?.success, true);
      } else {
        assert.equal(s.verdict?.source, VerdictSource.MODEL);
        assert.equal(s.verdict?.judgeVersion, judge.version);
        assert.ok(Math.abs((s.verdict?.pSuccess ?? -1) - p) < 1e-5);
        assert.equal(s.verdict?.reward, 1);
        assert.equal(s.shadow, undefined);
      }
    });
    // Calibration: 3 verified trajectories (2 verifier successes, 1 failure) against the model.
    // The model says success for all three: the 2 verifier successes are true positives, the
    // verifier failure (ZZ-99) a false positive; agreement 2/3.
    const c = service.stats.shadow;
    assert.deepEqual({ tp: c.tp, fp: c.fp, fn: c.fn, tn: c.tn }, { tp: 2, fp: 1, fn: 0, tn: 0 });
    assert.equal(meter.total('owrl_judge_shadow_pairs_total'), 3);
    assert.equal(meter.value('owrl_judge_shadow_calibration_ratio', { figure: 'agreement' }), 2 / 3);
    const byModel = meter.series('owrl_judge_trajectories_total').filter((x) => x.labels['source'] === 'model');
    assert.deepEqual(byModel.map((x) => x.value), [1]);
    const lag = await bus.consumerLag(STREAM_TRAJ, 'judge');
    assert.equal(lag.numAckPending, 0);
  } finally {
    await service.stop();
    await reader.stop();
    await bus.close();
  }
});

void test('readConfig: the judge model settings', () => {
  assert.deepEqual(readConfig({}), { judgeVersion: 'verifier-1', concurrency: undefined, timeoutMs: 10_000, model: undefined, api: undefined });
  const m = readConfig({ OWRL_JUDGE_MODEL: '/models/judge', OWRL_JUDGE_DEVICE: 'cpu', OWRL_JUDGE_THRESHOLD: '0.7', OWRL_JUDGE_SHADOW: 'false' }).model;
  assert.deepEqual(m, {
    dir: '/models/judge',
    device: 'cpu',
    threshold: 0.7,
    workers: 1,
    prepareWorkers: undefined,
    threads: 0,
    maxBatch: undefined,
    batchTokens: undefined,
    shadow: false,
  });
  const gpu = readConfig({ OWRL_JUDGE_MODEL: '/m', OWRL_JUDGE_DEVICE: 'webgpu', OWRL_JUDGE_MAX_BATCH: '16', OWRL_JUDGE_BATCH_TOKENS: '65536', OWRL_JUDGE_PREPARE_WORKERS: '3' }).model;
  assert.deepEqual([gpu?.device, gpu?.maxBatch, gpu?.batchTokens, gpu?.prepareWorkers], ['webgpu', 16, 65536, 3]);
  assert.equal(readConfig({ OWRL_JUDGE_MODEL: '/m' }).model?.shadow, true);
  // A model bounds the trajectories judged at once to what it serves; verifiers alone hold many,
  // and a GPU enough to keep a pass running and the next one prepared.
  assert.deepEqual(
    [concurrencyDefault('none'), concurrencyDefault('api'), concurrencyDefault('cpu', 8), concurrencyDefault('gpu', 32), concurrencyDefault('gpu', 64)],
    [64, 8, 8, 64, 128],
  );
  assert.equal(readConfig({ OWRL_JUDGE_MODEL: '/m', OWRL_JUDGE_CONCURRENCY: '16' }).concurrency, 16);
  assert.throws(() => readConfig({ OWRL_JUDGE_MODEL: '/m', OWRL_JUDGE_DEVICE: 'tpu' }), /OWRL_JUDGE_DEVICE="tpu" must be one of auto, cuda, webgpu, cpu/);
  assert.throws(() => readConfig({ OWRL_JUDGE_MODEL: '/m', OWRL_JUDGE_BATCH_TOKENS: '0' }), /OWRL_JUDGE_BATCH_TOKENS/);
  assert.throws(() => readConfig({ OWRL_JUDGE_MODEL: '/m', OWRL_JUDGE_THRESHOLD: '1.5' }), /OWRL_JUDGE_THRESHOLD=1.5/);
});
