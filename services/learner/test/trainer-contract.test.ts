// The learner's side of the trainer contract: the update request holds exactly the kept groups
// (token ids, behaviour log-probs, masks, image references, the ledger's advantages, the behaviour
// policy version); a remote update is written ahead, sent to a real gRPC trainer (the testkit's
// stand-in GPU trainer) when the version is published, resent after a restart, never twice; the
// trainer's answer is what the weights pointer announces (also with the awaited `train`); in
// process, the contract path trains the learner's model exactly as the GrpoTrainer does on the
// same groups.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { connectBus, ensureTopology, ScreenshotStore, WeightsPointer, type Bus } from '@owrl/bus';
import { silentLogger } from '@owrl/core';
import { initialModel, type PointerModel } from '@owrl/policy';
import {
  create,
  decodeScoredLazy,
  equals,
  ImageRefSchema,
  encode,
  pendingTraceBytes,
  traceKind,
  TrainGroupSchema,
  PointerTraceSchema,
  PolicyTraceSchema,
  ScoredTrajectorySchema,
  StepSchema,
  TaskSchema,
  TokenTraceSchema,
  TrainHyperparamsSchema,
  TrajectorySchema,
  VerdictSchema,
  type PolicyTrace,
} from '@owrl/proto';
import { Adam, GrpoTrainer } from '@owrl/rl';
import { startFakeTrainer, startNatsServer, type FakeTrainerDouble, type NatsServer } from '@owrl/testkit';
import { RemoteTrainer } from '@owrl/trainer-rpc';
import { ArtifactServer } from '../src/artifact-server.js';
import { CrashPoints } from '../src/crash-point.js';
import { PolicyPublisher, type RemoteTrainerBinding } from '../src/publisher.js';
import type { GroupState } from '../src/round-group.js';
import { ShotKeeper } from '../src/shot-keeper.js';
import { buildTrainBatch } from '../src/train-batch.js';

const tokens = (ids: number[], opts: { incomplete?: boolean; images?: string[] } = {}): PolicyTrace =>
  create(PolicyTraceSchema, {
    kind: {
      case: 'tokens',
      value: create(TokenTraceSchema, {
        tokenIds: ids,
        logprobs: ids.map((_, i) => -0.25 * (i + 1)),
        promptTokenIds: [7, 8, 9],
        // the last token masked out when there are others: a step with every token masked trains nothing (left out)
        lossMask: ids.length > 1 ? ids.map((_, i) => (i === ids.length - 1 ? 0 : 1)) : [],
        finishReason: 'tool_calls',
        model: 'owrl-v3',
        images: (opts.images ?? []).map((sha256) => create(ImageRefSchema, { sha256, mime: 'image/jpeg', width: 64, height: 48, bytes: 1000n })),
        incomplete: opts.incomplete ?? false,
      }),
    },
  });

const pointer = (chosen: number, feature: number): PolicyTrace =>
  create(PolicyTraceSchema, {
    kind: {
      case: 'pointer',
      value: create(PointerTraceSchema, { numCandidates: 2, offsets: [0, 1, 2], featureIndex: [feature, feature + 1], featureValue: [1, 1], chosen, logprob: Math.log(0.5), temperature: 1 }),
    },
  });

/** A kept group as the round ledger holds it, with the rewards and advantages it decided. */
/** Two distinct PNG headers (signature and IHDR: 640x400 and 320x200), all the store reads of a picture. */
const PNG_A = new Uint8Array(Buffer.from('89504e470d0a1a0a0000000d4948445200000280000001900806000000000000000000', 'hex'));
const PNG_B = new Uint8Array(Buffer.from('89504e470d0a1a0a0000000d49484452000001400000c8000806000000000000000000', 'hex'));

function group(n: number, traces: PolicyTrace[][], rewards: number[], advantages: number[], version = 3n): GroupState {
  const task = create(TaskSchema, { id: `task-${n}`, startUrl: 'http://shop.test/', instruction: 'x', difficulty: 1 });
  return {
    round: 4,
    group: n,
    task,
    fate: 'kept',
    rewards,
    advantages,
    samples: traces.map((steps, i) => ({
      sample: i,
      attempt: 0,
      trajectoryId: `run/4/${n}/${i}/0`,
      outstanding: [],
      status: 'done' as const,
      acceptedId: `run/4/${n}/${i}/0`,
      excludedReasons: [],
      scored: create(ScoredTrajectorySchema, {
        trajectoryId: `run/4/${n}/${i}/0`,
        trajectory: create(TrajectorySchema, { trajectoryId: `run/4/${n}/${i}/0`, policyVersion: version, steps: steps.map((trace, index) => create(StepSchema, { index, trace })) }),
        verdict: create(VerdictSchema, { reward: rewards[i] ?? 0 }),
      }),
    })),
  };
}

void test('the update request holds exactly the kept groups: token ids, log-probs, masks, image refs, advantages, behaviour version', () => {
  const g = group(0, [[tokens([11, 12, 13], { images: ['a'.repeat(64)] }), tokens([14], { incomplete: true })], [tokens([21, 22])]], [1, 0], [1, -1]);
  const b = buildTrainBatch('run', [g], 3n, create(TrainHyperparamsSchema, { ppoEpochs: 2 }));
  assert.equal(b.header.batchId, 'run/update-4');
  assert.equal(b.header.baseVersion, 3n);
  assert.equal(b.header.targetVersion, 4n);
  assert.equal(b.header.groups, 1);
  assert.equal(b.header.samples, 2);
  assert.equal(b.header.hyper?.ppoEpochs, 2);
  assert.equal(b.steps, 2);
  assert.equal(b.skippedSteps, 1, 'the step the server gave no token ids for is left out');
  const [s0, s1] = b.groups[0]?.samples ?? [];
  assert.deepEqual([s0?.trajectoryId, s0?.reward, s0?.advantage, s0?.policyVersion], ['run/4/0/0/0', 1, 1, 3n]);
  assert.deepEqual([s1?.trajectoryId, s1?.reward, s1?.advantage], ['run/4/0/1/0', 0, -1]);
  const t = s0?.steps[0]?.trace?.kind;
  assert.equal(t?.case, 'tokens');
  if (t?.case !== 'tokens') return;
  assert.deepEqual(t.value.tokenIds, [11, 12, 13]);
  assert.deepEqual(t.value.promptTokenIds, [7, 8, 9]);
  assert.deepEqual(t.value.logprobs, [-0.25, -0.5, -0.75]);
  assert.deepEqual(t.value.lossMask, [1, 1, 0]);
  assert.deepEqual(t.value.images.map((i) => i.sha256), ['a'.repeat(64)]);
  assert.deepEqual(s1?.steps.map((s) => s.trace?.kind.case === 'tokens' && s.trace.kind.value.tokenIds), [[21, 22]]);
  assert.throws(() => buildTrainBatch('run', [{ ...g, fate: 'dropped_all_zero' }], 3n, create(TrainHyperparamsSchema, {})), /only kept groups/);
});

void test('scored trajectories decoded lazily (as the learner takes them in) give the same request, their steps and pointer traces left encoded', () => {
  const traces = [[pointer(1, 5), tokens([11, 12]), tokens([14], { incomplete: true })], [pointer(0, 9)]];
  const whole = group(1, traces, [1, 0], [1, -1]);
  const lazy: GroupState = {
    ...whole,
    samples: whole.samples.map((s) => ({ ...s, scored: decodeScoredLazy(encode(ScoredTrajectorySchema, s.scored!)) })),
  };
  const hyper = create(TrainHyperparamsSchema, {});
  const a = buildTrainBatch('run', [whole], 3n, hyper);
  const b = buildTrainBatch('run', [lazy], 3n, hyper);
  assert.deepEqual([b.steps, b.skippedSteps], [a.steps, a.skippedSteps]);
  assert.deepEqual([b.steps, b.skippedSteps], [3, 1]);
  const p = b.groups[0]!.samples[0]!.steps[0]!;
  assert.ok(pendingTraceBytes(p), 'the pointer trace is handed on encoded');
  assert.ok(
    b.groups.every((g) => g.samples.every((s) => s.steps.every((st) => traceKind(st) !== undefined))),
    'every step handed on has a trace',
  );
  // Reading them decodes them: the same request as from the whole messages.
  assert.ok(b.groups.every((g, i) => equals(TrainGroupSchema, g, a.groups[i]!)));
  assert.equal(pendingTraceBytes(p), undefined);
  // The ledger's own messages still read whole.
  assert.equal(lazy.samples[0]!.scored!.trajectory!.steps.length, 3);
});

let nats: NatsServer;
let bus: Bus;
let fake: FakeTrainerDouble;
let dir: string;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-learner-trainer-'));
  nats = await startNatsServer();
  bus = await connectBus({ servers: nats.url, name: 'learner-trainer-test' });
  await ensureTopology(bus, { storage: 'memory' });
  fake = await startFakeTrainer({ dir: path.join(dir, 'adapters') });
});

after(async () => {
  await fake?.close();
  await bus?.close();
  await nats?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function publisher(runId: string, model: PointerModel, weights: WeightsPointer, artifacts: ArtifactServer, remote?: RemoteTrainerBinding): Promise<PolicyPublisher> {
  return new PolicyPublisher({
    runId,
    model,
    trainer: new GrpoTrainer(model, new Adam(model.dim), { epochs: 2 }),
    artifacts,
    weights,
    crash: new CrashPoints(null),
    logger: silentLogger,
    retry: { log: silentLogger },
    updatesDir: path.join(dir, `updates-${runId}`),
    ...(remote ? { remote } : {}),
  });
}

void test('remote trainer: the kept groups are written ahead, trained once when the version is published (also after a restart), and the answer is announced', async () => {
  const weights = await WeightsPointer.open(bus);
  const artifacts = new ArtifactServer(path.join(dir, 'art-remote'), { port: 0, host: '127.0.0.1', advertiseHost: '127.0.0.1' });
  await artifacts.start();
  const client = new RemoteTrainer(fake.address, { retries: 1, backoffMs: 50 });
  const binding: RemoteTrainerBinding = { trainer: client, info: await client.info(), stateDir: path.join(dir, 'trainer-state'), hyper: create(TrainHyperparamsSchema, { ppoEpochs: 2, clipLow: 0.2, clipHigh: 0.28 }) };
  fs.mkdirSync(binding.stateDir, { recursive: true });
  try {
    const model = initialModel({ dim: 64, temperature: 1 });
    let p = await publisher('remote-run', model, weights, artifacts, binding);
    await p.publish(0);
    const v0 = await weights.get();
    assert.deepEqual([v0?.version, v0?.kind, v0?.uri], [0n, 'lora-adapter', ''], 'version 0 of a language model is the served base: nothing to load');

    const kept = [group(0, [[tokens([11, 12])], [tokens([13])], [tokens([14, 15, 16])]], [1, 0, 0], [1.4142, -0.7071, -0.7071], 0n), group(1, [[tokens([31])], [tokens([32])]], [0, 1], [-1, 1], 0n)];
    const stats = p.update(kept);
    assert.deepEqual([stats.groups, stats.trajectories, stats.actions], [2, 5, 5]);
    assert.equal(fake.received.length, 0, 'nothing is sent before the learner checkpoints');
    await p.publish(1);
    assert.equal(fake.updates.length, 1);
    const u = fake.updates[0];
    assert.deepEqual([u?.header.baseVersion, u?.header.targetVersion, u?.header.batchId, u?.header.hyper?.clipHigh], [0n, 1n, 'remote-run/update-1', 0.28]);
    assert.deepEqual(
      u?.groups.map((g) => g.samples.map((s) => [s.advantage, s.steps.map((st) => (st.trace?.kind.case === 'tokens' ? st.trace.kind.value.tokenIds : []))])),
      [
        [
          [1.4142, [[11, 12]]],
          [-0.7071, [[13]]],
          [-0.7071, [[14, 15, 16]]],
        ],
        [
          [-1, [[31]]],
          [1, [[32]]],
        ],
      ],
    );
    const v1 = await weights.get();
    const answered = fake.versions.get(1n);
    assert.deepEqual([v1?.version, v1?.uri, v1?.sha256, v1?.kind, v1?.serveName, v1?.runId], [1n, answered?.uri, answered?.sha256, 'lora-adapter', 'owrl-v1', 'remote-run']);

    // written ahead for version 2, then the learner dies before publishing; a new one resends it
    p.update([group(2, [[tokens([41])], [tokens([42])]], [1, 0], [1, -1], 1n)]);
    p = await publisher('remote-run', model, weights, artifacts, binding);
    await p.publish(2);
    assert.equal(fake.updates.length, 2);
    assert.deepEqual(fake.updates[1]?.groups[0]?.samples.map((s) => s.trajectoryId), ['run/4/2/0/0', 'run/4/2/1/0']);
    assert.equal((await weights.get())?.version, 2n);
    // re-announcing (another restart) trains nothing again
    p = await publisher('remote-run', model, weights, artifacts, binding);
    await p.publish(2);
    assert.equal(fake.received.length, 2);

    // the awaited form: the trainer has answered (with its epochs) when it resolves; publishing sends nothing more
    const awaited = await p.train([group(3, [[tokens([51])], [tokens([52])]], [0, 1], [-1, 1], 2n)], 2);
    assert.equal(fake.updates.length, 3);
    assert.deepEqual(awaited.epochs.map((e) => e.epoch), [1, 2]);
    await p.publish(3);
    assert.equal(fake.received.length, 3);
    assert.equal((await weights.get())?.sha256, fake.versions.get(3n)?.sha256);
  } finally {
    await client.close();
    await artifacts.close();
  }
});

void test('in process: the update through the contract trains the model exactly as GrpoTrainer.update on the same groups, and publishes its ONNX', async () => {
  const weights = await WeightsPointer.open(bus);
  const artifacts = new ArtifactServer(path.join(dir, 'art-local'), { port: 0, host: '127.0.0.1', advertiseHost: '127.0.0.1' });
  await artifacts.start();
  try {
    const model = initialModel({ dim: 64, temperature: 1 });
    const reference = initialModel({ dim: 64, temperature: 1 });
    const p = await publisher('local-run', model, weights, artifacts);
    await p.publish(0);
    const traces = [[pointer(0, 3), pointer(1, 9)], [pointer(1, 3)], [pointer(0, 20)]];
    const rewards = [1, 0, 0];
    const stats = p.update([group(0, traces, rewards, [Math.SQRT2, -Math.SQRT1_2, -Math.SQRT1_2], 0n)]);
    const ref = new GrpoTrainer(reference, new Adam(64), { epochs: 2 }).update([{ rewards, trajectories: traces.map((t) => ({ steps: t.map((x) => (x.kind.case === 'pointer' ? x.kind.value : (undefined as never))) })) }]);
    assert.equal(stats.actions, 4);
    assert.equal(stats.epochs.length, ref.epochs.length);
    for (let i = 0; i < 64; i++) assert.ok(Math.abs((model.weights[i] ?? 0) - (reference.weights[i] ?? 0)) < 1e-5, `weight ${i}: ${model.weights[i]} vs ${reference.weights[i]}`);
    assert.ok(model.weights.some((w) => w !== 0), 'the update moved the weights');
    await p.publish(1);
    const v1 = await weights.get();
    assert.deepEqual([v1?.version, v1?.kind, v1?.runId], [1n, 'onnx-pointer', 'local-run']);
    assert.match(v1?.uri ?? '', /policy-v1\.onnx$/);
  } finally {
    await artifacts.close();
  }
});

/** A full garbage collection (the flag set at run time: the test runner starts node without it). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

void test('in process, written ahead: the batch (every kept result\'s traces) is not kept while the update trains, only its figures', async () => {
  const weights = await WeightsPointer.open(bus);
  const artifacts = new ArtifactServer(path.join(dir, 'art-ahead-held'), { port: 0, host: '127.0.0.1', advertiseHost: '127.0.0.1' });
  await artifacts.start();
  try {
    const traces = [[pointer(0, 3), pointer(1, 9)], [pointer(1, 3)], [pointer(0, 20)]];
    const kept = [group(0, traces, [1, 0, 0], [Math.SQRT2, -Math.SQRT1_2, -Math.SQRT1_2], 0n)];
    const model = initialModel({ dim: 64, temperature: 1 });
    const p = await publisher('ahead-held-run', model, weights, artifacts);
    // The batch the publisher builds, watched without keeping it alive.
    const inner = p as unknown as { batch: (...a: unknown[]) => object };
    const build = inner.batch.bind(p);
    let built: WeakRef<object> | null = null;
    inner.batch = (...a: unknown[]) => {
      const b = build(...a);
      built = new WeakRef(b);
      return b;
    };
    await p.writeAhead(kept, 0);
    assert.ok(built, 'writeAhead built a batch');
    // WeakRef targets live to the end of the job that made them: collect in a later one.
    await new Promise((r) => setImmediate(r));
    collectGarbage();
    assert.equal((built as WeakRef<object>).deref(), undefined, 'the written-ahead batch was collected: the update reads its stored request');
    const u = await p.trainAhead(1);
    assert.deepEqual([u.groups, u.trajectories, u.actions], [1, 3, 4], 'the update\'s figures are still the batch\'s');
    p.settleAhead(1);
    await p.close();
  } finally {
    await artifacts.close();
  }
});

void test('in process, written ahead (async overlap): trained off the thread, trained again the same from the stored request after a restart, dropped once settled', async () => {
  const weights = await WeightsPointer.open(bus);
  const artifacts = new ArtifactServer(path.join(dir, 'art-ahead'), { port: 0, host: '127.0.0.1', advertiseHost: '127.0.0.1' });
  await artifacts.start();
  try {
    const traces = [[pointer(0, 3), pointer(1, 9)], [pointer(1, 3)], [pointer(0, 20)]];
    const kept = [group(0, traces, [1, 0, 0], [Math.SQRT2, -Math.SQRT1_2, -Math.SQRT1_2], 0n)];
    // Uninterrupted: written ahead, then trained.
    const a = initialModel({ dim: 64, temperature: 1 });
    const pa = await publisher('ahead-run', a, weights, artifacts);
    await pa.writeAhead(kept, 0);
    const ua = await pa.trainAhead(1);
    assert.equal(ua.actions, 4);
    assert.ok(ua.epochs.length > 0 && a.weights.some((w) => w !== 0), 'the update trained the model');
    const stored = path.join(dir, 'updates-ahead-run', 'batch-v1.pb');
    assert.ok(fs.existsSync(stored), 'the request stays stored until the trained version is checkpointed');
    fs.writeFileSync(path.join(dir, 'updates-ahead-run', 'batch-v0.pb'), 'left by a crash');
    pa.settleAhead(1);
    assert.ok(!fs.existsSync(stored));
    assert.deepEqual(fs.readdirSync(path.join(dir, 'updates-ahead-run')), [], 'older requests go with it');
    await pa.close();

    // Killed after the checkpoint that holds the request, before training: a new publisher (from
    // the checkpointed weights, version 0) trains the stored request to the same weights.
    const b = initialModel({ dim: 64, temperature: 1 });
    const pb = await publisher('ahead-run', b, weights, artifacts);
    await pb.writeAhead(kept, 0);
    await pb.close();
    const restarted = await publisher('ahead-run', b, weights, artifacts);
    const ub = await restarted.trainAhead(1);
    assert.deepEqual(b.weights, a.weights, 'the same update as the uninterrupted one');
    assert.deepEqual(ub.epochs.map((e) => e.loss), ua.epochs.map((e) => e.loss));
    await restarted.publish(1);
    assert.equal((await weights.get())?.version, 1n);
    restarted.settleAhead(1);
    await assert.rejects(restarted.trainAhead(2), /TRAINER_BATCH_MISSING|batch-v2\.pb is missing/);
    await restarted.close();
  } finally {
    await artifacts.close();
  }
});

void test('remote trainer: the images an update references are kept by the learner and fetched by the trainer; a sample whose image is gone is refused and counted, not the update', async () => {
  const weights = await WeightsPointer.open(bus);
  const artifacts = new ArtifactServer(path.join(dir, 'art-images'), { port: 0, host: '127.0.0.1', advertiseHost: '127.0.0.1' });
  await artifacts.start();
  const store = new ScreenshotStore(bus);
  const keeper = new ShotKeeper(path.join(dir, 'shots-images'), store, silentLogger);
  artifacts.serveShots({ find: (sha) => keeper.find(sha), get: (sha) => store.get(sha) });
  const client = new RemoteTrainer(fake.address, { retries: 1, backoffMs: 50 });
  const binding: RemoteTrainerBinding = { trainer: client, info: await client.info(), stateDir: path.join(dir, 'trainer-images'), hyper: create(TrainHyperparamsSchema, {}) };
  fs.mkdirSync(binding.stateDir, { recursive: true });
  try {
    const model = initialModel({ dim: 64, temperature: 1 });
    const p = new PolicyPublisher({
      runId: 'images-run',
      model,
      trainer: new GrpoTrainer(model, new Adam(model.dim), { epochs: 1 }),
      artifacts,
      weights,
      crash: new CrashPoints(null),
      logger: silentLogger,
      retry: { log: silentLogger },
      updatesDir: path.join(dir, 'updates-images'),
      remote: binding,
      shots: { keeper, imageUrl: artifacts.shotsUrl },
    });
    await p.publish(0);
    // two screenshots in the store; a third one the traces reference was never stored (or aged out)
    const [a, b] = await Promise.all([store.put(PNG_A), store.put(PNG_B)]);
    const gone = 'f'.repeat(64);
    const kept = [
      group(0, [[tokens([11, 12], { images: [a.sha256] })], [tokens([13, 14], { images: [a.sha256, b.sha256] })], [tokens([15, 16], { images: [gone] })]], [1, 0, 0], [1.4, -0.7, -0.7], 0n),
    ];
    const before = fake.updates.length;
    await p.train(kept, 0);
    const u = fake.updates[before];
    assert.deepEqual([u?.header.imageUrl, u?.header.imagesMissing], [artifacts.shotsUrl, 1]);
    assert.deepEqual([u?.imagesFetched, u?.refused], [2, ['run/4/0/2/0']], 'the two kept images were fetched and checked; the sample with the missing one was refused');
    assert.equal(u?.result?.samplesRefused, 1n);
    assert.deepEqual(p.takeOutcome(1), { samplesNotSent: 0, imagesMissing: 1, samplesRefused: 1 });
    // kept on the learner's disk until the version is committed, served by sha256 (404 for the missing one)
    const res = await fetch(`${artifacts.shotsUrl}${a.sha256}`);
    assert.deepEqual([res.status, res.headers.get('content-type'), Buffer.from(await res.arrayBuffer()).equals(Buffer.from(PNG_A))], [200, 'image/png', true]);
    assert.equal((await fetch(`${artifacts.shotsUrl}${gone}`)).status, 404);
    assert.ok(keeper.find(b.sha256));
    await p.publish(1);
    assert.equal(keeper.find(b.sha256), undefined, 'released once the version is published');
  } finally {
    await client.close();
    await artifacts.close();
  }
});
