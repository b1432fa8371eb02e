// Typed wrappers over the KV buckets of the topology: the weights pointer (protobuf
// PolicyArtifact under `latest`), the actor registry (JSON heartbeats, bucket TTL drops silent
// actors) and the host blacklist (JSON entries with an expiry; bucket TTL bounds their life).
// JSON values are decoded field by field (kv-values.ts); a value that does not decode is logged
// with the field at fault and left out (a corrupt blacklist entry never blocks).
import { decode, encode, PolicyArtifactSchema, type PolicyArtifact } from '@owrl/proto';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { Logger } from '@owrl/core';
import type { BusContext } from './context.js';
import { BusError, BusErrorCode } from './errors.js';
import { decodeKvKey, encodeKvKey } from './kv-keys.js';
import { decodeActorRecord, decodeBlacklistEntry, HEARTBEAT_FIELDS, type ActorHeartbeat, type ActorRecord, type BlacklistEntry } from './kv-values.js';
import { errFields } from './logger.js';
import { KV_ACTORS, KV_BLACKLIST, KV_WEIGHTS, WEIGHTS_KEY } from './topology.js';

async function openBucket(ctx: BusContext, bucket: string): Promise<KV> {
  try {
    const kv = await new Kvm(ctx.js).open(bucket);
    await kv.status(); // binding is lazy: fail here, naming the bucket, when it is missing
    return kv;
  } catch (e) {
    throw new BusError(BusErrorCode.NotFound, `KV bucket ${bucket} is not available: run ensureTopology() first (${(e as Error).message})`, { cause: e });
  }
}

function kvFailed(what: string, e: unknown): BusError {
  return e instanceof BusError ? e : new BusError(BusErrorCode.ApiFailed, `${what}: ${(e as Error).message}`, { cause: e });
}

function isLive<E extends { operation: string }>(e: E | null): e is E {
  return e !== null && e.operation === 'PUT';
}

/** Longest a walk of a bucket's stream (lastEntries) goes on while keys keep being written or expiring. */
const LAST_VALUES_TIMEOUT_MS = 2000;

/** One key's last entry as lastEntries() reads it. */
export interface LastEntry {
  key: string;
  revision: number;
  value: Uint8Array;
  operation: 'PUT' | 'DEL' | 'PURGE';
}

/** Direct reads in flight at once for the keys a walk did not reach (lastEntries). */
const LAST_VALUES_GET_CONCURRENCY = 64;

/**
 * The last entry of every key of the bucket (deletes and purges included), in three steps:
 *   1. the keys, as one snapshot: stream info with a subjects filter (the server answers from its
 *      subject index at one instant);
 *   2. their values, in one pass over the bucket's stream instead of a get per key: a registry of N
 *      actors costs one consumer, not N round trips, on every fleet-view refresh. The stream holds
 *      one message per key (history 1, the buckets read here); a key written during the pass comes
 *      again further on and its newer revision wins. The pass ends at the snapshot's last
 *      sequence (or when nothing is pending, or after `walkTimeoutMs`);
 *   3. a direct get for each snapshot key the pass did not reach: a key rewritten ahead of the
 *      pass leaves its old place and lands behind the snapshot, so under steady writes the pass
 *      alone misses keys (seen in CI: one of three actors beating back to back listed).
 * So every key that exists from step 1 to the end is listed once, whatever is written meanwhile.
 * (last_per_subject delivery is not used: nats-server 2.9 delivered the first key's message once
 * for every key written during the read, and a KV watcher of last values built on it returned
 * some actors twice and others not at all while heartbeats were written.)
 */
export async function lastEntries(ctx: BusContext, bucket: string, walkTimeoutMs = LAST_VALUES_TIMEOUT_MS): Promise<LastEntry[]> {
  const stream = `KV_${bucket}`;
  const prefix = `$KV.${bucket}.`;
  const info = await ctx.jsm.streams.info(stream, { subjects_filter: `${prefix}>` });
  const subjects = Object.keys(info.state.subjects ?? {});
  if (subjects.length === 0) return [];
  const snapshotSeq = info.state.last_seq;
  const out = new Map<string, LastEntry>();
  const keep = (subject: string, seq: number, value: Uint8Array, op: string | undefined): void => {
    const key = subject.slice(prefix.length);
    const entry: LastEntry = { key, revision: seq, value, operation: op === 'DEL' || op === 'PURGE' ? op : 'PUT' };
    const had = out.get(key);
    if (!had || had.revision < entry.revision) out.set(key, entry);
  };
  const ci = await ctx.jsm.consumers.add(stream, {
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.All,
    filter_subject: `${prefix}>`,
    mem_storage: true,
    num_replicas: 1,
    // Removed below; the server drops it by itself if this client dies first.
    inactive_threshold: 30_000 * 1_000_000,
  });
  try {
    let pending = ci.num_pending;
    const consumer = await ctx.js.consumers.get(stream, ci.name);
    const deadline = Date.now() + walkTimeoutMs;
    let atSnapshot = false;
    // Entries expiring during the walk leave fewer than asked for: each fetch waits at most 1 s.
    while (pending > 0 && !atSnapshot && Date.now() < deadline) {
      const iter = await consumer.fetch({ max_messages: pending, expires: 1000 });
      let got = 0;
      for await (const m of iter) {
        got++;
        pending = m.info.pending;
        keep(m.subject, m.seq, m.data, m.headers?.get('KV-Operation'));
        atSnapshot = m.seq >= snapshotSeq;
        if (pending === 0 || atSnapshot) break;
      }
      if (got === 0) break;
    }
  } finally {
    await ctx.jsm.consumers.delete(stream, ci.name).catch(() => undefined);
  }
  const missed = subjects.filter((subject) => !out.has(subject.slice(prefix.length)));
  for (let i = 0; i < missed.length; i += LAST_VALUES_GET_CONCURRENCY) {
    await Promise.all(
      missed.slice(i, i + LAST_VALUES_GET_CONCURRENCY).map(async (subject) => {
        // null: deleted or expired since the snapshot, so no longer a key of the bucket
        const m = await ctx.jsm.streams.getMessage(stream, { last_by_subj: subject });
        if (m) keep(m.subject, m.seq, m.data, m.header?.get('KV-Operation'));
      }),
    );
  }
  return [...out.values()];
}

/** The pointer to the current policy artifact (KV owrl_weights, key `latest`). */
export class WeightsPointer {
  private constructor(
    private readonly kv: KV,
    private readonly log: Logger,
  ) {}

  static async open(ctx: BusContext): Promise<WeightsPointer> {
    return new WeightsPointer(await openBucket(ctx, KV_WEIGHTS), ctx.logger.child({ component: 'weights-pointer' }));
  }

  /** Publishes a new pointer; returns the KV revision. */
  async put(artifact: PolicyArtifact): Promise<number> {
    try {
      return await this.kv.put(WEIGHTS_KEY, encode(PolicyArtifactSchema, artifact));
    } catch (e) {
      throw kvFailed(`put ${KV_WEIGHTS}/${WEIGHTS_KEY}`, e);
    }
  }

  /** The current pointer, or null when none was published. @throws BusError BUS_UNDECODABLE. */
  async get(): Promise<PolicyArtifact | null> {
    let e: KvEntry | null;
    try {
      e = await this.kv.get(WEIGHTS_KEY);
    } catch (err) {
      throw kvFailed(`get ${KV_WEIGHTS}/${WEIGHTS_KEY}`, err);
    }
    return isLive(e) ? decodeArtifact(e) : null;
  }

  /**
   * Calls `onChange` with the current pointer (when there is one), then with every new one, one
   * call at a time. Undecodable values are logged and skipped. Returns a function that stops it.
   */
  async watch(onChange: (artifact: PolicyArtifact, revision: number) => void | Promise<void>): Promise<() => Promise<void>> {
    const iter = await this.kv.watch({ key: WEIGHTS_KEY, ignoreDeletes: true });
    const done = (async () => {
      for await (const e of iter) {
        if (e.operation !== 'PUT') continue;
        try {
          await onChange(decodeArtifact(e), e.revision);
        } catch (err) {
          this.log.error({ ...errFields(err), revision: e.revision }, 'weights pointer change not applied');
        }
      }
    })();
    return async () => {
      iter.stop();
      await done;
    };
  }
}

function decodeArtifact(e: KvEntry): PolicyArtifact {
  try {
    return decode(PolicyArtifactSchema, e.value);
  } catch (err) {
    throw new BusError(BusErrorCode.Undecodable, `${KV_WEIGHTS}/${e.key} revision ${e.revision}: ${(err as Error).message}`, { cause: err });
  }
}

/** Live actors (KV owrl_actors): each heartbeats; the bucket TTL (≈ 3 heartbeats) drops the silent. */
export class ActorRegistry {
  private readonly bucket = KV_ACTORS;

  private constructor(
    private readonly ctx: BusContext,
    private readonly kv: KV,
    private readonly log: Logger,
  ) {}

  static async open(ctx: BusContext): Promise<ActorRegistry> {
    return new ActorRegistry(ctx, await openBucket(ctx, KV_ACTORS), ctx.logger.child({ component: 'actor-registry' }));
  }

  /** Writes the actor's heartbeat. @throws BusError BUS_INVALID_ARGUMENT naming a bad field. */
  async heartbeat(actorId: string, hb: ActorHeartbeat, nowMs: number = Date.now()): Promise<void> {
    const key = encodeKvKey('actorId', actorId);
    for (const f of HEARTBEAT_FIELDS) {
      const v = hb[f];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
        throw new BusError(BusErrorCode.InvalidArgument, `heartbeat of ${actorId}: ${f}=${String(v)} must be a finite number >= 0`);
      }
    }
    if (hb.intervalMs !== undefined && !(Number.isInteger(hb.intervalMs) && hb.intervalMs >= 1)) {
      throw new BusError(BusErrorCode.InvalidArgument, `heartbeat of ${actorId}: intervalMs=${String(hb.intervalMs)} must be an integer >= 1`);
    }
    const rec: ActorRecord = { actorId, ...pick(hb), updatedAtMs: nowMs };
    try {
      await this.kv.put(key, JSON.stringify(rec));
    } catch (e) {
      throw kvFailed(`heartbeat ${actorId}`, e);
    }
  }

  /** Removes the actor (graceful shutdown). */
  async remove(actorId: string): Promise<void> {
    await this.kv.delete(encodeKvKey('actorId', actorId));
  }

  /** Actors whose last heartbeat is within the bucket TTL, sorted by id (values that do not decode are logged and left out). */
  async list(): Promise<ActorRecord[]> {
    const out: ActorRecord[] = [];
    for (const e of await lastEntries(this.ctx, this.bucket)) {
      if (!isLive(e)) continue;
      const key = e.key;
      try {
        out.push(decodeActorRecord({ bucket: KV_ACTORS, key, revision: e.revision }, decodeKvKey(key), e.value));
      } catch (err) {
        this.log.warn({ ...errFields(err), key }, 'actor heartbeat left out: not an actor record');
      }
    }
    return out.sort((a, b) => a.actorId.localeCompare(b.actorId));
  }
}

function pick(hb: ActorHeartbeat): ActorHeartbeat {
  return { slots: hb.slots, busy: hb.busy, policyVersion: hb.policyVersion, rssBytes: hb.rssBytes, episodes: hb.episodes, ...(hb.intervalMs !== undefined ? { intervalMs: hb.intervalMs } : {}) };
}

/** A blacklist entry blocks until `untilMs` (pure). */
export function isEntryBlocking(entry: BlacklistEntry | null, nowMs: number): boolean {
  return entry !== null && entry.untilMs > nowMs;
}

/** Host names are case-insensitive: keys use the lower-cased, trimmed form. */
export function normalizeHost(host: string): string {
  return typeof host === 'string' ? host.trim().toLowerCase() : host;
}

/** Hosts the scheduler and actors skip (KV owrl_blacklist). */
export class Blacklist {
  private readonly bucket = KV_BLACKLIST;

  private constructor(
    private readonly ctx: BusContext,
    private readonly kv: KV,
    private readonly log: Logger,
  ) {}

  static async open(ctx: BusContext): Promise<Blacklist> {
    return new Blacklist(ctx, await openBucket(ctx, KV_BLACKLIST), ctx.logger.child({ component: 'blacklist' }));
  }

  /** Lists `host` (host or host:port). @throws BusError BUS_INVALID_ARGUMENT naming a bad field. */
  async add(host: string, entry: BlacklistEntry): Promise<void> {
    const key = encodeKvKey('host', normalizeHost(host));
    if (typeof entry.reason !== 'string' || entry.reason.length === 0) {
      throw new BusError(BusErrorCode.InvalidArgument, `blacklist ${host}: reason ${JSON.stringify(entry.reason)} must be a non-empty string`);
    }
    if (!Number.isInteger(entry.failures) || entry.failures < 0) {
      throw new BusError(BusErrorCode.InvalidArgument, `blacklist ${host}: failures=${String(entry.failures)} must be an integer >= 0`);
    }
    if (!Number.isFinite(entry.untilMs)) {
      throw new BusError(BusErrorCode.InvalidArgument, `blacklist ${host}: untilMs=${String(entry.untilMs)} must be a finite time in ms`);
    }
    const value: BlacklistEntry = { reason: entry.reason, failures: entry.failures, untilMs: entry.untilMs };
    try {
      await this.kv.put(key, JSON.stringify(value));
    } catch (e) {
      throw kvFailed(`blacklist ${host}`, e);
    }
  }

  /** Unlists `host`; returns whether it was listed (expired entries included). */
  async remove(host: string): Promise<boolean> {
    const key = encodeKvKey('host', normalizeHost(host));
    try {
      if (!isLive(await this.kv.get(key))) return false;
      await this.kv.delete(key);
      return true;
    } catch (e) {
      throw kvFailed(`unlist ${host}`, e);
    }
  }

  async get(host: string): Promise<BlacklistEntry | null> {
    let e: KvEntry | null;
    try {
      e = await this.kv.get(encodeKvKey('host', normalizeHost(host)));
    } catch (err) {
      throw kvFailed(`get ${KV_BLACKLIST} ${host}`, err);
    }
    return isLive(e) ? this.parseEntry(e) : null;
  }

  /** Whether `host` is listed with `untilMs` after `nowMs` (expired entries do not block). */
  async isBlocked(host: string, nowMs: number = Date.now()): Promise<boolean> {
    return isEntryBlocking(await this.get(host), nowMs);
  }

  /** All entries, expired ones included (see isEntryBlocking), sorted by host. */
  async list(): Promise<Array<BlacklistEntry & { host: string }>> {
    const out: Array<BlacklistEntry & { host: string }> = [];
    try {
      for (const e of await lastEntries(this.ctx, this.bucket)) {
        const host = hostOfKey(e.key);
        const entry = host !== null && isLive(e) ? this.parseEntry(e) : null;
        if (host !== null && entry) out.push({ ...entry, host });
      }
    } catch (err) {
      throw kvFailed(`list ${KV_BLACKLIST}`, err);
    }
    return out.sort((a, b) => a.host.localeCompare(b.host));
  }

  /** Hosts blocked at `nowMs`, for one-shot filtering of a task pool. */
  async blockedHosts(nowMs: number = Date.now()): Promise<Set<string>> {
    return new Set((await this.list()).filter((e) => isEntryBlocking(e, nowMs)).map((e) => e.host));
  }

  /** A stored entry, or null (logged) when the value is not one: foreign or corrupt values never block. */
  private parseEntry(e: Pick<KvEntry, 'key' | 'revision' | 'value'>): BlacklistEntry | null {
    try {
      return decodeBlacklistEntry({ bucket: KV_BLACKLIST, key: e.key, revision: e.revision }, e.value);
    } catch (err) {
      this.log.warn({ ...errFields(err), key: e.key }, 'blacklist entry ignored: not a blacklist entry');
      return null;
    }
  }

  /** The bucket TTL in ms: the server drops any entry this long after it was written, whatever its `untilMs`. */
  async bucketTtlMs(): Promise<number> {
    try {
      return (await this.kv.status()).ttl;
    } catch (e) {
      throw kvFailed(`status of ${KV_BLACKLIST}`, e);
    }
  }
}

/** The host a key encodes, or null for a key that is not an encoded host (written by something else). */
function hostOfKey(key: string): string | null {
  try {
    return decodeKvKey(key);
  } catch {
    return null;
  }
}

/**
 * Blacklist look-ups for hot paths (an actor before each episode, the learner before each
 * re-dispatch): each host's entry is read from KV at most once per `ttlMs`; concurrent look-ups
 * of one host share a read. `note()` records an entry the caller just wrote, so its own additions
 * take effect at once.
 */
export class BlacklistCache {
  private readonly entries = new Map<string, { entry: BlacklistEntry | null; readAtMs: number; seq: number }>();
  private readonly reading = new Map<string, Promise<BlacklistEntry | null>>();
  private seq = 0;

  constructor(
    private readonly blacklist: Blacklist,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {
    if (!Number.isFinite(ttlMs) || ttlMs < 0) throw new BusError(BusErrorCode.InvalidArgument, `blacklist cache ttlMs=${String(ttlMs)} must be a finite number >= 0`);
  }

  /** The entry of `host` (possibly expired), at most `ttlMs` old. @throws BusError when KV cannot be read. */
  async entry(host: string): Promise<BlacklistEntry | null> {
    const key = normalizeHost(host);
    const hit = this.entries.get(key);
    if (hit && this.clock() - hit.readAtMs < this.ttlMs) return hit.entry;
    const pending = this.reading.get(key);
    if (pending) return pending;
    const seq = ++this.seq;
    const read = this.blacklist.get(key).then((entry) => {
      // a note() made while reading is newer than what the read returns
      if ((this.entries.get(key)?.seq ?? 0) < seq) this.entries.set(key, { entry, readAtMs: this.clock(), seq });
      const cur = this.entries.get(key);
      return cur ? cur.entry : entry;
    });
    this.reading.set(key, read);
    try {
      return await read;
    } finally {
      this.reading.delete(key);
    }
  }

  /** Whether `host` is blocked now (see isEntryBlocking). */
  async isBlocked(host: string): Promise<boolean> {
    return isEntryBlocking(await this.entry(host), this.clock());
  }

  /** Records an entry the caller wrote to (or removed from, with null) the blacklist. */
  note(host: string, entry: BlacklistEntry | null): void {
    this.entries.set(normalizeHost(host), { entry, readAtMs: this.clock(), seq: ++this.seq });
  }
}
