// The host blacklist on the learner's side, against a real nats-server: site failures put the
// host into KV owrl_blacklist with its cause and expiry, the scheduler then skips it, and a round
// whose host is blacklisted mid-way cancels its re-dispatches instead of looping, with the run
// counters still adding up (dispatched = trainable + excluded).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Blacklist, connectBus, CONSUMER_ACTORS, ensureTopology, scoredSubject, STREAM_TASKS, type Bus } from '@owrl/bus';
import {
  make,
  RolloutRequestSchema,
  ScoredTrajectorySchema,
  TaskSchema,
  TerminationClass,
  TerminationSchema,
  TrajectorySchema,
  VerdictSchema,
  type RolloutRequest,
  type ScoredTrajectory,
} from '@owrl/proto';
import { startNatsServer, type NatsServer } from '@owrl/testkit';
import { hostOf, MemoryMeter, REASON_HOST_BLACKLISTED as HOST_BLACKLISTED, silentLogger } from '@owrl/core';
import { HostGuard } from '../src/host-guard.js';
import { createLearnerMetrics } from '../src/metrics.js';
import { RoundLedger } from '../src/round-ledger.js';
import { RunStateStore } from '../src/run-state-store.js';
import { TaskScheduler } from '../src/scheduler.js';
import { startTestLearner, testLearnerConfig } from './learner-fixture.js';

let nats: NatsServer;
let bus: Bus;

before(async () => {
  nats = await startNatsServer();
  bus = await connectBus({ servers: nats.url, name: 'learner-blacklist-test' });
  await ensureTopology(bus, { storage: 'memory' });
});

after(async () => {
  await bus?.close();
  await nats?.dispose();
});

const task = (id: string, startUrl: string) => make(TaskSchema, { id, startUrl, instruction: 'find it', difficulty: 1 });

/** What the judge publishes for an outcome of `req`: excluded infrastructure, or a trainable verdict. */
function scoredOutcome(req: RolloutRequest, cls: TerminationClass, reason: string, reward = 0): ScoredTrajectory {
  const trainable = cls === TerminationClass.COMPLETED;
  return make(ScoredTrajectorySchema, {
    trajectoryId: req.trajectoryId,
    trajectory: make(TrajectorySchema, { trajectoryId: req.trajectoryId, request: req, termination: make(TerminationSchema, { class: cls, reason }) }),
    trainable,
    ...(trainable ? { verdict: make(VerdictSchema, { reward, success: reward > 0.5 }) } : { excludedReason: `${TerminationClass[cls].toLowerCase()}:${reason}` }),
  });
}

function outcomeOn(host: string, cls: TerminationClass, reason: string, n: number): ScoredTrajectory {
  return scoredOutcome(make(RolloutRequestSchema, { trajectoryId: `run/0/0/${n}/0`, sample: n, task: task('t', `https://${host}/start?x=1`) }), cls, reason);
}

async function metricValue(reg: MemoryMeter, name: string, labels: Record<string, string> = {}): Promise<number> {
  return Promise.resolve(reg.value(name, labels));
}

void test('site failures blacklist the host with the dominant cause and an expiry; skips, our side and successes never count', async () => {
  const blacklist = await Blacklist.open(bus);
  const reg = new MemoryMeter();
  const metrics = createLearnerMetrics(reg);
  let now = 1_700_000_000_000;
  const guard = new HostGuard(blacklist, { threshold: 3, windowMs: 600_000, ttlMs: 1_800_000, cacheMs: 60_000 }, metrics, silentLogger, () => now);
  const bad = 'flaky.example:8443';
  let n = 0;
  // None of these count: the actor's skip, our sandbox, trainable outcomes, ENV_ERROR timeouts.
  for (let i = 0; i < 4; i++) {
    assert.equal(await guard.observe(outcomeOn(bad, TerminationClass.INIT_ERROR, HOST_BLACKLISTED, n++)), null);
    assert.equal(await guard.observe(outcomeOn(bad, TerminationClass.SANDBOX_ERROR, 'browser_crash', n++)), null);
    assert.equal(await guard.observe(outcomeOn(bad, TerminationClass.COMPLETED, 'done', n++)), null);
    assert.equal(await guard.observe(outcomeOn(bad, TerminationClass.ENV_ERROR, 'task_timeout', n++)), null);
  }
  assert.equal(await blacklist.get(bad), null);
  assert.equal(await guard.isBlocked(bad), false);
  assert.equal(await guard.observe(outcomeOn(bad, TerminationClass.INIT_ERROR, 'dns', n++)), null);
  now += 1000;
  assert.equal(await guard.observe(outcomeOn(bad, TerminationClass.ENV_ERROR, 'bot_wall', n++)), null);
  now += 1000;
  const trip = await guard.observe(outcomeOn(bad, TerminationClass.INIT_ERROR, 'dns', n++));
  assert.deepEqual(trip, { host: bad, reason: 'init_error:dns', failures: 3 });
  assert.deepEqual(await blacklist.get(bad), { reason: 'init_error:dns', failures: 3, untilMs: now + 1_800_000 });
  assert.equal(await guard.isBlocked(bad), true, 'the guard sees its own entry at once');
  assert.deepEqual([...(await guard.blockedHosts())], [bad]);
  assert.equal(await metricValue(reg, 'owrl_blacklist_hosts'), 1);
  assert.equal(await metricValue(reg, 'owrl_host_failures_total', { host: bad, reason: 'init_error:dns' }), 2);
  assert.equal(await metricValue(reg, 'owrl_host_failures_total', { host: bad, reason: 'bot_wall' }), 1);
  assert.equal(await metricValue(reg, 'owrl_host_failures_total', { host: bad, reason: 'init_error:host_blacklisted' }), 0);

  // The scheduler never picks the blocked host's tasks.
  const tasks = [task('ok-1', 'https://fine.example/a'), task('ok-2', 'https://fine.example/b'), task('bad-1', `https://${bad}/x`), task('bad-2', `https://${bad}/y`)];
  const scheduler = new TaskScheduler(tasks, { seed: 3 });
  const blocked = await guard.blockedHosts();
  const picked = scheduler.pick(12, (h) => blocked.has(h));
  assert.equal(picked.length, 12);
  assert.deepEqual([...new Set(picked.map((t) => hostOf(t.startUrl)))], ['fine.example']);
  assert.ok(new Set(scheduler.pick(12).map((t) => hostOf(t.startUrl))).has(bad), 'without the blacklist the host is picked');

  // Once the entry expires the host is eligible again.
  now += 1_800_001;
  assert.deepEqual([...(await guard.blockedHosts())], []);
  assert.equal(await metricValue(reg, 'owrl_blacklist_hosts'), 0);
  assert.equal(await guard.isBlocked(bad), false);
  await blacklist.remove(bad);
});

void test('automatic blacklisting can be turned off (threshold 0) while failures are still counted', async () => {
  const blacklist = await Blacklist.open(bus);
  const reg = new MemoryMeter();
  const guard = new HostGuard(blacklist, { threshold: 0, windowMs: 1000, ttlMs: 1000, cacheMs: 0 }, createLearnerMetrics(reg), silentLogger);
  for (let i = 0; i < 10; i++) assert.equal(await guard.observe(outcomeOn('off.example', TerminationClass.INIT_ERROR, 'connection_refused', i)), null);
  assert.equal(await blacklist.get('off.example'), null);
  assert.equal(await metricValue(reg, 'owrl_host_failures_total', { host: 'off.example', reason: 'init_error:connection_refused' }), 10);
});

void test('ledger: a cancelled re-dispatch abandons the slot, and the group once its other samples are back', () => {
  const l = new RoundLedger('run', 0, 3);
  const ids = l.addGroup(0, task('t', 'https://x.example/'), 2);
  const ex = l.ingest(scoredOutcome(make(RolloutRequestSchema, { trajectoryId: ids[0]! }), TerminationClass.INIT_ERROR, HOST_BLACKLISTED));
  assert.ok(ex.kind === 'excluded' && ex.redispatch !== undefined);
  assert.equal(l.cancelRedispatch(0, 0), false, 'sample 1 is still in flight');
  assert.throws(() => l.cancelRedispatch(0, 0), /no pending re-dispatch/);
  assert.throws(() => l.cancelRedispatch(0, 1), /no pending re-dispatch/, 'a first attempt is not a re-dispatch');
  assert.equal(l.inFlight(), 1);
  const last = l.ingest(scoredOutcome(make(RolloutRequestSchema, { trajectoryId: ids[1]! }), TerminationClass.COMPLETED, 'done', 1));
  assert.ok(last.kind === 'trainable' && last.completed);
  assert.equal(l.groups.get(0)?.fate, 'abandoned');
  assert.equal(l.inFlight(), 0);
});

void test('a host blacklisted mid-round: its re-dispatches are cancelled, the refill skips it, and the counters add up', { timeout: 60_000 }, async () => {
  const runId = 'blrun';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-bl-'));
  const config = testLearnerConfig(runId, dataDir, {
    OWRL_ROUNDS: '1',
    OWRL_GROUP_SIZE: '4',
    OWRL_GROUPS_PER_ROUND: '2',
    OWRL_MAX_GROUPS_PER_ROUND: '4',
    OWRL_MAX_ATTEMPTS: '3',
    OWRL_ROUND_TIMEOUT_S: '45',
    OWRL_BLACKLIST_FAILURES: '3',
    OWRL_BLACKLIST_WINDOW_S: '600',
    OWRL_BLACKLIST_TTL_S: '900',
  });
  const goodHost = 'good.example:8081';
  const badHost = 'down.example:8082';
  const scheduler = new TaskScheduler([task('good', `http://${goodHost}/`), task('bad', `http://${badHost}/`)], { seed: 1 });
  const reg = new MemoryMeter();
  const store = new RunStateStore(runId, 1, 'sync');
  const blacklist = await Blacklist.open(bus);
  const { learner, artifacts } = await startTestLearner({ bus, config, scheduler, store, dataDir, blacklist, meter: reg });

  // Stands in for actors + judge: the bad host's start page never resolves, the good one's
  // rollouts are judged alternately 0 and 1 (so its groups are kept).
  const received = new Map<string, number>();
  const worker = await bus.consume({
    stream: STREAM_TASKS,
    consumer: CONSUMER_ACTORS,
    schema: RolloutRequestSchema,
    maxInFlight: 4,
    pullExpiresMs: 1000,
    handler: async (d) => {
      const req = d.value;
      const host = hostOf(req.task?.startUrl ?? '');
      received.set(host, (received.get(host) ?? 0) + 1);
      const out = host === badHost ? scoredOutcome(req, TerminationClass.INIT_ERROR, 'dns') : scoredOutcome(req, TerminationClass.COMPLETED, 'done', req.sample % 2);
      await bus.publish(scoredSubject(runId), ScoredTrajectorySchema, out, { msgId: req.trajectoryId });
    },
  });
  const t0 = Date.now();
  try {
    await learner.run();
  } finally {
    await learner.stop();
    await worker.stop();
    await artifacts.close();
  }
  const entry = await blacklist.get(badHost);
  assert.ok(entry, 'the failing host is blacklisted');
  assert.equal(entry.reason, 'init_error:dns');
  assert.equal(entry.failures, 3);
  assert.ok(entry.untilMs >= t0 + 900_000 && entry.untilMs <= Date.now() + 900_000, `untilMs ${entry.untilMs}`);
  // 4 first attempts + the 2 re-dispatches planned before the third failure tripped it; none after.
  assert.equal(received.get(badHost), 6);
  assert.equal(received.get(goodHost), 8, 'the group of the round and the refill');
  const groups = learner.control.listGroups(0).groups;
  assert.deepEqual(groups.map((g) => [g.taskId, g.fate]).sort(), [
    ['bad', 'abandoned'],
    ['good', 'kept'],
    ['good', 'kept'],
  ]);
  const c = store.get().counters!;
  assert.equal(c.dispatched, 14n);
  assert.equal(c.redispatched, 2n);
  assert.equal(c.dispatched, c.trainable + c.excluded + c.inFlight, 'every dispatched rollout is accounted for');
  assert.deepEqual([c.trainable, c.excluded, c.inFlight], [8n, 6n, 0n]);
  assert.deepEqual([c.groupsKept, c.groupsAbandoned, c.updates], [2n, 1n, 1n]);
  assert.equal(store.get().excluded['init_error:dns'], 6n);
  assert.equal(await metricValue(reg, 'owrl_learner_redispatch_cancelled_total', { reason: 'host_blacklisted' }), 4);
  assert.equal(await metricValue(reg, 'owrl_host_failures_total', { host: badHost, reason: 'init_error:dns' }), 6);
  await blacklist.remove(badHost);
  fs.rmSync(dataDir, { recursive: true, force: true });
});
