// WatchRun and server reflection with real gRPC clients over a socket: a slow client gets
// coalesced states (latest wins, versions only increase, the learner keeps no backlog), many
// clients share one encoding per broadcast, a client resumes from a resource version, and reflection describes the services completely.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { create } from '@bufbuild/protobuf';
import { grpcServiceDefinition, Learner, make, ListGroupsResponseSchema, reflection, RunPhase, WatchRunRequestSchema, type RunEvent } from '@owrl/proto';
import { silentLogger } from '@owrl/core';
import { LearnerGrpcServer, type LearnerControl } from '../src/grpc-server.js';
import { RunStateStore } from '../src/run-state-store.js';

const control: LearnerControl = { listGroups: () => make(ListGroupsResponseSchema, {}), getTrajectory: () => undefined, pause: () => {}, resume: () => {} };

async function serve(store: RunStateStore) {
  const server = new LearnerGrpcServer(store, control, { port: 0, host: '127.0.0.1', controlToken: '', logger: silentLogger });
  const port = await server.start();
  return { server, addr: `127.0.0.1:${port}` };
}

type Watcher = grpc.Client & { watchRun(req: unknown): grpc.ClientReadableStream<RunEvent> };
const LearnerClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(Learner), 'Learner');
const tick = () => new Promise<void>((r) => setImmediate(r));

/** Collects events of one WatchRun stream. */
function collect(c: Watcher, since: bigint) {
  const events: RunEvent[] = [];
  const call = c.watchRun(make(WatchRunRequestSchema, { sinceResourceVersion: since }));
  call.on('data', (e: RunEvent) => events.push(e));
  call.on('error', () => {});
  return { call, events };
}

async function until(cond: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

void test('WatchRun coalesces changes for a slow client: latest state wins, no backlog', async () => {
  const store = new RunStateStore('run-w', 10, 'sync');
  const { server, addr } = await serve(store);
  const c = new LearnerClient(addr, grpc.credentials.createInsecure()) as unknown as Watcher;
  try {
    const { call, events } = collect(c, 0n);
    await until(() => events.length === 1, 'the snapshot');
    assert.equal(events[0]?.kind, 'snapshot');
    // The client stops reading; each change is made in its own event-loop turn, with a state big
    // enough (~64 KiB) that HTTP/2 flow control holds the stream within a few events.
    call.pause();
    const big = 'x'.repeat(64 * 1024);
    const changes = 300;
    for (let i = 0; i < changes; i++) {
      store.change('progress', (s) => {
        s.message = `${i} ${big}`;
      });
      await tick();
    }
    const final = store.get().resourceVersion;
    const sentWhilePaused = server.watchStats.sent;
    assert.ok(sentWhilePaused < 30, `the server kept writing to a stalled client: ${sentWhilePaused} events`);
    assert.ok(server.watchStats.coalesced > changes / 2, `coalesced ${server.watchStats.coalesced}`);
    call.resume();
    await until(() => events[events.length - 1]?.resourceVersion === final, 'the latest state');
    const versions = events.map((e) => e.resourceVersion);
    assert.ok(versions.every((v, i) => i === 0 || v > (versions[i - 1] ?? 0n)), `versions increase: ${versions.join(',')}`);
    assert.ok(events.length < changes / 4, `${events.length} events for ${changes} changes`);
    assert.match(events[events.length - 1]?.state?.message ?? '', new RegExp(`^${changes - 1} `));
    assert.ok(events.some((e) => e.kind === 'coalesced'));
    call.cancel();
    await until(() => server.watchStats.open === 0, 'the stream to close');
  } finally {
    c.close();
    await server.close();
  }
});

void test('WatchRun fans out one encoding per broadcast: many clients cost the learner one encode, each gets the latest state', async () => {
  const store = new RunStateStore('run-f', 10, 'async');
  const { server, addr } = await serve(store);
  const clients = 6;
  const cs = Array.from({ length: clients }, () => new LearnerClient(addr, grpc.credentials.createInsecure()) as unknown as Watcher);
  try {
    const watches = cs.map((c) => collect(c, 0n));
    await until(() => watches.every((w) => w.events.length === 1), 'every snapshot');
    const sent0 = server.watchStats.sent;
    const encoded0 = server.watchStats.encoded;
    const changes = 200;
    const t0 = Date.now();
    for (let i = 0; i < changes; i++) {
      store.change('progress', (s) => {
        s.message = `change ${i}`;
      });
      await tick();
    }
    const elapsed = Date.now() - t0;
    const final = store.get().resourceVersion;
    await until(() => watches.every((w) => w.events[w.events.length - 1]?.resourceVersion === final), 'the latest state at every client');
    const sent = server.watchStats.sent - sent0;
    const encoded = server.watchStats.encoded - encoded0;
    // Streams are written together from one encoding (two kinds at most per broadcast: the change's,
    // and 'coalesced' for a stream that was behind).
    assert.ok(encoded * clients <= 2 * sent, `${encoded} encodings for ${sent} events to ${clients} clients`);
    // At most one broadcast per interval (100 ms) after the first, plus the trailing one.
    const bound = 2 + Math.ceil((Date.now() - t0) / 100);
    for (const w of watches) {
      const got = w.events.length - 1;
      assert.ok(got >= 1 && got <= bound, `a client got ${got} events for ${changes} changes over ${elapsed} ms (bound ${bound})`);
      assert.equal(w.events[w.events.length - 1]?.state?.message, `change ${changes - 1}`);
    }
    for (const w of watches) w.call.cancel();
    await until(() => server.watchStats.open === 0, 'the streams to close');
  } finally {
    for (const c of cs) c.close();
    await server.close();
  }
});

void test('the state a learner stops in reaches every watching client before its stream ends (a FAILED phase set just before close)', async () => {
  const store = new RunStateStore('run-close', 10, 'sync');
  // A long interval: the change below falls within it, so only close() can send it.
  const server = new LearnerGrpcServer(store, control, { port: 0, host: '127.0.0.1', controlToken: '', logger: silentLogger, watchIntervalMs: 60_000 });
  const addr = `127.0.0.1:${await server.start()}`;
  const c = new LearnerClient(addr, grpc.credentials.createInsecure()) as unknown as Watcher;
  let closed = false;
  try {
    const { call, events } = collect(c, 0n);
    let ended = false;
    call.on('end', () => (ended = true));
    await until(() => events.length === 1, 'the snapshot');
    store.change('phase', (s) => {
      s.phase = RunPhase.FAILED;
      s.failureCode = 'LEARNER_ERROR';
      s.message = 'saving the checkpoint failed';
    });
    await tick();
    assert.equal(events.length, 1, 'the change waits for the broadcast interval');
    closed = true;
    await server.close();
    await until(() => ended, 'the stream to end');
    const last = events[events.length - 1]?.state;
    assert.equal(last?.phase, RunPhase.FAILED);
    assert.equal(last?.message, 'saving the checkpoint failed');
    assert.equal(last?.resourceVersion, store.get().resourceVersion);
  } finally {
    c.close();
    if (!closed) await server.close();
  }
});

void test('WatchRun resumes from a resource version', async () => {
  const store = new RunStateStore('run-r', 10, 'sync');
  const { server, addr } = await serve(store);
  const c = new LearnerClient(addr, grpc.credentials.createInsecure()) as unknown as Watcher;
  try {
    store.change('round', (s) => {
      s.round = 1n;
    });
    const a = collect(c, 0n);
    await until(() => a.events.length === 1, 'the snapshot');
    const held = a.events[0]?.resourceVersion ?? 0n;
    assert.equal(held, 1n);
    a.call.cancel();

    // Up to date: no snapshot, the next change only.
    const b = collect(c, held);
    // Absence window: no snapshot may arrive (no event shows that none comes).
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(b.events.length, 0, 'a client holding the current version gets no snapshot');
    store.change('round', (s) => {
      s.round = 2n;
    });
    await until(() => b.events.length === 1, 'the change');
    assert.deepEqual([b.events[0]?.resourceVersion, b.events[0]?.kind, b.events[0]?.state?.round], [2n, 'round', 2n]);
    b.call.cancel();

    // Behind (changes happened while disconnected), or ahead (a version from before a learner
    // restart): the current state at once, then changes.
    store.change('phase', () => {});
    for (const since of [held, 999n]) {
      const d = collect(c, since);
      await until(() => d.events.length === 1, `the resumed state from v${since}`);
      assert.deepEqual([d.events[0]?.resourceVersion, d.events[0]?.kind], [3n, 'snapshot']);
      d.call.cancel();
    }
  } finally {
    c.close();
    await server.close();
  }
});

void test('server reflection lists the services and serves complete file descriptors (v1 and v1alpha)', async () => {
  const store = new RunStateStore('run-x', 1, 'sync');
  const { server, addr } = await serve(store);
  try {
    for (const name of ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection']) {
      const def = grpcServiceDefinition(reflection.ServerReflection);
      for (const m of Object.values(def)) m.path = m.path.replace('grpc.reflection.v1.ServerReflection', name);
      const Client = grpc.makeGenericClientConstructor(def, 'ServerReflection');
      const c = new Client(addr, grpc.credentials.createInsecure()) as unknown as grpc.Client & { serverReflectionInfo(): grpc.ClientDuplexStream<reflection.ServerReflectionRequest, reflection.ServerReflectionResponse> };
      const call = c.serverReflectionInfo();
      const replies: reflection.ServerReflectionResponse[] = [];
      call.on('data', (r: reflection.ServerReflectionResponse) => replies.push(r));
      call.on('error', () => {});
      const ask = async (req: Parameters<typeof create<typeof reflection.ServerReflectionRequestSchema>>[1]) => {
        const n = replies.length;
        call.write(create(reflection.ServerReflectionRequestSchema, req));
        await until(() => replies.length > n, 'a reflection reply');
        return replies[n] as reflection.ServerReflectionResponse;
      };
      const list = await ask({ messageRequest: { case: 'listServices', value: '' } });
      assert.equal(list.messageResponse.case, 'listServicesResponse');
      const names = list.messageResponse.case === 'listServicesResponse' ? list.messageResponse.value.service.map((s) => s.name) : [];
      assert.deepEqual(names.sort(), ['grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'owrl.v1.Learner']);

      // The file of a method, with every import: enough to build a registry and find the types.
      const files = await ask({ messageRequest: { case: 'fileContainingSymbol', value: 'owrl.v1.Learner.WatchRun' } });
      assert.equal(files.messageResponse.case, 'fileDescriptorResponse');
      const protos = files.messageResponse.case === 'fileDescriptorResponse' ? files.messageResponse.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b)) : [];
      assert.equal(protos[0]?.name, 'owrl/v1/learner.proto');
      const registry = createFileRegistry(protos[0] ?? create(FileDescriptorProtoSchema), (name) => protos.find((p) => p.name === name));
      const svc = registry.getService('owrl.v1.Learner');
      assert.deepEqual(svc?.methods.map((m) => m.name), ['GetRunState', 'WatchRun', 'ListGroups', 'GetTrajectory', 'PauseRun', 'ResumeRun']);
      assert.ok(registry.getMessage('owrl.v1.EpochStat'), 'imports are included (run_state.proto -> trainer.proto)');

      const nested = await ask({ messageRequest: { case: 'fileContainingSymbol', value: 'grpc.health.v1.HealthCheckResponse.ServingStatus' } });
      assert.equal(nested.messageResponse.case, 'fileDescriptorResponse');
      const byName = await ask({ messageRequest: { case: 'fileByFilename', value: 'owrl/v1/trajectory.proto' } });
      assert.equal(byName.messageResponse.case, 'fileDescriptorResponse');
      const missing = await ask({ messageRequest: { case: 'fileContainingSymbol', value: 'owrl.v1.Nope' } });
      assert.equal(missing.messageResponse.case, 'errorResponse');
      if (missing.messageResponse.case === 'errorResponse') {
        assert.equal(missing.messageResponse.value.errorCode, grpc.status.NOT_FOUND);
        assert.match(missing.messageResponse.value.errorMessage, /owrl\.v1\.Nope/);
      }
      call.end();
      c.close();
    }
  } finally {
    await server.close();
  }
});
