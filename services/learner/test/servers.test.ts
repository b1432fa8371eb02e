import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { GetRunStateRequestSchema, GetTrajectoryRequestSchema, grpcServiceDefinition, health, Learner, make, ListGroupsResponseSchema, PauseRunRequestSchema, RunPhase, type RunState } from '@owrl/proto';
import { silentLogger } from '@owrl/core';
import { ArtifactServer } from '../src/artifact-server.js';
import { LearnerGrpcServer, type LearnerControl } from '../src/grpc-server.js';
import { RunStateStore } from '../src/run-state-store.js';

void test('artifacts are served whole and by byte range with their sha256', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-art-'));
  const srv = new ArtifactServer(dir, { port: 0, host: '127.0.0.1' });
  await srv.start();
  try {
    const bytes = new Uint8Array(1000).map((_, i) => i % 251);
    const a = srv.put(3, bytes);
    assert.match(a.uri, /\/artifacts\/policy-v3\.onnx$/);
    assert.match(a.sha256, /^[0-9a-f]{64}$/);
    const whole = new Uint8Array(await (await fetch(a.uri)).arrayBuffer());
    assert.deepEqual(whole, bytes);
    const part = await fetch(a.uri, { headers: { range: 'bytes=10-19' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), 'bytes 10-19/1000');
    assert.deepEqual(new Uint8Array(await part.arrayBuffer()), bytes.slice(10, 20));
    assert.equal((await fetch(a.uri, { headers: { range: 'bytes=5000-' } })).status, 416);
    assert.equal((await fetch(a.uri.replace('v3', 'v4'))).status, 404);
  } finally {
    await srv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('only the latest artifacts stay on disk (keep N); older versions are gone over HTTP too', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-art-'));
  const srv = new ArtifactServer(dir, { port: 0, host: '127.0.0.1', keep: 3 });
  await srv.start();
  try {
    const arts = Array.from({ length: 10 }, (_, v) => srv.put(v, new Uint8Array(64).fill(v)));
    assert.deepEqual(fs.readdirSync(dir).sort(), ['policy-v7.onnx', 'policy-v8.onnx', 'policy-v9.onnx']);
    assert.equal((await fetch(arts[9]?.uri ?? '')).status, 200);
    assert.equal((await fetch(arts[7]?.uri ?? '')).status, 200);
    assert.equal((await fetch(arts[6]?.uri ?? '')).status, 404);
    // A restarted learner republishing an older version keeps what is newer.
    srv.put(8, new Uint8Array(64));
    assert.deepEqual(fs.readdirSync(dir).sort(), ['policy-v7.onnx', 'policy-v8.onnx', 'policy-v9.onnx']);
    assert.throws(() => new ArtifactServer(dir, { port: 0, host: '127.0.0.1', keep: -1 }), /keep is -1/);
  } finally {
    await srv.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

type Cb<T> = (e: grpc.ServiceError | null, r: T) => void;

void test('gRPC: GetRunState over a socket, health, and control calls need the token', async () => {
  const store = new RunStateStore('run-x', 10, 'sync');
  let paused = '';
  const control: LearnerControl = {
    listGroups: () => make(ListGroupsResponseSchema, {}),
    getTrajectory: () => undefined,
    pause: (r) => {
      paused = r;
    },
    resume: () => {},
  };
  const server = new LearnerGrpcServer(store, control, { port: 0, host: '127.0.0.1', controlToken: 's3cret', logger: silentLogger });
  const port = await server.start();
  const Client = grpc.makeGenericClientConstructor(grpcServiceDefinition(Learner) as unknown as grpc.ServiceDefinition, 'Learner');
  const HealthClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(health.Health) as unknown as grpc.ServiceDefinition, 'Health');
  const c = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as Record<string, (req: unknown, md: grpc.Metadata, cb: Cb<unknown>) => void>;
  const h = new HealthClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as Record<string, (req: unknown, cb: Cb<health.HealthCheckResponse>) => void>;
  const call = <T>(m: string, req: unknown, md = new grpc.Metadata()) =>
    new Promise<T>((resolve, reject) => c[m]!.call(c, req, md, (e, r) => (e ? reject(e) : resolve(r as T))));
  try {
    store.change('round', (s) => {
      s.round = 4n;
      s.phase = RunPhase.RUNNING;
    });
    const s = await call<RunState>('getRunState', make(GetRunStateRequestSchema, {}));
    assert.equal(s.runId, 'run-x');
    assert.equal(s.round, 4n);
    assert.equal(s.resourceVersion, 1n);

    const status = () => new Promise<number>((resolve, reject) => h['check']!.call(h, make(health.HealthCheckRequestSchema, { service: '' }), (e, r) => (e ? reject(e) : resolve(r.status))));
    assert.equal(await status(), health.HealthCheckResponse_ServingStatus.NOT_SERVING);
    server.setServing(true);
    assert.equal(await status(), health.HealthCheckResponse_ServingStatus.SERVING);

    await assert.rejects(call('pauseRun', make(PauseRunRequestSchema, { reason: 'x' })), (e: grpc.ServiceError) => e.code === grpc.status.UNAUTHENTICATED);
    const md = new grpc.Metadata();
    md.set('authorization', 'Bearer s3cret');
    await call('pauseRun', make(PauseRunRequestSchema, { reason: 'maintenance' }), md);
    assert.equal(paused, 'maintenance');
    await assert.rejects(call('getTrajectory', make(GetTrajectoryRequestSchema, { trajectoryId: 'nope' })), (e: grpc.ServiceError) => e.code === grpc.status.NOT_FOUND && /"nope"/.test(e.details));
  } finally {
    (c as unknown as grpc.Client).close();
    (h as unknown as grpc.Client).close();
    await server.close();
  }
});
