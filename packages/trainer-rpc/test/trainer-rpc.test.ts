// The trainer contract over real gRPC sockets: TrainerServer in front of an in-process
// PolicyTrainer, RemoteTrainer against it and against the testkit's independently written GPU
// trainer stand-in. Requests arrive intact, refusals keep their codes, retries keep idempotency
// (a lost answer is replayed, a retry joins the update still running), updates run one at a time,
// tokens guard calls, and bad requests are refused with the field named.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { MemoryMeter, Secret, type Logger } from '@owrl/core';
import { equals, grpcServiceDefinition, health, make, Trainer, TrainChunkSchema, TrainGroupSchema, TrainHeaderSchema, type TrainChunk, type TrainResult } from '@owrl/proto';
import { freePort, startFakeTrainer, type FakeTrainerDouble } from '@owrl/testkit';
import { RemoteTrainer, TrainerError, TrainerErrorCode, TrainerServer } from '@owrl/trainer-rpc';
import { header, pointerStep, RecordingTrainer, tokenGroups, tokenStep } from './helpers.js';

type Spy = Logger & { warns: string[]; infos: string[]; onWarn?: (() => void) | undefined; onInfo?: ((msg: string) => void) | undefined };
function logSpy(): Spy {
  const l: Spy = {
    warns: [],
    infos: [],
    debug: () => undefined,
    info: (_o: object, msg?: string) => {
      l.infos.push(msg ?? '');
      l.onInfo?.(msg ?? '');
    },
    warn: (_o: object, msg?: string) => {
      l.warns.push(msg ?? '');
      l.onWarn?.();
    },
    error: () => undefined,
    child: () => l,
  };
  return l;
}

async function refusal(p: Promise<unknown>): Promise<TrainerError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof TrainerError, `expected a TrainerError, got ${String(e)}`);
    return e;
  }
  return assert.fail('expected a refusal');
}

const RawClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(Trainer) as unknown as grpc.ServiceDefinition, 'Trainer');
const HealthClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(health.Health) as unknown as grpc.ServiceDefinition, 'Health');

/** Sends chunks as they are, bypassing the client's own checks. */
function rawTrain(address: string, chunks: TrainChunk[]): Promise<grpc.ServiceError | TrainResult> {
  const c = new RawClient(address, grpc.credentials.createInsecure()) as unknown as {
    train(md: grpc.Metadata, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: TrainResult) => void): grpc.ClientWritableStream<TrainChunk>;
    close(): void;
  };
  return new Promise((resolve) => {
    const call = c.train(new grpc.Metadata(), { deadline: Date.now() + 10_000 }, (e, r) => {
      c.close();
      resolve(e ?? (r as TrainResult));
    });
    for (const ch of chunks) call.write(ch);
    call.end();
  });
}

void describe('TrainerServer + RemoteTrainer', () => {
  const trainer = new RecordingTrainer();
  const meter = new MemoryMeter();
  const server = new TrainerServer(trainer, { token: new Secret('t0ken'), meter });
  let client: RemoteTrainer;
  const log = logSpy();
  before(async () => {
    await server.start();
    client = new RemoteTrainer(`127.0.0.1:${server.port}`, { token: 't0ken', backoffMs: 20, logger: log });
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  void it('hands the trainer exactly the header and groups sent, and returns its version', async () => {
    const groups = tokenGroups();
    const h = header(0n);
    const r = await client.train(h, groups);
    assert.deepEqual([r.batchId, r.version, r.replayed, r.artifact?.kind], ['run-1/update-1', 1n, false, 'onnx-pointer']);
    const got = trainer.calls.at(-1);
    assert.ok(got);
    assert.ok(equals(TrainHeaderSchema, got.header, h), 'header arrives intact');
    assert.equal(got.groups.length, 2);
    got.groups.forEach((g, i) => assert.ok(equals(TrainGroupSchema, g, groups[i] ?? g), `group ${i} arrives intact`));
    const info = await client.info();
    assert.deepEqual([info.name, info.latestVersion, info.traceKinds], ['recording/1', 1n, ['pointer', 'tokens']]);
    assert.equal(meter.value('owrl_trainer_updates_total', { outcome: 'trained' }), 1);
    assert.equal(info.maxGroupBytes, BigInt(64 << 20));
  });

  void it('refuses a request before sending it, naming the field', async () => {
    const before = trainer.calls.length;
    const g = tokenGroups();
    const s = g[1]?.samples[0];
    assert.ok(s);
    s.steps = [tokenStep(0, [1, 2, 3], [-0.1, -0.2])];
    const e = await refusal(client.train(header(1n), g));
    assert.equal(e.code, TrainerErrorCode.InvalidRequest);
    assert.equal(e.message, 'groups[1].samples[0].steps[0].trace.tokens.logprobs has 2 entries for 3 token_ids');
    const noPrompt = tokenGroups();
    const np = noPrompt[0]?.samples[1]?.steps[1]?.trace;
    assert.ok(np?.kind.case === 'tokens');
    np.kind.value.promptTokenIds = [];
    const e1 = await refusal(client.train(header(1n), noPrompt));
    assert.match(e1.message, /^groups\[0\]\.samples\[1\]\.steps\[1\]\.trace\.tokens\.prompt_token_ids is empty/);
    const e2 = await refusal(client.train(header(1n, 'b', { targetVersion: 5n }), tokenGroups()));
    assert.equal(e2.message, 'header.target_version 5 must be base_version + 1 = 2');
    assert.equal(trainer.calls.length, before);
  });

  void it('refuses malformed streams on the server side too, with the code in the trailer', async () => {
    const address = `127.0.0.1:${server.port}`;
    // no token: refused
    const noAuth = await rawTrain(address, [make(TrainChunkSchema, { kind: { case: 'header', value: header(1n) } })]);
    assert.equal((noAuth as grpc.ServiceError).code, grpc.status.UNAUTHENTICATED);
    const s2 = new TrainerServer(trainer);
    await s2.start();
    const a2 = `127.0.0.1:${s2.port}`;
    const first = await rawTrain(a2, [make(TrainChunkSchema, { kind: { case: 'group', value: tokenGroups()[0] ?? assert.fail() } })]);
    assert.equal((first as grpc.ServiceError).code, grpc.status.INVALID_ARGUMENT);
    assert.equal((first as grpc.ServiceError).details, 'the first chunk must be the TrainHeader, a TrainGroup came first');
    assert.equal((first as grpc.ServiceError).metadata.get('owrl-error-code')[0], 'TRAINER_INVALID_REQUEST');
    const mixed = tokenGroups();
    const m0 = mixed[0]?.samples[0];
    assert.ok(m0);
    m0.steps = [pointerStep(0)];
    const wrongCount = await rawTrain(a2, [
      make(TrainChunkSchema, { kind: { case: 'header', value: header(1n, 'c', { groups: 3 }) } }),
      ...mixed.map((g) => make(TrainChunkSchema, { kind: { case: 'group', value: g } })),
    ]);
    assert.equal((wrongCount as grpc.ServiceError).details, 'header.groups says 3, 2 groups arrived');
    await s2.close();
  });

  void it("keeps the trainer's error code across the wire and does not retry it", async () => {
    const before = trainer.calls.length;
    const e = await refusal(client.train(header(7n), tokenGroups()));
    assert.equal(e.code, TrainerErrorCode.UnknownBaseVersion);
    assert.match(e.message, /base_version 7 is newer than the newest version 1/);
    assert.equal(trainer.calls.length, before + 1);
  });

  void it('a retry after the deadline joins the update still running: one update, one version', async () => {
    // a server whose log tells when the retry has joined the running update; only then does the update finish
    const serverLog = logSpy();
    const joined = new TrainerServer(trainer, { token: 't0ken', logger: serverLog });
    await joined.start();
    let release!: () => void;
    trainer.gate = new Promise<void>((r) => (release = r));
    serverLog.onInfo = (msg) => {
      if (msg === 'update already running; the retry waits for it') release();
    };
    const slow = new RemoteTrainer(`127.0.0.1:${joined.port}`, { token: 't0ken', trainDeadlineMs: 1000, backoffMs: 20, logger: log });
    log.warns.length = 0;
    const before = trainer.calls.length;
    const r = await slow.train(header(1n), tokenGroups(1));
    trainer.gate = undefined;
    assert.ok(log.warns.some((w) => /failed; retrying the same request/.test(w)));
    assert.deepEqual([r.version, r.replayed], [2n, false]);
    assert.equal(trainer.calls.length, before + 1, 'the trainer ran the update once');
    // asked again later, it is a replay of the same version
    const again = await slow.train(header(1n), tokenGroups(1));
    assert.deepEqual([again.version, again.replayed], [2n, true]);
    await slow.close();
    await joined.close();
  });

  void it('runs updates one at a time', async () => {
    trainer.maxActive = 0;
    const a = client.train(header(2n, 'x'), tokenGroups());
    const b = client.train(header(3n, 'y'), tokenGroups());
    const [ra, rb] = await Promise.all([a, b]);
    assert.deepEqual([ra.version, rb.version], [3n, 4n]);
    assert.equal(trainer.maxActive, 1);
  });

  void it('reports health, and refuses a wrong token without retrying', async () => {
    const hc = new HealthClient(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure()) as unknown as {
      check(r: unknown, md: grpc.Metadata, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: health.HealthCheckResponse) => void): void;
      close(): void;
    };
    const status = await new Promise<number | undefined>((resolve) =>
      hc.check(make(health.HealthCheckRequestSchema, { service: 'owrl.v1.Trainer' }), new grpc.Metadata(), { deadline: Date.now() + 5000 }, (_e, r) => resolve(r?.status)),
    );
    hc.close();
    assert.equal(status, health.HealthCheckResponse_ServingStatus.SERVING);
    const wrong = new RemoteTrainer(`127.0.0.1:${server.port}`, { token: 'nope', backoffMs: 10, logger: log });
    log.warns.length = 0;
    const e = await refusal(wrong.info());
    assert.equal(e.code, TrainerErrorCode.Unauthenticated);
    assert.equal(log.warns.length, 0, 'no retries');
    await wrong.close();
  });

  void it('gives up on an unreachable trainer after its retries', async () => {
    const port = await freePort();
    const gone = new RemoteTrainer(`127.0.0.1:${port}`, { retries: 2, backoffMs: 10, infoDeadlineMs: 2000 });
    const e = await refusal(gone.train(header(0n), tokenGroups()));
    assert.equal(e.code, TrainerErrorCode.Unavailable);
    assert.match(e.message, /3 attempts/);
    await gone.close();
  });

  void it('refuses a group larger than the trainer takes, before sending it', async () => {
    const small = new TrainerServer(trainer, { maxMessageBytes: 600 });
    await small.start();
    const c = new RemoteTrainer(`127.0.0.1:${small.port}`);
    const g = tokenGroups();
    const big = g[1]?.samples[1];
    assert.ok(big);
    big.steps = [tokenStep(0, Array.from({ length: 200 }, (_, i) => i), new Array<number>(200).fill(-0.5))];
    const e = await refusal(c.train(header(trainer.latest), g));
    assert.match(e.message, /^groups\[1\] encodes to \d+ bytes; the trainer takes at most 600 per group$/);
    await c.close();
    await small.close();
  });
});

void describe('RemoteTrainer against the GPU trainer stand-in', () => {
  let fake: FakeTrainerDouble;
  let client: RemoteTrainer;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-fake-trainer-'));
  before(async () => {
    fake = await startFakeTrainer({ dir, baseModel: 'Qwen/Qwen3-VL-4B-Instruct', token: 'gpu' });
    client = new RemoteTrainer(fake.address, { token: 'gpu', backoffMs: 10 });
  });
  after(async () => {
    await client.close();
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  void it('delivers the tokens, log-probs and advantages, and gets a LoRA adapter whose sha256 checks out', async () => {
    const groups = tokenGroups();
    const r = await client.train(header(0n), groups);
    const got = fake.received[0];
    assert.ok(got);
    const flat = (gs: typeof groups) => gs.flatMap((g) => g.samples.map((s) => [s.trajectoryId, s.advantage, s.steps.map((st) => (st.trace?.kind.case === 'tokens' ? [st.trace.kind.value.tokenIds, st.trace.kind.value.logprobs] : []))]));
    assert.deepEqual(flat(got.groups), flat(groups));
    const a = r.artifact;
    assert.ok(a);
    assert.deepEqual([a.kind, a.serveName, a.baseModel, a.version], ['lora-adapter', 'owrl-v1', 'Qwen/Qwen3-VL-4B-Instruct', 1n]);
    const folder = fileURLToPath(a.uri);
    assert.ok(fs.existsSync(path.join(folder, 'adapter_config.json')));
    assert.equal(createHash('sha256').update(fs.readFileSync(path.join(folder, 'adapter_model.safetensors'))).digest('hex'), a.sha256);
    // the stand-in's loss is the token-mean of -advantage: 4 tokens per sample, advantages +1, -1, +1, -1 → 0
    assert.deepEqual(r.epochs.map((e) => [e.epoch, e.loss, Number(e.actions)]), [[1, 0, 16], [2, 0, 16]]);
  });

  void it('retries a lost answer with the same request and gets the stored version back', async () => {
    fake.dropNextAnswer();
    const r = await client.train(header(1n), tokenGroups(2));
    assert.deepEqual([r.version, r.replayed], [2n, true]);
    assert.equal(fake.updates.length, 2, 'one update per version');
    assert.deepEqual(
      fake.received.slice(-2).map((u) => [u.header.batchId, u.header.baseVersion]),
      [
        ['run-1/update-2', 1n],
        ['run-1/update-2', 1n],
      ],
    );
  });

  void it('restores an older base version when the learner resumes from it', async () => {
    // the learner checkpointed version 1, crashed after training 2, and trains from 1 again
    const r = await client.train(header(1n, 'run-1/update-2-after-restart'), tokenGroups(3));
    assert.deepEqual([r.version, r.replayed], [2n, false]);
    assert.deepEqual([...fake.versions.keys()], [1n, 2n]);
    const info = await client.info();
    assert.equal(info.latestVersion, 2n);
  });

  void it('surfaces the stand-in refusal of an unknown base version', async () => {
    const e = await refusal(client.train(header(9n), tokenGroups()));
    assert.equal(e.code, TrainerErrorCode.UnknownBaseVersion);
    assert.match(e.message, /base_version 9 is not held/);
  });
});
