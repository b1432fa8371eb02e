// The actor's publish path against a real nats-server and a real ONNX policy, with an episode
// runner that counts its episodes in place of the browser pool (the browser is not what is under
// test here; actor.test.ts runs Chromium): a refused or broker-less publish is retried without
// re-running the episode, slot counters return to 0 on every error path, and a trajectory always
// fits the payload limit (trimmed with a note, or a clear trajectory_too_large failure) while the
// actor keeps serving.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { EpisodeResult, EpisodeSpec } from '@owrl/browser-env';
import { DiscardPolicy } from '@nats-io/jetstream';
import { ActorRegistry, connectBus, ensureTopology, STREAM_TRAJ, taskSubject, trajSubject, WeightsPointer, type Bus } from '@owrl/bus';
import { MemoryMeter, silentLogger } from '@owrl/core';
import { exportOnnx, initialModel, POLICY_KIND } from '@owrl/policy';
import { make, PolicyArtifactSchema, PolicyTraceSchema, PointerTraceSchema, RolloutRequestSchema, sealTrace, StepSchema, TaskSchema, TrajectorySchema, terminationClassName, encode, type PolicyTrace } from '@owrl/proto';
import { startNatsServer, type NatsServer } from '@owrl/testkit';
import { Actor, type EpisodeRunner } from '../src/actor.js';
import type { ActorConfig } from '../src/config.js';
import { PolicyHolder } from '../src/policy-holder.js';
import { fitPayload } from '../src/trajectory-builder.js';
import { collectTrajectories, workQueueLeft } from './bus-helpers.js';

let nats: NatsServer;
let bus: Bus;
let site: http.Server;
let siteUrl = '';
let artifact: Uint8Array;

before(async () => {
  nats = await startNatsServer({ maxPayload: 4 * 1024 * 1024 });
  bus = await connectBus({ servers: nats.url, name: 'actor-publish-test', reconnectTimeWaitMs: 100 });
  await ensureTopology(bus);
  artifact = exportOnnx(initialModel({ dim: 256, temperature: 1 }));
  site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(artifact));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  const addr = site.address();
  siteUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const weights = await WeightsPointer.open(bus);
  await weights.put(
    make(PolicyArtifactSchema, { version: 0n, uri: `${siteUrl}/v0.onnx`, sha256: createHash('sha256').update(artifact).digest('hex'), bytes: BigInt(artifact.length), kind: POLICY_KIND }),
  );
});

after(async () => {
  await bus?.close();
  await nats?.dispose();
  await new Promise<void>((r) => site.close(() => r()));
});

/** An episode runner standing in for the browser pool: counts episodes per start URL and returns `make(spec)`, or throws. */
class CountingRunner implements EpisodeRunner {
  readonly runs = new Map<string, number>();
  onRun: ((spec: EpisodeSpec) => Promise<void> | void) | null = null;
  constructor(private readonly result: (spec: EpisodeSpec) => EpisodeResult<PolicyTrace>) {}
  async runEpisode<T>(spec: EpisodeSpec): Promise<EpisodeResult<T>> {
    this.runs.set(spec.startUrl, (this.runs.get(spec.startUrl) ?? 0) + 1);
    await this.onRun?.(spec);
    return this.result(spec) as unknown as EpisodeResult<T>;
  }
}

function result(o: { screenshotBytes?: number; steps?: number; argBytes?: number; throws?: boolean } = {}): (spec: EpisodeSpec) => EpisodeResult<PolicyTrace> {
  return (spec) => {
    if (o.throws) throw new Error(`runner failed on ${spec.startUrl}`);
    const timing = { policyMs: 3, actionMs: 20, settleMs: 50, observeMs: 10 };
    return {
      steps: Array.from({ length: o.steps ?? 1 }, (_, i) => ({
        index: i,
        reasoning: 'r'.repeat(5000),
        results: [{ call: { name: 'write', args: { message: 'x'.repeat(o.argBytes ?? 10) } }, ok: true, effects: [{ kind: 'value_set', line: 'value set', evidence: { value: 'y'.repeat(3000) } }], latencyMs: 5, errorCode: '' }],
        urlBefore: spec.startUrl,
        urlAfter: spec.startUrl,
        trace: undefined,
        raw: 'w'.repeat(5000),
        parseError: false,
        timing,
      })),
      termination: { cls: 'COMPLETED', reason: 'done', message: '' },
      finalAnswer: 'ok',
      calledDone: true,
      finalUrl: spec.startUrl,
      pageEval: { evaluated: false, truthy: false, valueJson: '', error: '' },
      ...(o.screenshotBytes ? { finalScreenshot: new Uint8Array(o.screenshotBytes).fill(7) } : {}),
      diagnostics: {
        latencyTotal: timing,
        chromiumPssBytes: 1,
        chromiumRssBytes: 1,
        browserUptimeS: 1,
        browserEpisodes: 1,
        initAttempts: 1,
        httpStatus: 200,
        finalUrl: spec.startUrl,
        errorName: '',
        errorMessage: '',
        errorStack: '',
        wallMs: 100,
        blocked: [],
        blockedTotal: 0,
      },
    } as EpisodeResult<PolicyTrace>;
  };
}

function config(over: Partial<ActorConfig> = {}): ActorConfig {
  return {
    actorId: 'actor-publish-1',
    slots: 2,
    allowHosts: [],
    chromiumPath: '/usr/bin/chromium',
    policyWaitMs: 20_000,
    heartbeatMs: 60_000,
    maxEpisodesPerBrowser: 50,
    stepScreenshots: false,
    maxPayloadBytes: 4 * 1024 * 1024,
    publishRetryMs: 60_000,
    publishBackoffMs: 100,
    ...over,
  };
}

async function withActor(runner: EpisodeRunner, cfg: ActorConfig, body: (actor: Actor, meter: MemoryMeter) => Promise<void>): Promise<void> {
  const policies = new PolicyHolder(silentLogger);
  const meter = new MemoryMeter();
  const actor = new Actor({ config: cfg, bus, pool: runner, policies, weights: await WeightsPointer.open(bus), registry: await ActorRegistry.open(bus), meter, logger: silentLogger });
  try {
    await actor.start();
    await body(actor, meter);
  } finally {
    await actor.stop();
    await policies.close();
  }
}

async function send(runId: string, samples: number): Promise<void> {
  for (let s = 0; s < samples; s++) {
    const id = `${runId}/0/0/${s}/0`;
    const req = make(RolloutRequestSchema, { runId, trajectoryId: id, sample: s, maxSteps: 3, task: make(TaskSchema, { id: `t${s}`, startUrl: `https://${runId}.test/${s}`, instruction: 'x', difficulty: 1 }) });
    await bus.publish(taskSubject(runId), RolloutRequestSchema, req, { msgId: id });
  }
}

async function until(what: string, probe: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !(await probe()); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

/** Makes OWRL_TRAJ refuse every new message (discard new at its current count), or lifts that. */
async function trajStreamFull(full: boolean): Promise<void> {
  const info = await bus.jsm.streams.info(STREAM_TRAJ);
  if (full) {
    // A filler so the limit is >= 1 (0 would mean no limit).
    await bus.publish(trajSubject('filler'), TrajectorySchema, make(TrajectorySchema, { trajectoryId: `filler-${Date.now()}` }), { msgId: `filler-${Date.now()}` });
    const n = (await bus.jsm.streams.info(STREAM_TRAJ)).state.messages;
    await bus.jsm.streams.update(STREAM_TRAJ, { ...info.config, discard: DiscardPolicy.New, max_msgs: n });
  } else {
    await bus.jsm.streams.update(STREAM_TRAJ, { ...info.config, max_msgs: -1 });
  }
}

void test('a publish refused by a full stream is retried with backoff; the episode runs once', { timeout: 60_000 }, async () => {
  const runner = new CountingRunner(result());
  await trajStreamFull(true);
  let lifted = false;
  try {
    await withActor(runner, config(), async (actor, meter) => {
      await send('full', 2);
      await until('publish retries', () => meter.total('owrl_actor_publish_retries_total') >= 2);
      assert.equal(actor.busySlots, 2, 'both slots hold their finished episode while the publish is retried');
      await trajStreamFull(false);
      lifted = true;
      const got = await collectTrajectories(bus, 'full', 2);
      assert.deepEqual(got.map((t) => t.trajectoryId).sort(), ['full/0/0/0/0', 'full/0/0/1/0']);
      assert.deepEqual([...runner.runs.values()], [1, 1], 'each episode ran exactly once');
      assert.equal(await workQueueLeft(bus), 0);
      await until('slots freed', () => actor.busySlots === 0);
      assert.equal(meter.value('owrl_actor_publish_retries_total', { code: 'BUS_PUBLISH_REFUSED' }) >= 2, true);
      assert.equal(meter.total('owrl_actor_publish_failures_total'), 0);
      assert.equal(meter.value('owrl_actor_busy_slots'), 0);
      // Step latency by phase is recorded from the published steps.
      assert.deepEqual(meter.observations('owrl_actor_step_phase_seconds', { phase: 'settle' }), [0.05, 0.05]);
    });
  } finally {
    if (!lifted) await trajStreamFull(false);
  }
});

void test('a broker restart between the episode and its publish: retried, not re-run', { timeout: 60_000 }, async () => {
  const runner = new CountingRunner(result());
  runner.onRun = async () => {
    runner.onRun = null;
    await nats.stop(true);
    setTimeout(() => void nats.restart(), 1500); // the outage's length (the fault), not a wait for an event
  };
  await withActor(runner, config({ slots: 1 }), async (actor) => {
    await send('restart', 1);
    const got = await collectTrajectories(bus, 'restart', 1, 40_000);
    assert.equal(got[0]?.trajectoryId, 'restart/0/0/0/0');
    assert.equal(runner.runs.get('https://restart.test/0'), 1, 'the episode ran once');
    await until('the ack to land', async () => (await workQueueLeft(bus, 0)) === 0);
    await until('slots freed', () => actor.busySlots === 0);
  });
});

void test('slot counters return to 0 when the episode throws and when the publish fails for good; the request comes back', { timeout: 60_000 }, async () => {
  const throwing = new CountingRunner(result({ throws: true }));
  await withActor(throwing, config(), async (actor, meter) => {
    await send('throws', 1);
    const [t] = await collectTrajectories(bus, 'throws', 1);
    assert.deepEqual([terminationClassName(t?.termination?.class), t?.termination?.reason], ['SANDBOX_ERROR', 'actor_error']);
    await until('slots freed', () => actor.busySlots === 0);
    assert.equal(meter.value('owrl_actor_busy_slots'), 0);
  });
  const runner = new CountingRunner(result());
  await trajStreamFull(true);
  let lifted = false;
  try {
    await withActor(runner, config({ publishRetryMs: 300 }), async (actor, meter) => {
      await send('giveup', 1);
      await until('the publish to be given up', () => meter.total('owrl_actor_publish_failures_total') >= 1);
      await until('slots freed after the failure', () => actor.busySlots === 0);
      assert.equal(actor.episodesServed, 0);
      await trajStreamFull(false);
      lifted = true;
      // The request was naked, not lost: it is redelivered (the episode runs again: the last resort).
      const [t] = await collectTrajectories(bus, 'giveup', 1, 30_000);
      assert.equal(t?.trajectoryId, 'giveup/0/0/0/0');
      assert.equal(runner.runs.get('https://giveup.test/0'), 2);
      await until('slots freed', () => actor.busySlots === 0);
      assert.equal(await workQueueLeft(bus), 0);
    });
  } finally {
    if (!lifted) await trajStreamFull(false);
  }
});

void test('a trajectory always fits the payload limit: trimmed with a note, or a clear trajectory_too_large; the actor keeps serving', { timeout: 60_000 }, async () => {
  // 64 KiB limit: a 200 KB screenshot and long step text are left out, with notes in `trimmed`.
  const big = new CountingRunner(result({ screenshotBytes: 200_000, steps: 8 }));
  await withActor(big, config({ maxPayloadBytes: 64 * 1024 }), async (actor, meter) => {
    await send('trim', 1);
    const [t] = await collectTrajectories(bus, 'trim', 1);
    assert.ok(t);
    const bytes = encode(TrajectorySchema, t).length;
    assert.ok(bytes <= actor.payloadLimit(), `${bytes} bytes under ${actor.payloadLimit()}`);
    assert.equal(t.finalScreenshot.length, 0);
    assert.ok(t.trimmed.includes('final_screenshot'), t.trimmed.join(','));
    assert.equal(t.steps.length, 8, 'no step is dropped');
    assert.equal(terminationClassName(t.termination?.class), 'COMPLETED');
    assert.equal(meter.total('owrl_actor_trajectories_trimmed_total'), 1);
  });
  // Tool-call arguments cannot be cut: 40 steps of 4 KB arguments do not fit 64 KiB.
  const huge = new CountingRunner(result({ steps: 40, argBytes: 4000 }));
  await withActor(huge, config({ maxPayloadBytes: 64 * 1024, slots: 1 }), async (actor, meter) => {
    await send('huge', 2);
    const got = await collectTrajectories(bus, 'huge', 2);
    for (const t of got) {
      assert.deepEqual([terminationClassName(t.termination?.class), t.termination?.reason], ['SANDBOX_ERROR', 'trajectory_too_large']);
      assert.match(t.termination?.message ?? '', /bytes after trimming .* over the payload limit of \d+ bytes; 40 steps left out/);
      assert.deepEqual(t.trimmed, ['steps']);
    }
    assert.equal(meter.total('owrl_actor_trajectories_too_large_total'), 2);
    await until('both served (the actor keeps consuming)', () => actor.episodesServed === 2);
    assert.equal(await workQueueLeft(bus), 0);
  });
});

void test('fitPayload leaves out parts in order and names each', () => {
  const t = make(TrajectorySchema, { trajectoryId: 'r/0/0/0/0', finalScreenshot: new Uint8Array(10_000) });
  const fit = fitPayload(t, 5000);
  assert.deepEqual([fit.fits, fit.trimmed, t.trimmed], [true, ['final_screenshot'], ['final_screenshot']]);
  // The bytes it hands back are those of the trajectory as trimmed (what the actor publishes).
  assert.deepEqual(fit.data, encode(TrajectorySchema, t));
  assert.equal(fit.bytes, fit.data.length);
  const small = make(TrajectorySchema, { trajectoryId: 'r/0/0/0/1' });
  assert.deepEqual(fitPayload(small, 5000), { bytes: encode(TrajectorySchema, small).length, trimmed: [], fits: true, data: encode(TrajectorySchema, small) });
  assert.equal(fitPayload(make(TrajectorySchema, { trajectoryId: 'x'.repeat(3000) }), 1000).fits, false);
});

void test('fitPayload leaves candidate labels out of new traces: a trace shared by steps (sealed, as the synthetic pool is) is left whole', () => {
  const labels = Array.from({ length: 40 }, (_, i) => `candidate label ${i} `.repeat(8));
  const shared = sealTrace(make(PolicyTraceSchema, { kind: { case: 'pointer', value: make(PointerTraceSchema, { numCandidates: 40, offsets: [0, 1], featureIndex: [3], featureValue: [0.25], chosen: 7, logprob: -1.5, temperature: 1, candidateLabels: labels }) } }));
  const before = encode(PolicyTraceSchema, shared);
  const t = make(TrajectorySchema, { trajectoryId: 'r/0/0/0/2', steps: [0, 1, 2].map((index) => make(StepSchema, { index, trace: shared })) });
  const fit = fitPayload(t, 10_000);
  assert.deepEqual([fit.fits, fit.trimmed], [true, ['candidate_labels']]);
  assert.deepEqual(fit.data, encode(TrajectorySchema, t));
  for (const s of t.steps) {
    assert.notEqual(s.trace, shared);
    assert.equal(s.trace?.kind.case, 'pointer');
    const p = s.trace?.kind.value as { candidateLabels: string[]; chosen: number; featureValue: number[] };
    assert.deepEqual([p.candidateLabels, p.chosen, p.featureValue], [[], 7, [0.25]], 'only the labels are left out');
  }
  assert.deepEqual(encode(PolicyTraceSchema, shared), before, 'the shared trace keeps its labels');
});
