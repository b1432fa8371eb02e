// The actor's blacklist skip against a real nats-server: a request whose start host is in KV
// owrl_blacklist is answered with INIT_ERROR `host_blacklisted` and acked without a browser or a
// policy; an expired entry does not block (that request goes the normal way).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { BrowserPool } from '@owrl/browser-env';
import { ActorRegistry, Blacklist, connectBus, ensureTopology, taskSubject, WeightsPointer, type Bus } from '@owrl/bus';
import { MemoryMeter, silentLogger } from '@owrl/core';
import { make, RolloutRequestSchema, TaskSchema, terminationClassName } from '@owrl/proto';
import { startNatsServer, type NatsServer } from '@owrl/testkit';
import { Actor } from '../src/actor.js';
import type { ActorConfig } from '../src/config.js';
import { PolicyHolder } from '../src/policy-holder.js';
import { collectTrajectories, workQueueLeft } from './bus-helpers.js';

let nats: NatsServer;
let bus: Bus;

before(async () => {
  nats = await startNatsServer();
  bus = await connectBus({ servers: nats.url, name: 'actor-blacklist-test' });
  await ensureTopology(bus, { storage: 'memory' });
});

after(async () => {
  await bus?.close();
  await nats?.dispose();
});

void test('a blacklisted host is answered with INIT_ERROR host_blacklisted without a browser; an expired entry does not block', { timeout: 60_000 }, async () => {
  const now = Date.now();
  const blacklist = await Blacklist.open(bus);
  await blacklist.add('walled.test:9443', { reason: 'bot_wall', failures: 5, untilMs: now + 600_000 });
  await blacklist.add('expired.test:9443', { reason: 'init_error:dns', failures: 5, untilMs: now - 1 });
  const config: ActorConfig = {
    actorId: 'actor-skip-1',
    slots: 2,
    allowHosts: [],
    chromiumPath: '/usr/bin/chromium',
    // No policy is ever published: a request that gets past the blacklist fails fast on our side.
    policyWaitMs: 0,
    heartbeatMs: 60_000,
    maxEpisodesPerBrowser: 50,
    maxPayloadBytes: 1024 * 1024,
    stepScreenshots: false,
    publishRetryMs: 30_000,
    publishBackoffMs: 200,
  };
  const pool = new BrowserPool({ allowHosts: [] });
  const policies = new PolicyHolder(silentLogger);
  const meter = new MemoryMeter();
  const actor = new Actor({ config, bus, pool, policies, weights: await WeightsPointer.open(bus), registry: await ActorRegistry.open(bus), meter, logger: silentLogger });
  const urls = ['https://walled.test:9443/start', 'https://WALLED.test:9443/other?q=1', 'https://expired.test:9443/'];
  let stopped = false;
  try {
    await actor.start();
    for (const [s, url] of urls.entries()) {
      const id = `skiprun/0/0/${s}/0`;
      const req = make(RolloutRequestSchema, { runId: 'skiprun', trajectoryId: id, sample: s, maxSteps: 3, task: make(TaskSchema, { id: `t${s}`, startUrl: url, instruction: 'x', difficulty: 1 }) });
      await bus.publish(taskSubject('skiprun'), RolloutRequestSchema, req, { msgId: id });
    }
    const byId = new Map((await collectTrajectories(bus, 'skiprun', 3, 20_000)).map((t) => [t.trajectoryId, t]));
    for (const s of [0, 1]) {
      const t = byId.get(`skiprun/0/0/${s}/0`);
      assert.ok(t, `trajectory of sample ${s}`);
      assert.equal(terminationClassName(t.termination?.class), 'INIT_ERROR');
      assert.equal(t.termination?.reason, 'host_blacklisted');
      assert.match(t.termination?.message ?? '', /walled\.test:9443 is blacklisted until .*\(bot_wall, 5 failures\)/);
      assert.equal(t.steps.length, 0);
      assert.equal(t.actorId, 'actor-skip-1');
      assert.equal(t.request?.task?.startUrl, urls[s]);
    }
    const expired = byId.get('skiprun/0/0/2/0');
    assert.deepEqual([terminationClassName(expired?.termination?.class), expired?.termination?.reason], ['SANDBOX_ERROR', 'actor_error']);
    assert.equal(pool.stats().launches, 0, 'no browser was opened');
    assert.equal(await workQueueLeft(bus), 0, 'every request was acked');
    // The actor records an episode after its ack: stop it (in-flight handlers finish) before reading.
    await actor.stop();
    stopped = true;
    const byClass = meter.series('owrl_actor_episodes_total').sort((a, b) => String(a.labels['class']).localeCompare(String(b.labels['class'])));
    assert.deepEqual(byClass, [
      { labels: { class: 'INIT_ERROR', reason: 'host_blacklisted' }, value: 2 },
      { labels: { class: 'SANDBOX_ERROR', reason: 'actor_error' }, value: 1 },
    ]);
    assert.equal(meter.observations('owrl_actor_episode_seconds').length, 3);
    assert.equal(meter.value('owrl_actor_busy_slots'), 0);
  } finally {
    if (!stopped) await actor.stop();
    await policies.close();
    await pool.close();
  }
});
