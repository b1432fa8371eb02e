// StreamSteps: the learner's held results' steps read back from OWRL_SCORED by sequence, against a
// real nats-server with owrl's topology. A held result lets go of its steps; read ahead
// (prefetchSteps, as the update and GetTrajectory do) they come back equal to a full decode; a
// read without one, a message gone from the stream, another trajectory's message and a stream
// without direct gets are each named or handled; the update's batch trains the rest and names
// the unreadable; GetTrajectory answers a held result whole over a real gRPC socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { connectBus, ensureTopology, scoredSubject, STREAM_SCORED, type Bus } from '@owrl/bus';
import {
  create,
  decode,
  decodeScoredLazy,
  encode,
  encodeWithField,
  equals,
  GetTrajectoryRequestSchema,
  grpcServiceDefinition,
  Learner,
  ListGroupsResponseSchema,
  make,
  PolicyTraceSchema,
  PointerTraceSchema,
  prefetchSteps,
  ScoredTrajectorySchema,
  StepSchema,
  stepCount,
  stepTraces,
  TaskSchema,
  TrainHyperparamsSchema,
  TrajectorySchema,
  VerdictSchema,
  type ScoredTrajectory,
} from '@owrl/proto';
import { silentLogger, type Logger } from '@owrl/core';
import { startNatsServer } from '@owrl/testkit';
import { loadLearnerConfig } from '../src/config.js';
import { LearnerGrpcServer, type LearnerControl } from '../src/grpc-server.js';
import type { GroupState } from '../src/round-group.js';
import { RunStateStore } from '../src/run-state-store.js';
import { StreamSteps } from '../src/stream-steps.js';
import { buildTrainBatch } from '../src/train-batch.js';

const RUN = 'heldrun';

/** A scored trajectory of `steps` steps, each with a pointer trace and `textBytes` of reasoning. */
function scoredBytes(id: string, steps: number, textBytes: number): Uint8Array {
  const t = make(TrajectorySchema, {
    trajectoryId: id,
    steps: Array.from({ length: steps }, (_, i) =>
      create(StepSchema, {
        index: i,
        reasoning: `${id}:${i} ${'x'.repeat(textBytes)}`,
        trace: create(PolicyTraceSchema, { kind: { case: 'pointer', value: create(PointerTraceSchema, { numCandidates: 3, chosen: i % 3, logprob: -0.5 - i }) } }),
      }),
    ),
  });
  return encodeWithField(ScoredTrajectorySchema, make(ScoredTrajectorySchema, { trajectoryId: id, trainable: true, verdict: create(VerdictSchema, { reward: 1 }) }), 'trajectory', encode(TrajectorySchema, t));
}

interface Published {
  id: string;
  seq: number;
  original: Uint8Array;
}

async function publish(bus: Bus, id: string, steps = 6, textBytes = 2000): Promise<Published> {
  const bytes = scoredBytes(id, steps, textBytes);
  const r = await bus.publishBytes(scoredSubject(RUN), bytes, { msgId: id });
  return { id, seq: r.seq, original: bytes };
}

/** The scored trajectory as the learner holds it: decoded lazily from a copy of the delivered bytes, which are then gone. */
function delivered(p: Published): ScoredTrajectory {
  const bytes = p.original.slice();
  const s = decodeScoredLazy(bytes);
  return Object.assign(s, { zero: () => bytes.fill(0) });
}

function heldAsDelivered(held: StreamSteps, p: Published): ScoredTrajectory {
  const s = delivered(p);
  assert.ok(held.hold(s.trajectory!, p.seq) > 10_000, 'its steps are let go of');
  (s as unknown as { zero: () => void }).zero();
  return s;
}

function recordingLogger(lines: string[]): Logger {
  const l: Logger = { ...silentLogger, warn: (_o: object, msg: string) => void lines.push(msg), child: () => l } as Logger;
  return l;
}

async function withBus(fn: (bus: Bus) => Promise<void>): Promise<void> {
  const nats = await startNatsServer();
  const bus = await connectBus({ servers: nats.url, name: 'stream-steps-test' });
  try {
    await ensureTopology(bus);
    await fn(bus);
  } finally {
    await bus.close();
    await nats.dispose();
  }
}

void test('held steps leave memory and come back from the stream equal to a full decode, only when read ahead', async () => {
  await withBus(async (bus) => {
    const held = new StreamSteps(bus, { logger: silentLogger });
    const ps = await Promise.all(Array.from({ length: 20 }, (_, i) => publish(bus, `${RUN}/0/${i}/0/0@1`)));
    const hs = ps.map((p) => heldAsDelivered(held, p));
    assert.equal(stepCount(hs[0]!.trajectory!), 6, 'counted without a read');
    assert.throws(() => stepTraces(hs[0]!.trajectory!), (e: Error) => e.message.includes(`${STREAM_SCORED} #${ps[0]!.seq}`) && /read back only ahead of use/.test(e.message));
    await prefetchSteps(hs.map((s) => s.trajectory!));
    for (const [i, s] of hs.entries()) {
      const whole = decode(ScoredTrajectorySchema, ps[i]!.original);
      assert.ok(equals(ScoredTrajectorySchema, s, whole), `trajectory ${i} reads back whole`);
    }
    assert.deepEqual(held.stats(), { held: 20, heldBytes: held.stats().heldBytes, reads: 20, failedReads: 0 });
    // Small steps are not worth a round trip: they stay.
    const small = await publish(bus, `${RUN}/0/99/0/0@1`, 1, 10);
    assert.equal(held.hold(delivered(small).trajectory!, small.seq), 0);
  });
});

void test('an update\'s reads start in stream order, lowest sequence first, whatever order they were asked in', async () => {
  await withBus(async (bus) => {
    const held = new StreamSteps(bus, { logger: silentLogger, concurrency: 2 });
    const ps = await Promise.all(Array.from({ length: 12 }, (_, i) => publish(bus, `${RUN}/1/${i}/0/0@1`)));
    const hs = ps.map((p) => heldAsDelivered(held, p));
    const order: number[] = [];
    const direct = bus.jsm.direct;
    const get = direct.getMessage.bind(direct);
    direct.getMessage = ((stream: string, q: { seq: number }) => {
      order.push(q.seq);
      return get(stream, q);
    }) as typeof direct.getMessage;
    // Asked for as an update asks: group by group, not in the order the stream holds them.
    const asked = [7, 2, 11, 0, 5, 9, 1, 10, 3, 8, 6, 4];
    await prefetchSteps(asked.map((k) => hs[k]!.trajectory!));
    assert.deepEqual(order, ps.map((p) => p.seq).sort((a, b) => a - b), 'read in sequence order');
    for (const k of asked) assert.ok(equals(ScoredTrajectorySchema, hs[k]!, decode(ScoredTrajectorySchema, ps[k]!.original)), `trajectory ${k} reads back whole`);
  });
});

void test('a message gone from the stream or holding another trajectory is named, and the update trains the rest', async () => {
  await withBus(async (bus) => {
    const held = new StreamSteps(bus, { logger: silentLogger, attempts: 1 });
    const [a, b, c] = [await publish(bus, `${RUN}/0/0/0/0@1`), await publish(bus, `${RUN}/0/0/1/0@1`), await publish(bus, `${RUN}/0/0/2/0@1`)];
    const ha = heldAsDelivered(held, a);
    const hb = heldAsDelivered(held, b);
    // c's steps said to be at a's sequence: a store that answers with other bytes is not trusted.
    const hc = delivered(c);
    held.hold(hc.trajectory!, a.seq);
    await bus.jsm.streams.deleteMessage(STREAM_SCORED, b.seq);
    await assert.rejects(prefetchSteps([ha, hb, hc].map((s) => s.trajectory!)), /no longer has message/);
    assert.throws(() => stepTraces(hb.trajectory!), (e: Error) => e.message.includes(`could not be read back from ${STREAM_SCORED} #${b.seq}`) && /purged, or past the stream's limits/.test(e.message));
    assert.throws(() => stepTraces(hc.trajectory!), /holds trajectory "heldrun\/0\/0\/0\/0@1", not "heldrun\/0\/0\/2\/0@1"/);
    assert.equal(held.stats().failedReads, 2);

    const group: GroupState = {
      round: 0,
      group: 0,
      task: make(TaskSchema, { id: 't0' }),
      fate: 'kept',
      rewards: [1, 0, 1],
      advantages: [1, -1, 1],
      samples: [ha, hb, hc].map((s) => ({ trajectoryId: s.trajectoryId, status: 'done', acceptedId: s.trajectoryId, scored: s })),
    } as unknown as GroupState;
    const batch = buildTrainBatch(RUN, [group], 0n, make(TrainHyperparamsSchema, {}));
    assert.deepEqual(
      batch.unreadable.map((u) => u.trajectoryId),
      [b.id, c.id],
      'the two unreadable samples are named',
    );
    const samples = batch.groups[0]!.samples;
    assert.deepEqual(samples.map((s) => [s.trajectoryId, s.steps.length]), [[a.id, 6]], 'the readable one trains all its steps; the others, with none, are not sent');
    assert.deepEqual([batch.steps, batch.samplesNotSent], [6, 2]);
  });
});

void test('a stream without direct gets is read through the JetStream API, warned once', async () => {
  await withBus(async (bus) => {
    const info = await bus.jsm.streams.info(STREAM_SCORED);
    await bus.jsm.streams.update(STREAM_SCORED, { ...info.config, allow_direct: false });
    const warned: string[] = [];
    const held = new StreamSteps(bus, { logger: recordingLogger(warned) });
    const ps = [await publish(bus, `${RUN}/1/0/0/0@1`), await publish(bus, `${RUN}/1/0/1/0@1`)];
    const hs = ps.map((p) => heldAsDelivered(held, p));
    await prefetchSteps(hs.map((s) => s.trajectory!));
    for (const [i, s] of hs.entries()) assert.ok(equals(ScoredTrajectorySchema, s, decode(ScoredTrajectorySchema, ps[i]!.original)));
    assert.equal(warned.filter((m) => /direct get refused/.test(m)).length, 1);
  });
});

type Cb<T> = (e: grpc.ServiceError | null, r: T) => void;

void test('GetTrajectory answers a held result whole over gRPC, its steps read back from the stream', async () => {
  await withBus(async (bus) => {
    const held = new StreamSteps(bus, { logger: silentLogger });
    const p = await publish(bus, `${RUN}/2/0/0/0@1`);
    const gone = await publish(bus, `${RUN}/2/0/1/0@1`);
    const byId = new Map([p, gone].map((x) => [x.id, heldAsDelivered(held, x)]));
    await bus.jsm.streams.deleteMessage(STREAM_SCORED, gone.seq);
    const control: LearnerControl = {
      listGroups: () => make(ListGroupsResponseSchema, {}),
      getTrajectory: (id) => byId.get(id),
      pause: () => {},
      resume: () => {},
    };
    const server = new LearnerGrpcServer(new RunStateStore(RUN, 1, 'async'), control, { port: 0, host: '127.0.0.1', controlToken: '', logger: silentLogger });
    const port = await server.start();
    const Client = grpc.makeGenericClientConstructor(grpcServiceDefinition(Learner) as unknown as grpc.ServiceDefinition, 'Learner');
    const c = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as Record<string, (req: unknown, md: grpc.Metadata, cb: Cb<unknown>) => void>;
    const call = <T>(req: unknown) => new Promise<T>((resolve, reject) => c.getTrajectory!.call(c, req, new grpc.Metadata(), (e, r) => (e ? reject(e) : resolve(r as T))));
    try {
      const got = await call<ScoredTrajectory>(make(GetTrajectoryRequestSchema, { trajectoryId: p.id }));
      assert.ok(equals(ScoredTrajectorySchema, got, decode(ScoredTrajectorySchema, p.original)), 'answered whole');
      await assert.rejects(call(make(GetTrajectoryRequestSchema, { trajectoryId: gone.id })), (e: grpc.ServiceError) => e.code === grpc.status.UNAVAILABLE && e.details.includes(`could not be read back`) && e.details.includes(`#${gone.seq}`));
    } finally {
      (c as unknown as grpc.Client).close();
      await server.close();
    }
  });
});

void test('OWRL_HELD_STEPS: disk by default, stream or memory; OWRL_SPILL_STEPS is refused with its replacement named', () => {
  const base = { OWRL_RUN_ID: 'r', OWRL_SITES_URL: 'http://127.0.0.1:1' };
  assert.equal(loadLearnerConfig(base).heldSteps, 'disk');
  assert.equal(loadLearnerConfig({ ...base, OWRL_HELD_STEPS: 'stream' }).heldSteps, 'stream');
  assert.equal(loadLearnerConfig({ ...base, OWRL_HELD_STEPS: 'memory' }).heldSteps, 'memory');
  assert.throws(() => loadLearnerConfig({ ...base, OWRL_HELD_STEPS: 'ram' }), /OWRL_HELD_STEPS="ram" must be disk, stream or memory/);
  assert.throws(() => loadLearnerConfig({ ...base, OWRL_SPILL_STEPS: 'false' }), /replaced by OWRL_HELD_STEPS/);
});
