// JudgeService against a real nats-server and the real bus: trajectories in OWRL_TRAJ become
// exactly one ScoredTrajectory each in OWRL_SCORED, with the right rewards and exclusions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectBus, ensureTopology, trajSubject, CONSUMER_LEARNER, STREAM_SCORED, STREAM_TRAJ, CONSUMER_JUDGE, type Bus } from '@owrl/bus';
import { createVerifiers, type Verifiers } from '@owrl/judge-core';
import {
  make,
  ScoredTrajectorySchema,
  SiteStateCheckSchema,
  TerminationClass,
  TrajectorySchema,
  VerdictSource,
  VerifierSchema,
  type ScoredTrajectory,
  type Trajectory,
  type Verifier,
} from '@owrl/proto';
import { MemoryMeter } from '@owrl/core';
import { answerVerifier, buildTrajectory, startNatsServer, type NatsServer } from '@owrl/testkit';
import { JudgeService, readConfig } from '../src/index.js';

let nats: NatsServer;
let site: http.Server;
let siteUrl = '';
/** Resolvers waiting for the site to receive a request on a path. */
const siteHits = new Map<string, () => void>();
let slowRelease: (() => void) | null = null;

before(async () => {
  nats = await startNatsServer();
  site = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    siteHits.get(path)?.();
    if (path === '/verify/down') {
      res.writeHead(503);
      res.end('maintenance');
    } else if (path === '/verify/slow') {
      // Answers only when the test says so: a check in flight during shutdown.
      slowRelease = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, detail: 'booked' }));
      };
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true }));
    }
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

after(async () => {
  site.closeAllConnections();
  await new Promise<void>((r) => site.close(() => r()));
  await nats.dispose();
});

function siteVerifier(path: string): Verifier {
  return make(VerifierSchema, { kind: { case: 'siteState', value: make(SiteStateCheckSchema, { endpoint: `${siteUrl}${path}`, specJson: '{}' }) } });
}

function trajectory(runId: string, sample: number, init: { cls?: TerminationClass; reason?: string; answer?: string; calledDone?: boolean; verifier?: Verifier }): Trajectory {
  const { verifier, ...rest } = init;
  return buildTrajectory({
    ...rest,
    runId,
    sample,
    sessionId: `s-${sample}`,
    task: { id: 'shop/price/0001', startUrl: `${siteUrl}/shop`, instruction: 'find the price', ...(verifier ? { verifier } : {}) },
  });
}

/** Reads OWRL_SCORED through the learner's durable consumer; waitFor(n) resolves at n messages. */
async function scoredReader(bus: Bus) {
  const items: ScoredTrajectory[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const handle = await bus.consume({
    stream: STREAM_SCORED,
    consumer: CONSUMER_LEARNER,
    schema: ScoredTrajectorySchema,
    maxInFlight: 16,
    pullExpiresMs: 1000,
    handler: (d) => {
      items.push(d.value);
      for (const w of waiters.filter((x) => items.length >= x.n)) w.resolve();
    },
  });
  return {
    items,
    handle,
    waitFor: (n: number) => (items.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
  };
}

async function freshBus(): Promise<Bus> {
  const bus = await connectBus({ servers: nats.url, name: 'judge-test' });
  await ensureTopology(bus, { storage: 'memory' });
  return bus;
}

async function purge(bus: Bus): Promise<void> {
  await bus.jsm.streams.purge(STREAM_TRAJ);
  await bus.jsm.streams.purge(STREAM_SCORED);
}

void test('success, wrong answer, ENV_ERROR, site outage and a duplicate: one scored message each, the duplicate once', async () => {
  const bus = await freshBus();
  await purge(bus);
  const meter = new MemoryMeter();
  const base = createVerifiers();
  let answerChecks = 0;
  const verifiers: Verifiers = { ...base, answer: (m, a) => (answerChecks++, base.answer(m, a)) };
  const service = new JudgeService({ bus, meter, judgeVersion: 'verifier-test', concurrency: 1, verifiers, timeoutMs: 2000, pullExpiresMs: 1000 });
  const reader = await scoredReader(bus);
  try {
    const run = 'runJ';
    const ok = trajectory(run, 0, { answer: '$1,299.', verifier: answerVerifier('1299') });
    const wrong = trajectory(run, 1, { answer: '$999', verifier: answerVerifier('1299') });
    const env = trajectory(run, 2, { cls: TerminationClass.ENV_ERROR, reason: 'connection_reset', verifier: answerVerifier('1299') });
    const down = trajectory(run, 3, { answer: 'booked', verifier: siteVerifier('/verify/down') });
    const budget = trajectory(run, 4, { cls: TerminationClass.STEP_BUDGET_EXHAUSTED, reason: 'step_budget', calledDone: false, verifier: answerVerifier('1299') });
    const subject = trajSubject(run);
    for (const t of [ok, wrong, env, down]) await bus.publish(subject, TrajectorySchema, t, { msgId: t.trajectoryId });
    // A second copy of `ok` under another msgId gets past the stream's dedupe: at-least-once.
    const again = await bus.publish(subject, TrajectorySchema, ok, { msgId: `${ok.trajectoryId}#redelivered` });
    assert.equal(again.duplicate, false);
    // Sentinel after the duplicate: with concurrency 1 it is judged last.
    await bus.publish(subject, TrajectorySchema, budget, { msgId: budget.trajectoryId });

    await service.start();
    await reader.waitFor(5);
    await service.stop();

    const byId = new Map(reader.items.map((s) => [s.trajectoryId, s]));
    assert.equal(reader.items.length, 5, `ids: ${reader.items.map((s) => s.trajectoryId).join(', ')}`);
    assert.equal(byId.size, 5, 'no trajectory scored twice');

    const sOk = byId.get(ok.trajectoryId);
    assert.deepEqual([sOk?.trainable, sOk?.verdict?.reward, sOk?.verdict?.source, sOk?.verdict?.judgeVersion], [true, 1, VerdictSource.VERIFIER, 'verifier-test']);
    assert.equal(sOk?.trajectory?.finalAnswer, '$1,299.');
    assert.ok((sOk?.judgedAtMs ?? 0n) > 0n);
    const sWrong = byId.get(wrong.trajectoryId);
    assert.deepEqual([sWrong?.trainable, sWrong?.verdict?.reward, sWrong?.verdict?.source], [true, 0, VerdictSource.VERIFIER]);
    const sEnv = byId.get(env.trajectoryId);
    assert.deepEqual([sEnv?.trainable, sEnv?.excludedReason, sEnv?.verdict], [false, 'env_error:connection_reset', undefined]);
    const sDown = byId.get(down.trajectoryId);
    assert.deepEqual([sDown?.trainable, sDown?.excludedReason, sDown?.verdict], [false, 'judge:verifier_unavailable', undefined]);
    const sBudget = byId.get(budget.trajectoryId);
    assert.deepEqual([sBudget?.trainable, sBudget?.verdict?.reward, sBudget?.verdict?.source], [true, 0, VerdictSource.RULE]);

    // The duplicate was recognised without judging it again (ok + wrong only were answer-checked).
    assert.equal(answerChecks, 2);
    assert.equal(service.stats.duplicates, 1);
    assert.equal(service.stats.published, 5);
    const si = await bus.streamInfo(STREAM_SCORED);
    assert.equal(si.state.messages, 5);
    const lag = await bus.consumerLag(STREAM_TRAJ, CONSUMER_JUDGE);
    assert.deepEqual([lag.numPending, lag.numAckPending], [0, 0], 'every trajectory acked');

    assert.equal(meter.value('owrl_judge_duplicates_total'), 1);
    assert.equal(meter.value('owrl_judge_trajectories_total', { outcome: 'success', source: 'verifier' }), 1);
    assert.equal(meter.value('owrl_judge_trajectories_total', { outcome: 'failure', source: 'verifier' }), 1);
    assert.equal(meter.value('owrl_judge_trajectories_total', { outcome: 'failure', source: 'rule' }), 1);
    assert.equal(meter.value('owrl_judge_trajectories_total', { outcome: 'excluded', source: 'none' }), 2);
    assert.equal(meter.total('owrl_judge_trajectories_total'), 5);
    assert.equal(meter.value('owrl_judge_excluded_total', { reason: 'judge:verifier_unavailable' }), 1);
    assert.equal(meter.observations('owrl_judge_latency_seconds').length, 5);
  } finally {
    await service.stop();
    await reader.handle.stop();
    await bus.close();
  }
});

void test('stop() lets an in-flight trajectory finish: it is published and acked before stop resolves', async () => {
  const bus = await freshBus();
  await purge(bus);
  const service = new JudgeService({ bus, judgeVersion: 'verifier-test', concurrency: 4, timeoutMs: 5000, pullExpiresMs: 1000 });
  try {
    const t = trajectory('runS', 0, { answer: 'x', verifier: siteVerifier('/verify/slow') });
    const hit = new Promise<void>((r) => siteHits.set('/verify/slow', r));
    await bus.publish(trajSubject('runS'), TrajectorySchema, t, { msgId: t.trajectoryId });
    await service.start();
    await hit; // the site check is in flight
    const stopped = service.stop();
    assert.ok(slowRelease, 'the slow check is waiting');
    slowRelease();
    await stopped;
    const si = await bus.streamInfo(STREAM_SCORED);
    assert.equal(si.state.messages, 1);
    const msg = await bus.jsm.streams.getMessage(STREAM_SCORED, { seq: si.state.last_seq });
    assert.ok(msg);
    const { decode } = await import('@owrl/proto');
    const s = decode(ScoredTrajectorySchema, msg.data);
    assert.deepEqual([s.trajectoryId, s.trainable, s.verdict?.reward], [t.trajectoryId, true, 1]);
    const lag = await bus.consumerLag(STREAM_TRAJ, CONSUMER_JUDGE);
    assert.deepEqual([lag.numPending, lag.numAckPending], [0, 0]);
  } finally {
    siteHits.delete('/verify/slow');
    await service.stop();
    await bus.close();
  }
});

void test('readConfig: defaults and errors naming the variable', () => {
  assert.deepEqual(readConfig({}), { judgeVersion: 'verifier-1', concurrency: undefined, timeoutMs: 10_000, model: undefined, api: undefined });
  assert.equal(readConfig({ OWRL_JUDGE_CONCURRENCY: '3' }).concurrency, 3);
  assert.throws(() => readConfig({ OWRL_JUDGE_CONCURRENCY: '0' }), /OWRL_JUDGE_CONCURRENCY="0"/);
});
