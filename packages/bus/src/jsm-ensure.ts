// Create-or-update of one stream, one durable consumer or one KV bucket: converges the server to
// a desired configuration, tolerating concurrent callers (a lost creation race becomes an update)
// and refusing to silently keep a setting the server cannot change.
import { type ConsumerConfig, type ConsumerInfo, type JetStreamClient, type JetStreamManager, type StreamConfig, type StreamInfo, JetStreamApiError } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { Logger } from '@owrl/core';
import { BusError, BusErrorCode } from './errors.js';
import { errFields } from './logger.js';

const STREAM_NOT_FOUND = 10059;
const CONSUMER_NOT_FOUND = 10014;
const STREAM_NAME_IN_USE = 10058;
const CONSUMER_ALREADY_EXISTS = 10148; // 2.10+, when action=create meets a different config
const MS = 1_000_000;

export interface KvBucketSpec {
  bucket: string;
  history: number;
  /** Bucket TTL (max_age) in ms; 0 = none. */
  ttlMs: number;
  storage: 'file' | 'memory';
}

function apiCode(e: unknown): number | undefined {
  return e instanceof JetStreamApiError ? e.code : undefined;
}

function apiFailed(what: string, e: unknown): BusError {
  return new BusError(BusErrorCode.ApiFailed, `${what}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');
  }
  return a === b;
}

/** Keys of `desired` whose value differs in `actual`. */
export function configDiff(actual: object, desired: object): string[] {
  const a = actual as Record<string, unknown>;
  return Object.entries(desired)
    .filter(([k, v]) => v !== undefined && !sameValue(a[k], v))
    .map(([k]) => k);
}

const STREAM_IMMUTABLE = ['retention', 'storage'] as const;
const CONSUMER_IMMUTABLE = ['ack_policy', 'deliver_policy'] as const;

async function streamInfoOrNull(jsm: JetStreamManager, name: string): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(name);
  } catch (e) {
    if (apiCode(e) === STREAM_NOT_FOUND) return null;
    throw apiFailed(`stream info ${name}`, e);
  }
}

async function consumerInfoOrNull(jsm: JetStreamManager, stream: string, name: string): Promise<ConsumerInfo | null> {
  try {
    return await jsm.consumers.info(stream, name);
  } catch (e) {
    if (apiCode(e) === CONSUMER_NOT_FOUND) return null;
    throw apiFailed(`consumer info ${stream}/${name}`, e);
  }
}

/** Creates the stream or updates it to `desired`. @throws BusError BUS_TOPOLOGY_CONFLICT, BUS_API_FAILED. */
export async function ensureStream(jsm: JetStreamManager, desired: Partial<StreamConfig> & { name: string }, log: Logger): Promise<StreamInfo> {
  for (let attempt = 0; ; attempt++) {
    const info = await streamInfoOrNull(jsm, desired.name);
    if (info === null) {
      try {
        const created = await jsm.streams.add({ ...desired });
        log.info({ stream: desired.name }, 'stream created');
        return created;
      } catch (e) {
        // Another service created it first (with other options): converge by updating.
        if (apiCode(e) === STREAM_NAME_IN_USE && attempt < 3) continue;
        throw apiFailed(`create stream ${desired.name}`, e);
      }
    }
    const diff = configDiff(info.config, desired);
    if (diff.length === 0) return info;
    const fixed = STREAM_IMMUTABLE.filter((k) => diff.includes(k));
    if (fixed.length > 0) {
      throw new BusError(
        BusErrorCode.TopologyConflict,
        `stream ${desired.name} exists with ${fixed.map((k) => `${k}=${String(info.config[k])}`).join(', ')}, wanted ${fixed
          .map((k) => `${k}=${String(desired[k])}`)
          .join(', ')}; these cannot be updated: delete the stream or change the options`,
      );
    }
    const { name: _name, retention: _r, storage: _s, ...update } = desired;
    try {
      const updated = await jsm.streams.update(desired.name, update);
      log.info({ stream: desired.name, changed: diff }, 'stream updated');
      return updated;
    } catch (e) {
      throw apiFailed(`update stream ${desired.name} (${diff.join(', ')})`, e);
    }
  }
}

/** Creates the durable consumer or updates it to `desired`. @throws BusError BUS_TOPOLOGY_CONFLICT, BUS_API_FAILED. */
export async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  desired: Partial<ConsumerConfig> & { durable_name: string },
  log: Logger,
): Promise<ConsumerInfo> {
  const name = desired.durable_name;
  for (let attempt = 0; ; attempt++) {
    const info = await consumerInfoOrNull(jsm, stream, name);
    if (info === null) {
      try {
        const created = await jsm.consumers.add(stream, { ...desired });
        log.info({ stream, consumer: name }, 'consumer created');
        return created;
      } catch (e) {
        if (apiCode(e) === CONSUMER_ALREADY_EXISTS && attempt < 3) continue;
        throw apiFailed(`create consumer ${stream}/${name}`, e);
      }
    }
    const diff = configDiff(info.config, desired);
    if (diff.length === 0) return info;
    const fixed = CONSUMER_IMMUTABLE.filter((k) => diff.includes(k));
    if (fixed.length > 0 || diff.includes('filter_subject')) {
      const keys = [...fixed, ...(diff.includes('filter_subject') ? ['filter_subject' as const] : [])];
      throw new BusError(
        BusErrorCode.TopologyConflict,
        `consumer ${stream}/${name} exists with ${keys.map((k) => `${k}=${String(info.config[k])}`).join(', ')}, wanted ${keys
          .map((k) => `${k}=${String(desired[k])}`)
          .join(', ')}; delete the consumer or change the options`,
      );
    }
    const { durable_name: _d, ack_policy: _a, deliver_policy: _p, filter_subject: _f, ...update } = desired;
    try {
      const updated = await jsm.consumers.update(stream, name, update);
      log.info({ stream, consumer: name, changed: diff }, 'consumer updated');
      return updated;
    } catch (e) {
      throw apiFailed(`update consumer ${stream}/${name} (${diff.join(', ')})`, e);
    }
  }
}

/** Creates the KV bucket, or updates its history and TTL when they differ. */
export async function ensureKvBucket(js: JetStreamClient, jsm: JetStreamManager, spec: KvBucketSpec, log: Logger): Promise<void> {
  const kvm = new Kvm(js);
  try {
    await kvm.create(spec.bucket, { history: spec.history, ttl: spec.ttlMs, storage: spec.storage });
  } catch (e) {
    // Kvm.create races like any stream creation; the bucket then exists and is checked below.
    if (apiCode(e) !== STREAM_NAME_IN_USE) throw apiFailed(`create KV bucket ${spec.bucket}`, e);
    log.debug({ bucket: spec.bucket, ...errFields(e) }, 'KV bucket created concurrently');
  }
  const stream = `KV_${spec.bucket}`;
  const info = await streamInfoOrNull(jsm, stream);
  if (info === null) throw new BusError(BusErrorCode.NotFound, `KV bucket ${spec.bucket} vanished while being created`);
  const want = { max_msgs_per_subject: spec.history, max_age: spec.ttlMs * MS };
  const diff = configDiff(info.config, want);
  if (diff.length === 0) return;
  const update: Partial<StreamConfig> = { ...want };
  // The server requires duplicate_window <= max_age.
  if (spec.ttlMs > 0 && info.config.duplicate_window > spec.ttlMs * MS) update.duplicate_window = spec.ttlMs * MS;
  try {
    await jsm.streams.update(stream, update);
    log.info({ bucket: spec.bucket, changed: diff }, 'KV bucket updated');
  } catch (e) {
    throw apiFailed(`update KV bucket ${spec.bucket} (${diff.join(', ')})`, e);
  }
}
