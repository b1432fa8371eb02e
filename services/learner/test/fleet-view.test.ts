// RunState.actors and RunState.blacklist from KV owrl_actors and owrl_blacklist, against a real
// nats-server: heartbeats appear in the run state with their policy versions, an actor drops out
// when its heartbeat is older than the timeout or when it leaves the registry, blacklist entries
// appear with reason and expiry, an unchanged read does not bump the resource version, a
// failed read keeps the last view, and a hung read is abandoned with actors aging out meanwhile.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ActorRegistry, Blacklist, connectBus, ensureTopology, type Bus } from '@owrl/bus';
import { silentLogger } from '@owrl/core';
import { startNatsServer, waitUntil, type NatsServer } from '@owrl/testkit';
import { FleetView, liveActors } from '../src/fleet-view.js';
import { RunStateStore } from '../src/run-state-store.js';

let nats: NatsServer;
let bus: Bus;

before(async () => {
  nats = await startNatsServer();
  bus = await connectBus({ servers: nats.url, name: 'learner-fleet-view-test' });
  await ensureTopology(bus, { storage: 'memory' });
});

after(async () => {
  await bus?.close();
  await nats?.dispose();
});

const hb = (policyVersion: number, busy = 1) => ({ slots: 2, busy, policyVersion, rssBytes: 300e6, episodes: 7 });

void test('registry heartbeats and blacklist entries show in the run state; stale and removed actors drop out', async () => {
  const registry = await ActorRegistry.open(bus);
  const blacklist = await Blacklist.open(bus);
  const t0 = Date.now();
  let now = t0;
  const store = new RunStateStore('fleet-run', 3, 'sync');
  const kinds: string[] = [];
  store.onChange((k) => kinds.push(k));
  const view = new FleetView({ actors: registry, blacklist }, store, silentLogger, { heartbeatTimeoutMs: 30_000, clock: () => now });

  await registry.heartbeat('actor-b', hb(4), t0);
  await registry.heartbeat('actor-a', hb(3, 2), t0 - 20_000);
  await registry.heartbeat('actor-old', hb(1), t0 - 60_000); // past the timeout already
  await blacklist.add('Slow.Example:8080', { reason: 'bot_wall', failures: 5, untilMs: t0 + 600_000 });
  await view.refresh();

  let s = store.get();
  assert.deepEqual(
    s.actors.map((a) => [a.actorId, a.slots, a.busy, a.policyVersion, a.episodes, a.rssBytes, a.updatedAtMs]),
    [
      ['actor-a', 2, 2, 3n, 7n, 300_000_000n, BigInt(t0 - 20_000)],
      ['actor-b', 2, 1, 4n, 7n, 300_000_000n, BigInt(t0)],
    ],
  );
  assert.deepEqual(
    s.blacklist.map((b) => [b.host, b.reason, b.failures, b.untilMs]),
    [['slow.example:8080', 'bot_wall', 5, BigInt(t0 + 600_000)]],
  );
  assert.deepEqual(kinds, ['fleet']);

  // Nothing changed: no new resource version.
  const rv = s.resourceVersion;
  await view.refresh();
  assert.equal(store.get().resourceVersion, rv);

  // 15 s later actor-a's heartbeat is 35 s old: past the timeout, dropped; actor-b stays.
  now = t0 + 15_000;
  await view.refresh();
  assert.deepEqual(store.get().actors.map((a) => a.actorId), ['actor-b']);

  // actor-b beats with a new policy version, then leaves (graceful shutdown); the host is unlisted.
  await registry.heartbeat('actor-b', hb(5), now);
  await view.refresh();
  assert.deepEqual(store.get().actors.map((a) => [a.actorId, a.policyVersion]), [['actor-b', 5n]]);
  await registry.remove('actor-b');
  await blacklist.remove('slow.example:8080');
  await view.refresh();
  s = store.get();
  assert.deepEqual(s.actors, []);
  assert.deepEqual(s.blacklist, []);
  assert.ok(s.resourceVersion > rv);
  await registry.remove('actor-a');
  await registry.remove('actor-old');
});

void test('started view follows the registry on its own and stops cleanly', async () => {
  const registry = await ActorRegistry.open(bus);
  const store = new RunStateStore('fleet-run-2', 1, 'sync');
  const view = new FleetView({ actors: registry, blacklist: await Blacklist.open(bus) }, store, silentLogger, { intervalMs: 50 });
  await view.start();
  try {
    await registry.heartbeat('actor-live', hb(9));
    const a = await waitUntil('actor-live in the run state', () => store.get().actors.find((x) => x.actorId === 'actor-live'), { timeoutMs: 30_000 });
    assert.equal(a.policyVersion, 9n);
    await registry.remove('actor-live');
    await waitUntil('actor-live gone', () => (store.get().actors.some((x) => x.actorId === 'actor-live') ? undefined : true), { timeoutMs: 30_000 });
  } finally {
    await view.stop();
  }
});

void test('a failed read (connection closed) keeps the last view and never throws', async () => {
  const other = await connectBus({ servers: nats.url, name: 'learner-fleet-view-test-2' });
  const registry = await ActorRegistry.open(other);
  const store = new RunStateStore('fleet-run-3', 1, 'sync');
  const view = new FleetView({ actors: registry, blacklist: await Blacklist.open(other) }, store, silentLogger);
  await registry.heartbeat('actor-x', hb(2));
  await view.refresh();
  await other.close();
  const rv = store.get().resourceVersion;
  await view.refresh();
  assert.deepEqual(store.get().actors.map((a) => a.actorId), ['actor-x']);
  assert.equal(store.get().resourceVersion, rv);
  await ActorRegistry.open(bus).then((r) => r.remove('actor-x'));
  assert.throws(() => new FleetView({ actors: registry, blacklist: { list: async () => [] } }, store, silentLogger, { intervalMs: 0 }), /intervalMs=0/);
});

void test('a hung read is abandoned after the read timeout, and actors still age out of the last view', async () => {
  const t0 = Date.now();
  let now = t0;
  let hang = false;
  const records = [
    { actorId: 'actor-dead', slots: 2, busy: 2, policyVersion: 1, rssBytes: 1, episodes: 3, updatedAtMs: t0 - 5000 },
    { actorId: 'actor-live', slots: 2, busy: 0, policyVersion: 1, rssBytes: 1, episodes: 3, updatedAtMs: t0 },
  ];
  const sources = {
    actors: { list: () => (hang ? new Promise<never>(() => {}) : Promise.resolve(records)) },
    blacklist: { list: () => Promise.resolve([]) },
  };
  const store = new RunStateStore('fleet-run-4', 1, 'sync');
  const view = new FleetView(sources, store, silentLogger, { heartbeatTimeoutMs: 10_000, readTimeoutMs: 50, clock: () => now });
  await view.refresh();
  assert.deepEqual(store.get().actors.map((a) => a.actorId), ['actor-dead', 'actor-live']);
  // KV stops answering: a read neither ends nor freezes the view (the next refresh reads again).
  hang = true;
  now = t0 + 6000;
  await view.refresh();
  // actor-dead's heartbeat is now 11 s old: it leaves the view although nothing could be read.
  assert.deepEqual(store.get().actors.map((a) => a.actorId), ['actor-live']);
  // KV answers again: a new heartbeat shows.
  hang = false;
  records[1] = { ...records[1]!, busy: 1, updatedAtMs: now };
  await view.refresh();
  assert.deepEqual(store.get().actors.map((a) => [a.actorId, a.busy]), [['actor-live', 1]]);
  assert.throws(() => new FleetView(sources, store, silentLogger, { readTimeoutMs: 0 }), /readTimeoutMs=0/);
});

void test('liveActors keeps heartbeats within the timeout, sorted by id', () => {
  const r = (actorId: string, updatedAtMs: number) => ({ actorId, ...hb(1), updatedAtMs });
  assert.deepEqual(liveActors([r('b', 1000), r('a', 900), r('c', 100)], 1000, 500).map((a) => a.actorId), ['a', 'b']);
});

void test('liveActors: an actor that states its heartbeat interval is left out after 3 missed beats, whatever the view timeout', () => {
  const r = (actorId: string, updatedAtMs: number, intervalMs?: number) => ({ actorId, ...hb(1), updatedAtMs, ...(intervalMs !== undefined ? { intervalMs } : {}) });
  const records = [r('fast', 0, 1000), r('slow', 0, 60_000), r('old', 0)];
  // 3.5 s after the last beats: the 1 s actor missed 3 and is gone; the others are within their limits.
  assert.deepEqual(liveActors(records, 3500, 30_000).map((a) => a.actorId), ['old', 'slow']);
  // 100 s: the 60 s actor (limit 180 s) outlives the view's 30 s timeout, which still holds for the record without an interval.
  assert.deepEqual(liveActors(records, 100_000, 30_000).map((a) => a.actorId), ['slow']);
});
