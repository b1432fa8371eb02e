// KV wrappers on a real server: the weights pointer (get, watch sees the current value then
// puts), the blacklist (hosts with ports, expiry, removal, the look-up cache) and the actor
// registry (list, TTL).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kvm } from '@nats-io/kv';
import { make, PolicyArtifactSchema, type PolicyArtifact } from '@owrl/proto';
import { silentLogger } from '@owrl/core';
import { ActorRegistry, Blacklist, BlacklistCache, BusErrorCode, encodeKvKey, ensureTopology, isBusError, WeightsPointer } from '../src/index.js';
import { lastEntries } from '../src/kv.js';
import { deferred, startSuite, until, within, type Suite } from './harness.js';

const artifact = (version: number): PolicyArtifact =>
  make(PolicyArtifactSchema, { version: BigInt(version), uri: `http://learner:8080/policy/${version}.onnx`, sha256: 'ab'.repeat(32), bytes: 1234n, kind: 'onnx-pointer' });

void describe('KV wrappers', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite('kv-test');
    await ensureTopology(s.bus, { actorsTtlMs: 1000 });
  });
  after(async () => {
    await s.close();
  });

  void it('weights pointer: get, and watch sees the current value then each put', async () => {
    const wp = await WeightsPointer.open(s.bus);
    assert.equal(await wp.get(), null);
    await wp.put(artifact(1));
    const seen: bigint[] = [];
    const third = deferred();
    const stop = await wp.watch((a) => {
      seen.push(a.version);
      if (seen.length === 3) third.resolve();
    });
    try {
      await wp.put(artifact(2));
      await wp.put(artifact(3));
      await within(third.promise, 5000, 'three pointer versions');
    } finally {
      await stop();
    }
    assert.deepEqual(seen, [1n, 2n, 3n]);
    const cur = await wp.get();
    assert.deepEqual([cur?.version, cur?.uri, cur?.sha256, cur?.kind], [3n, 'http://learner:8080/policy/3.onnx', 'ab'.repeat(32), 'onnx-pointer']);
    const info = await s.bus.streamInfo('KV_owrl_weights');
    assert.equal(info.state.messages, 3, 'history kept');
  });

  void it('blacklist: hosts with ports round-trip, expired entries do not block, removal works', async () => {
    const bl = await Blacklist.open(s.bus);
    const now = 1_000_000;
    await bl.add('Shop.Example.com:8443', { reason: 'bot_wall', failures: 3, untilMs: now + 60_000 });
    await bl.add('[::1]:3000', { reason: 'init_error', failures: 5, untilMs: now - 1 });
    assert.equal(await bl.isBlocked('shop.example.com:8443', now), true, 'case-insensitive');
    assert.equal(await bl.isBlocked('shop.example.com:8443', now + 60_000), false, 'expired at untilMs');
    assert.equal(await bl.isBlocked('[::1]:3000', now), false, 'expired entry');
    assert.equal(await bl.isBlocked('never.listed', now), false);
    assert.deepEqual(await bl.get('shop.example.com:8443'), { reason: 'bot_wall', failures: 3, untilMs: now + 60_000 });
    assert.deepEqual(
      (await bl.list()).map((e) => [e.host, e.reason]),
      [
        ['[::1]:3000', 'init_error'],
        ['shop.example.com:8443', 'bot_wall'],
      ],
    );
    assert.deepEqual([...(await bl.blockedHosts(now))], ['shop.example.com:8443']);
    await bl.remove('shop.example.com:8443');
    assert.equal(await bl.get('shop.example.com:8443'), null);
    assert.deepEqual((await bl.list()).map((e) => e.host), ['[::1]:3000']);
    await assert.rejects(bl.add('x.org', { reason: '', failures: 1, untilMs: now }), (e: unknown) => isBusError(e, BusErrorCode.InvalidArgument) && /reason ""/.test(e.message));
  });

  void it('blacklist: remove says whether the host was listed, foreign values never block, the bucket TTL is readable', async () => {
    const bl = await Blacklist.open(s.bus);
    const now = 2_000_000;
    await bl.add('walled.example', { reason: 'bot_wall', failures: 5, untilMs: now + 1000 });
    assert.equal(await bl.remove('WALLED.example'), true);
    assert.equal(await bl.remove('walled.example'), false, 'already gone');
    const kv = await new Kvm(s.bus.js).open('owrl_blacklist');
    await kv.put(encodeKvKey('host', 'garbage.example'), '{"reason":"x","untilMs":"soon"}');
    await kv.put(encodeKvKey('host', 'notjson.example'), 'not json');
    assert.equal(await bl.get('garbage.example'), null);
    assert.equal(await bl.isBlocked('notjson.example', now), false);
    assert.ok(!(await bl.list()).some((e) => e.host === 'garbage.example' || e.host === 'notjson.example'));
    assert.equal(await bl.bucketTtlMs(), 3600_000);
    await kv.delete(encodeKvKey('host', 'garbage.example'));
    await kv.delete(encodeKvKey('host', 'notjson.example'));
  });

  void it('blacklist cache: reads each host once per TTL, shares concurrent reads, and sees its own notes at once', async () => {
    const bl = await Blacklist.open(s.bus);
    let t = 10_000;
    const cache = new BlacklistCache(bl, 5000, () => t);
    const getSpy = bl.get.bind(bl);
    let reads = 0;
    bl.get = (host: string) => {
      reads++;
      return getSpy(host);
    };
    assert.deepEqual(await Promise.all([cache.isBlocked('cached.example'), cache.isBlocked('Cached.Example')]), [false, false]);
    assert.equal(reads, 1, 'one read for concurrent look-ups of one host');
    await bl.add('cached.example', { reason: 'init_error:dns', failures: 5, untilMs: t + 60_000 });
    assert.equal(await cache.isBlocked('cached.example'), false, 'within the TTL the cached answer stands');
    t += 5000;
    assert.equal(await cache.isBlocked('cached.example'), true, 're-read after the TTL');
    assert.equal(reads, 2);
    cache.note('cached.example', null);
    assert.equal(await cache.isBlocked('cached.example'), false, 'a note wins over the cached read');
    cache.note('other.example', { reason: 'bot_wall', failures: 6, untilMs: t + 1 });
    assert.equal(await cache.isBlocked('other.example'), true);
    t += 2;
    assert.equal(await cache.isBlocked('other.example'), false, 'expired by untilMs while still cached');
    assert.equal(reads, 2);
    assert.throws(() => new BlacklistCache(bl, -1), (e: unknown) => isBusError(e, BusErrorCode.InvalidArgument) && e.message.includes('ttlMs=-1'));
    await bl.remove('cached.example');
  });

  void it('actor registry: lists heartbeats, and the bucket TTL drops silent actors', async () => {
    const reg = await ActorRegistry.open(s.bus);
    await reg.heartbeat('actor-b', { slots: 4, busy: 1, policyVersion: 7, rssBytes: 5e8, episodes: 10 }, 42);
    await reg.heartbeat('actor-a.pod_1', { slots: 2, busy: 2, policyVersion: 6, rssBytes: 3e8, episodes: 3, intervalMs: 1000 }, 43);
    assert.deepEqual(await reg.list(), [
      { actorId: 'actor-a.pod_1', slots: 2, busy: 2, policyVersion: 6, rssBytes: 3e8, episodes: 3, intervalMs: 1000, updatedAtMs: 43 },
      { actorId: 'actor-b', slots: 4, busy: 1, policyVersion: 7, rssBytes: 5e8, episodes: 10, updatedAtMs: 42 },
    ]);
    await assert.rejects(
      reg.heartbeat('actor-c', { slots: -1, busy: 0, policyVersion: 0, rssBytes: 0, episodes: 0 }),
      (e: unknown) => isBusError(e, BusErrorCode.InvalidArgument) && e.message.includes('slots=-1'),
    );
    await assert.rejects(
      reg.heartbeat('actor-c', { slots: 1, busy: 0, policyVersion: 0, rssBytes: 0, episodes: 0, intervalMs: 0.5 }),
      (e: unknown) => isBusError(e, BusErrorCode.InvalidArgument) && e.message.includes('intervalMs=0.5'),
    );
    await reg.remove('actor-b');
    assert.deepEqual((await reg.list()).map((a) => a.actorId), ['actor-a.pod_1']);
    // A value that is not a heartbeat is left out and logged naming the field.
    const warnings: Array<Record<string, unknown>> = [];
    const logger = { ...silentLogger, warn: (o: object) => void warnings.push(o as Record<string, unknown>), child: () => logger };
    const watched = await ActorRegistry.open({ nc: s.bus.nc, js: s.bus.js, jsm: s.bus.jsm, logger });
    const kv = await new Kvm(s.bus.js).open('owrl_actors');
    await kv.put(encodeKvKey('actorId', 'actor-z'), '{"slots":"four"}');
    assert.deepEqual((await watched.list()).map((a) => a.actorId), ['actor-a.pod_1']);
    assert.equal(warnings.length, 1);
    assert.match(String(warnings[0]?.['err']), /owrl_actors\/.+ revision \d+: slots="four" must be an integer >= 0/);
    await kv.delete(encodeKvKey('actorId', 'actor-z'));
    // TTL 1 s in this suite: with no more heartbeats the actor disappears
    await until(async () => (await reg.list()).length === 0, 5000, 'TTL expiry of the silent actor');
  });

  void it('actor registry: each actor listed once while heartbeats are written during the read', async () => {
    const reg = await ActorRegistry.open(s.bus);
    // Enough actors that a pass over the stream meets keys rewritten ahead of it (CI once listed
    // one of three); each is written back to back with the others while the registry is read.
    const ids = Array.from({ length: 40 }, (_, i) => `beat-${String(i).padStart(2, '0')}`);
    let stop = false;
    let n = 0;
    // Every actor beats back to back while the registry is listed (the bucket holds them all first).
    for (const id of ids) await reg.heartbeat(id, { slots: 2, busy: 1, policyVersion: 1, rssBytes: 1, episodes: 0 }, Date.now());
    const beating = (async () => {
      while (!stop) {
        n++;
        await Promise.all(ids.map((id) => reg.heartbeat(id, { slots: 2, busy: n % 3, policyVersion: 1, rssBytes: 1, episodes: n }, Date.now())));
      }
    })();
    try {
      for (let i = 0; i < 30; i++) {
        const listed = (await reg.list()).map((a) => a.actorId).filter((id) => id.startsWith('beat-'));
        assert.deepEqual(listed, ids, `read ${i} after ${n} heartbeat rounds`);
      }
    } finally {
      stop = true;
      await beating;
    }
    for (const id of ids) await reg.remove(id);
  });

  void it('a key the pass over the stream does not reach is read directly: last values, each key once', async () => {
    const kv = await new Kvm(s.bus.js).open('owrl_blacklist');
    const keys = ['walk-a.test', 'walk-b.test', 'walk-c.test'].map((host) => encodeKvKey('host', host));
    for (const key of keys) await kv.put(key, `{"v":1}`);
    await kv.put(keys[1]!, `{"v":2}`);
    await kv.delete(keys[2]!);
    const read = async (walkTimeoutMs?: number) =>
      (await lastEntries(s.bus, 'owrl_blacklist', walkTimeoutMs))
        .filter((e) => keys.includes(e.key))
        .map((e) => [e.key, e.operation, new TextDecoder().decode(e.value)])
        .sort();
    const whole = await read();
    assert.deepEqual(
      whole.map(([, op, v]) => `${op} ${v}`),
      ['PUT {"v":1}', 'PUT {"v":2}', 'DEL '],
    );
    // No time for the pass at all (as under heavy load): the snapshot's keys are got one by one.
    assert.deepEqual(await read(0), whole);
    for (const key of keys) await kv.purge(key);
  });

  void it('opening a bucket that does not exist fails clearly', async () => {
    await s.bus.jsm.streams.delete('KV_owrl_blacklist');
    await assert.rejects(Blacklist.open(s.bus), (e: unknown) => isBusError(e, BusErrorCode.NotFound) && e.message.includes('owrl_blacklist'));
  });
});
