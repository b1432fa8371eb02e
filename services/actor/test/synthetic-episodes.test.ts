// Synthetic episodes (OWRL_SYNTHETIC=1): the episode-time model has the long-tailed shape and the
// numbers docs/sizing.md states (worked out by hand from the lognormal), and a synthetic actor —
// the real Actor with SyntheticEpisodes as its runner, on a real nats-server — publishes
// trajectories that decode under the wire schema, carry realistic bulk, and that the judge's
// verifier path scores as the plan says (right answer → 1, wrong answer or no done() → 0,
// site failure → excluded).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { ActorRegistry, connectBus, ensureTopology, ScreenshotStore, STREAM_SHOTS, taskSubject, WeightsPointer, type Bus } from '@owrl/bus';
import { MemoryMeter, mulberry32, silentLogger } from '@owrl/core';
import { createVerifiers, judgeTrajectory } from '@owrl/judge-core';
import { DEFAULT_DIM, exportOnnx, initialModel, POLICY_KIND } from '@owrl/policy';
import { decode, encode, make, PolicyArtifactSchema, RolloutRequestSchema, TaskSchema, TerminationClass, TrajectorySchema, VerifierSchema, AnswerMatchSchema, type RolloutRequest } from '@owrl/proto';
import { startNatsServer, type NatsServer } from '@owrl/testkit';
import { Actor } from '../src/actor.js';
import type { ActorConfig } from '../src/config.js';
import { PolicyHolder } from '../src/policy-holder.js';
import { planEpisode, residualWaitS, SYNTHETIC_DEFAULTS, SyntheticEpisodes, taskSuccessRate } from '../src/synthetic-episodes.js';
import { collectTrajectories } from './bus-helpers.js';

function request(i: number, maxSteps: number, runId = 'syn'): RolloutRequest {
  const id = `${runId}/0/${Math.floor(i / 5)}/${i % 5}/0`;
  return make(RolloutRequestSchema, {
    runId,
    trajectoryId: id,
    group: Math.floor(i / 5),
    sample: i % 5,
    maxSteps,
    seed: BigInt(1000 + i * 7919),
    temperature: 1,
    task: make(TaskSchema, {
      id: `task-${Math.floor(i / 5)}`,
      startUrl: `https://shop.example/${i}`,
      instruction: 'find the price',
      difficulty: 2,
      verifier: make(VerifierSchema, { kind: { case: 'answer', value: make(AnswerMatchSchema, { accepted: ['$12.50'], normalize: true }) } }),
    }),
  });
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

void test('episode times: lognormal per-step time × uniform step count, long-tailed, capped at the task timeout', () => {
  const n = 6000;
  const plans = Array.from({ length: n }, (_, i) => planEpisode(request(i, 15), { ...SYNTHETIC_DEFAULTS, envErrorRate: 0 }));
  const real = plans.map((p) => p.realS);
  // By hand: ln(realS) = ln(steps) + ln(5) + 0.6 Z with steps uniform on 5..15 (step-budget
  // failures take all 15): the median is about e^(ln 11 + ln 5) ≈ 55 s; the 99th percentile
  // about 15 × 5 × e^(0.6 × 2.33) ≈ 300 s, so p99 / median ≈ 5.
  const p50 = quantile(real, 0.5);
  const p99 = quantile(real, 0.99);
  assert.ok(p50 > 42 && p50 < 68, `median ${p50.toFixed(1)} s`);
  assert.ok(p99 / p50 > 3 && p99 / p50 < 8, `p99/p50 ${(p99 / p50).toFixed(2)}`);
  assert.ok(Math.max(...real) <= 600, 'capped at the task timeout');
  // Mean above median: right-skewed.
  assert.ok(real.reduce((a, b) => a + b, 0) / n > p50 * 1.1);
  for (const p of plans) {
    assert.ok(p.steps >= 1 && p.steps <= 15, `steps ${p.steps}`);
    assert.equal(p.waitS, p.realS);
  }
  // Outcomes: successes follow the tasks' rates (mean 0.5 over many tasks), failures split between wrong answers and budgets.
  const share = (o: string) => plans.filter((p) => p.outcome === o).length / n;
  assert.ok(share('success') > 0.4 && share('success') < 0.6, `success ${share('success')}`);
  assert.ok(share('step_budget') > 0.15 && share('wrong_answer') > 0.15);
  // Time compression divides the wait only.
  const fast = planEpisode(request(3, 30), { ...SYNTHETIC_DEFAULTS, speedup: 20 });
  const slow = planEpisode(request(3, 30), SYNTHETIC_DEFAULTS);
  assert.equal(fast.realS, slow.realS);
  assert.ok(Math.abs(fast.waitS - slow.realS / 20) < 1e-9);
  // Site failures at the configured rate.
  const env = Array.from({ length: 4000 }, (_, i) => planEpisode(request(i, 30), { ...SYNTHETIC_DEFAULTS, envErrorRate: 0.1 })).filter((p) => p.outcome === 'env_error').length;
  assert.ok(env > 300 && env < 500, `env errors ${env} of 4000 at 10 %`);
});

void test('a staggered start: the residual of an episode under way has the renewal mean E[D²] / 2E[D], not E[D] / 2', () => {
  const o = { ...SYNTHETIC_DEFAULTS, speedup: 0.25 };
  const real = Array.from({ length: 20_000 }, (_, i) => planEpisode(request(i, 15), o).realS);
  const m1 = real.reduce((a, b) => a + b, 0) / real.length;
  const m2 = real.reduce((a, b) => a + b * b, 0) / real.length;
  const rng = mulberry32(42);
  const res = Array.from({ length: 4000 }, (_, i) => residualWaitS(request(i, 15), o, rng));
  const mean = res.reduce((a, b) => a + b, 0) / res.length;
  // As run: divided by the speedup (0.25 dilates 4×). Long tail: E[D²] / 2E[D] is well above E[D] / 2.
  const want = m2 / (2 * m1) / o.speedup;
  assert.ok(want > (1.2 * m1) / 2 / o.speedup, 'the model is long-tailed enough to tell the two apart');
  assert.ok(Math.abs(mean - want) / want < 0.06, `residual mean ${mean.toFixed(1)} s, renewal mean ${want.toFixed(1)} s`);
  assert.ok(Math.min(...res) >= 0 && Math.max(...res) <= o.taskTimeoutS / o.speedup);
  assert.throws(() => new SyntheticEpisodes({ staggerFirst: -1 }), /staggerFirst=-1/);
});

void test('task success rates spread over [0.1, 0.9], so most groups are mixed', () => {
  const rates = Array.from({ length: 500 }, (_, i) => taskSuccessRate(`shop/price/${i}`));
  assert.ok(Math.min(...rates) >= 0.1 && Math.max(...rates) <= 0.9);
  assert.ok(quantile(rates, 0.1) < 0.3 && quantile(rates, 0.9) > 0.7);
});

void test('bad options are refused naming the option', () => {
  assert.throws(() => new SyntheticEpisodes({ speedup: 0 }), /speedup=0/);
  assert.throws(() => new SyntheticEpisodes({ envErrorRate: 2 }), /envErrorRate=2/);
  assert.throws(() => new SyntheticEpisodes({ minSteps: 0 }), /minSteps=0/);
});

void test('an episode compressed below 1 ms a step waits once, and still runs every step and its hook', async () => {
  const syn = new SyntheticEpisodes({ speedup: 1e6, shotBytes: 0 });
  const req = request(7, 15);
  const plan = planEpisode(req, syn.options);
  assert.ok((plan.waitS * 1000) / plan.steps < 1, 'compressed below the timers resolution');
  const hooked: number[] = [];
  const r = await syn.runEpisode(
    { startUrl: req.task?.startUrl ?? '', instruction: '', maxSteps: 15, finalScreenshot: false, stepScreenshots: false },
    { needsScreenshot: false, decide: () => Promise.reject(new Error('a synthetic episode asks no policy')) },
    { onStep: (s) => void hooked.push(s.index) },
    req,
  );
  assert.equal(r.steps.length, plan.steps);
  assert.deepEqual(hooked, Array.from({ length: plan.steps }, (_, i) => i));
});

let nats: NatsServer;
let bus: Bus;
let site: http.Server;

before(async () => {
  nats = await startNatsServer({ maxPayload: 4 * 1024 * 1024 });
  bus = await connectBus({ servers: nats.url, name: 'actor-synthetic-test' });
  await ensureTopology(bus);
  const artifact = exportOnnx(initialModel({ dim: 256, temperature: 1 }));
  site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(artifact));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  const addr = site.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/v0.onnx`;
  const weights = await WeightsPointer.open(bus);
  await weights.put(make(PolicyArtifactSchema, { version: 0n, uri: url, sha256: createHash('sha256').update(artifact).digest('hex'), bytes: BigInt(artifact.length), kind: POLICY_KIND }));
});

after(async () => {
  await bus?.close();
  await nats?.dispose();
  await new Promise<void>((r) => site.close(() => r()));
});

void test('a synthetic actor serves real rollout requests; the judge verifier scores its trajectories as planned', { timeout: 60_000 }, async () => {
  const n = 40;
  const maxSteps = 15;
  // 5 s per step × up to 15 steps compressed 2000× keeps the test under a second per episode.
  const opts = { ...SYNTHETIC_DEFAULTS, speedup: 2000, shotBytes: 8 * 1024, envErrorRate: 0.1 };
  const config: ActorConfig = {
    actorId: 'synthetic-1',
    slots: 50,
    allowHosts: [],
    chromiumPath: '/nonexistent',
    policyWaitMs: 20_000,
    heartbeatMs: 60_000,
    maxEpisodesPerBrowser: 50,
    stepScreenshots: true,
    maxPayloadBytes: 4 * 1024 * 1024,
    publishRetryMs: 30_000,
    publishBackoffMs: 100,
    synthetic: opts,
  };
  const policies = new PolicyHolder(silentLogger);
  const registry = await ActorRegistry.open(bus);
  const actor = new Actor({ config, bus, pool: new SyntheticEpisodes(opts), policies, weights: await WeightsPointer.open(bus), registry, shots: new ScreenshotStore(bus), meter: new MemoryMeter(), logger: silentLogger });
  try {
    await actor.start();
    // Registered with its slots, as the learner's dispatch reads them.
    const rec = (await registry.list()).find((a) => a.actorId === 'synthetic-1');
    assert.equal(rec?.slots, 50);
    const reqs = Array.from({ length: n }, (_, i) => request(i, maxSteps));
    for (const r of reqs) await bus.publish(taskSubject('syn'), RolloutRequestSchema, r, { msgId: r.trajectoryId });
    const got = await collectTrajectories(bus, 'syn', n, 30_000);
    assert.equal(new Set(got.map((t) => t.trajectoryId)).size, n, 'one trajectory per request');
    const verifiers = createVerifiers();
    const seen = { scored1: 0, scored0: 0, excluded: 0 };
    for (const t of got) {
      const req = reqs.find((r) => r.trajectoryId === t.trajectoryId);
      assert.ok(req, t.trajectoryId);
      const plan = planEpisode(req, opts);
      // Wire schema: a decoded trajectory re-encodes to the same bytes.
      const bytes = encode(TrajectorySchema, t);
      assert.deepEqual(encode(TrajectorySchema, decode(TrajectorySchema, bytes)), bytes);
      assert.equal(t.steps.length, plan.steps, `${t.trajectoryId} steps`);
      assert.equal(t.request?.task?.id, req.task?.id);
      assert.equal(t.policyVersion, 0n);
      for (const s of t.steps) {
        assert.equal(s.trace?.kind.case, 'pointer');
        const p = s.trace?.kind.case === 'pointer' ? s.trace.kind.value : undefined;
        assert.ok(p && p.offsets.length === p.numCandidates + 1 && p.chosen < p.numCandidates && p.featureIndex.every((f) => f < DEFAULT_DIM));
        assert.equal(s.screenshot?.mime, 'image/jpeg', 'each step screenshot went to the store by reference');
        assert.equal(s.screenshot?.bytes, 8192n);
      }
      // Realistic bulk without inline pictures: a few KiB of text, calls and features per step.
      assert.ok(bytes.length > t.steps.length * 2000 && bytes.length < t.steps.length * 20_000, `${bytes.length} bytes for ${t.steps.length} steps`);
      const outcome = await judgeTrajectory(t, { verifiers, judgeVersion: 'test', timeoutMs: 5000 });
      if (plan.outcome === 'env_error' || plan.outcome === 'task_timeout') {
        assert.equal(t.termination?.class, TerminationClass.ENV_ERROR);
        assert.equal(outcome.kind, 'excluded');
        seen.excluded++;
      } else {
        assert.equal(outcome.kind, 'scored', `${t.trajectoryId}: ${JSON.stringify(outcome)}`);
        const reward = outcome.kind === 'scored' ? outcome.verdict.reward : -1;
        assert.equal(reward, plan.outcome === 'success' ? 1 : 0, `${t.trajectoryId} planned ${plan.outcome}`);
        if (reward === 1) seen.scored1++;
        else seen.scored0++;
      }
    }
    assert.ok(seen.scored1 > 0 && seen.scored0 > 0, `both rewards occur: ${JSON.stringify(seen)}`);
    const shots = (await bus.jsm.streams.info(STREAM_SHOTS)).state.messages;
    assert.equal(shots, got.reduce((a, t) => a + t.steps.length, 0), 'every step screenshot is stored, none deduplicated away');
  } finally {
    await actor.stop();
    await policies.close();
  }
});
