// Actor against a real nats-server, real Chromium and onnxruntime-node: pulls rollout requests,
// publishes trajectories before acking, and hot-swaps the policy when the weights pointer moves.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { BrowserPool } from '@owrl/browser-env';
import {
  ActorRegistry,
  connectBus,
  ensureTopology,
  ScreenshotStore,
  taskSubject,
  WeightsPointer,
  type Bus,
} from '@owrl/bus';
import { MemoryMeter, silentLogger } from '@owrl/core';
import { exportOnnx, initialModel, POLICY_KIND } from '@owrl/policy';
import { make, PolicyArtifactSchema, RolloutRequestSchema, TaskSchema, terminationClassName } from '@owrl/proto';
import { startNatsServer, waitUntil, type NatsServer } from '@owrl/testkit';
import { Actor } from '../src/actor.js';
import type { ActorConfig } from '../src/config.js';
import { PolicyHolder } from '../src/policy-holder.js';
import { collectTrajectories, publishAndAckIndex, watchPublishAck, workQueueLeft } from './bus-helpers.js';

let nats: NatsServer;
let bus: Bus;
let site: http.Server;
let siteUrl = '';
const artifacts = new Map<string, Uint8Array>();

before(async () => {
  nats = await startNatsServer({ maxPayload: 8 * 1024 * 1024 });
  bus = await connectBus({ servers: nats.url, name: 'actor-test' });
  await ensureTopology(bus);
  site = http.createServer((req, res) => {
    const art = artifacts.get(req.url ?? '');
    if (art) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(art);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(
      `<!doctype html><title>Fixture</title><ul><li><a href="/a">Blue Mug</a> <span>$12.50</span></li><li><a href="/b">Red Cup</a> <span>$3.00</span></li></ul><form><label>Search <input name=q></label><button>Go</button></form>`,
    );
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  const addr = site.address();
  siteUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

after(async () => {
  await bus?.close();
  await nats?.dispose();
  await new Promise<void>((r) => site.close(() => r()));
});

function publishArtifact(version: number, bias: number): ReturnType<typeof make<typeof PolicyArtifactSchema>> {
  const model = initialModel({ dim: 1024, temperature: 1 });
  model.weights.fill(bias);
  const bytes = exportOnnx(model);
  const path = `/artifacts/v${version}.onnx`;
  artifacts.set(path, bytes);
  return make(PolicyArtifactSchema, {
    version: BigInt(version),
    uri: `${siteUrl}${path}`,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: BigInt(bytes.length),
    kind: POLICY_KIND,
  });
}

/** An actor's configuration for these tests: the fixture site allowed, the settings each test varies. */
function actorConfig(actorId: string, o: { slots: number; policyWaitMs: number; stepScreenshots: boolean }): ActorConfig {
  return {
    actorId,
    ...o,
    allowHosts: [new URL(siteUrl).host],
    chromiumPath: '/usr/bin/chromium',
    // Below the actor bucket's 30 s TTL: the registry must still list the actor at the end of a slow run.
    heartbeatMs: 5_000,
    maxEpisodesPerBrowser: 50,
    maxPayloadBytes: 8 * 1024 * 1024,
    publishRetryMs: 30_000,
    publishBackoffMs: 200,
  };
}

function request(runId: string, sample: number, minPolicyVersion: number) {
  const id = `${runId}/0/0/${sample}/0`;
  return make(RolloutRequestSchema, {
    runId,
    trajectoryId: id,
    sample,
    maxSteps: 3,
    minPolicyVersion: BigInt(minPolicyVersion),
    task: make(TaskSchema, { id: 't', startUrl: `${siteUrl}/`, instruction: 'What is the price of "Blue Mug"?', difficulty: 1 }),
  });
}

void test('the actor runs requests, publishes trajectories before acking, and hot-swaps the policy', { timeout: 180_000 }, async () => {
  const weights = await WeightsPointer.open(bus);
  await weights.put(publishArtifact(0, 0));
  const config = actorConfig('actor-test-1', { slots: 2, policyWaitMs: 30_000, stepScreenshots: true });
  const pool = new BrowserPool({ allowHosts: config.allowHosts });
  await pool.start();
  const policies = new PolicyHolder(silentLogger);
  const registry = await ActorRegistry.open(bus);
  const shots = new ScreenshotStore(bus);
  const actor = new Actor({ config, bus, pool, policies, weights, registry, shots, meter: new MemoryMeter(), logger: silentLogger });
  try {
    await actor.start();
    const order = watchPublishAck(bus, 'runa');
    await bus.nc.flush();
    const requestSeq = new Map<string, number>();
    for (let s = 0; s < 3; s++) {
      const id = `runa/0/0/${s}/0`;
      requestSeq.set(id, (await bus.publish(taskSubject('runa'), RolloutRequestSchema, request('runa', s, 0), { msgId: id })).seq);
    }
    const first = await collectTrajectories(bus, 'runa', 3);
    // Each request is acked only after its trajectory was published (else a crash between the two loses it).
    await order.acked(requestSeq.values());
    order.close();
    for (const [id, seq] of requestSeq) {
      const at = publishAndAckIndex(order.events, id, seq);
      assert.ok(at.published >= 0 && at.acked > at.published, `${id}: published at ${at.published}, acked at ${at.acked} in ${JSON.stringify(order.events)}`);
    }
    assert.deepEqual(first.map((t) => t.trajectoryId).sort(), ['runa/0/0/0/0', 'runa/0/0/1/0', 'runa/0/0/2/0']);
    for (const t of first) {
      assert.equal(t.policyVersion, 0n);
      assert.equal(t.actorId, 'actor-test-1');
      assert.ok(t.steps.length >= 1, 'at least one step');
      // Diagnostics carry the Chromium tree's memory both ways; PSS never exceeds RSS.
      const diag = t.diagnostics;
      assert.ok(diag && diag.chromiumPssBytes > 0n && diag.chromiumPssBytes <= diag.chromiumRssBytes, `pss ${diag?.chromiumPssBytes} rss ${diag?.chromiumRssBytes}`);
      assert.ok(['COMPLETED', 'STEP_BUDGET_EXHAUSTED'].includes(terminationClassName(t.termination?.class)), terminationClassName(t.termination?.class));
      const trace = t.steps[0]?.trace?.kind;
      assert.equal(trace?.case, 'pointer');
      if (trace?.case === 'pointer') assert.ok(trace.value.numCandidates >= 2 && trace.value.offsets.length === trace.value.numCandidates + 1);
      // Every step's screenshot is in the store, referenced (not carried) by the step.
      for (const st of t.steps) {
        const ref = st.screenshot;
        assert.ok(ref && ref.mime === 'image/jpeg' && ref.width > 0 && ref.height > 0, `step ${st.index} has a screenshot ref`);
        const img = await shots.get(ref.sha256);
        assert.ok(img && BigInt(img.bytes.length) === ref.bytes, `step ${st.index} screenshot stored`);
      }
    }
    // A pointer whose bytes do not match its sha256 is refused; the actor keeps its policy.
    const bad = publishArtifact(5, 0.5);
    bad.sha256 = '0'.repeat(64);
    await weights.put(bad);
    // Then a good v1: requests that need v1 wait for the swap and run with it.
    await weights.put(publishArtifact(1, 0.25));
    for (let s = 0; s < 2; s++) await bus.publish(taskSubject('runb'), RolloutRequestSchema, request('runb', s, 1), { msgId: `runb/0/0/${s}/0` });
    const second = await collectTrajectories(bus, 'runb', 2);
    assert.equal(second.length, 2);
    assert.ok(second.every((t) => t.policyVersion === 1n), second.map((t) => t.policyVersion).join(','));
    assert.equal(policies.version, 1);
    assert.equal(policies.swaps, 2);
    // Every request was acked after its trajectory was published: the work queue empties.
    assert.equal(await workQueueLeft(bus), 0);
    const actors = await registry.list();
    assert.ok(actors.some((a) => a.actorId === 'actor-test-1'));
  } finally {
    await actor.stop();
    await policies.close();
    await pool.close();
  }
});

void test('a request whose policy version does not load in time is handed back unrun, with its reason', { timeout: 60_000 }, async () => {
  const weights = await WeightsPointer.open(bus);
  await weights.put(publishArtifact(2, 0));
  const config = actorConfig('actor-test-2', { slots: 1, policyWaitMs: 300, stepScreenshots: false });
  // No browser is started: a handed-back request never reaches one.
  const pool = new BrowserPool({ allowHosts: config.allowHosts });
  const policies = new PolicyHolder(silentLogger);
  const registry = await ActorRegistry.open(bus);
  const actor = new Actor({ config, bus, pool, policies, weights, registry, meter: new MemoryMeter(), logger: silentLogger });
  try {
    await actor.start();
    await bus.publish(taskSubject('runc'), RolloutRequestSchema, request('runc', 0, 7), { msgId: 'runc/0/0/0/0' });
    const [t] = await collectTrajectories(bus, 'runc', 1);
    assert.equal(t?.termination?.reason, 'policy_behind');
    assert.equal(terminationClassName(t?.termination?.class), 'INIT_ERROR');
    assert.equal(t?.policyVersion, 2n, 'it names the version the actor had');
    assert.equal(t?.steps.length, 0, 'nothing was run');
    assert.match(t?.termination?.message ?? '', /version 7 required/);
    assert.equal(await workQueueLeft(bus), 0);
  } finally {
    await actor.stop();
    await policies.close();
    await pool.close();
  }
});

void test('an actor stopped while a request waits for a newer policy hands it back at once instead of holding its drain', { timeout: 60_000 }, async () => {
  const weights = await WeightsPointer.open(bus);
  await weights.put(publishArtifact(3, 0));
  // A policy wait far longer than the test: the drain must not wait for it.
  const config = actorConfig('actor-test-3', { slots: 1, policyWaitMs: 45_000, stepScreenshots: false });
  const pool = new BrowserPool({ allowHosts: config.allowHosts });
  const policies = new PolicyHolder(silentLogger);
  const registry = await ActorRegistry.open(bus);
  const meter = new MemoryMeter();
  const actor = new Actor({ config, bus, pool, policies, weights, registry, meter, logger: silentLogger });
  try {
    await actor.start();
    await bus.publish(taskSubject('rund'), RolloutRequestSchema, request('rund', 0, 9), { msgId: 'rund/0/0/0/0' });
    // The request is held: its slot is busy while the actor waits for version 9.
    await waitUntil('the request to be waiting for its policy', () => (meter.value('owrl_actor_busy_slots') === 1 ? true : undefined), { timeoutMs: 20_000, intervalMs: 20 });
    const stopAt = Date.now();
    await actor.stop();
    const stopMs = Date.now() - stopAt;
    assert.ok(stopMs < config.policyWaitMs / 3, `stop() took ${stopMs} ms; the policy wait is ${config.policyWaitMs} ms`);
    const [t] = await collectTrajectories(bus, 'rund', 1);
    assert.equal(t?.termination?.reason, 'policy_behind');
    assert.equal(t?.steps.length, 0, 'nothing was run');
    assert.match(t?.termination?.message ?? '', /version 9 required; this actor runs 3 and is stopping/);
    assert.equal(await workQueueLeft(bus), 0, 'the request was settled (acked after its answer), not left for a redelivery');
  } finally {
    await actor.stop();
    await policies.close();
    await pool.close();
  }
});
