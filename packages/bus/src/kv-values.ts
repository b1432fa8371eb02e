// Decoding of the JSON values of the KV buckets (actor heartbeats, blacklist entries): every field
// is checked, and a value that is not what the writer writes is refused with BUS_UNDECODABLE
// naming the bucket, the key and the field, instead of being cast into a record.
import { BusError, BusErrorCode } from './errors.js';

/** Where a value came from, for messages: `owrl_blacklist/<key> revision 7`. */
export interface KvValueOrigin {
  bucket: string;
  key: string;
  revision: number;
}

export interface ActorHeartbeat {
  /** Browser slots of the actor. */
  slots: number;
  /** Slots running an episode now. */
  busy: number;
  /** Policy version the actor runs. */
  policyVersion: number;
  /** Resident memory of the actor and its browsers, bytes. */
  rssBytes: number;
  /** Episodes finished since start. */
  episodes: number;
  /**
   * How often the actor writes its heartbeat, ms: a reader leaves the actor out once
   * HEARTBEATS_MISSED of them are missing. Absent (older actors): the reader's own timeout.
   */
  intervalMs?: number;
}

/** Heartbeats an actor may miss before a reader that knows its interval leaves it out. */
export const HEARTBEATS_MISSED = 3;

export interface ActorRecord extends ActorHeartbeat {
  actorId: string;
  /** When the heartbeat was written (ms since epoch, writer's clock). */
  updatedAtMs: number;
}

export interface BlacklistEntry {
  /** Why the host is listed (e.g. `bot_wall`, `init_error:dns`). */
  reason: string;
  /** Failures that led to it. */
  failures: number;
  /** Blocked until this time (ms since epoch); the bucket TTL may drop the entry earlier. */
  untilMs: number;
}

export const HEARTBEAT_FIELDS = ['slots', 'busy', 'policyVersion', 'rssBytes', 'episodes'] as const;

function where(o: KvValueOrigin): string {
  return `${o.bucket}/${o.key} revision ${o.revision}`;
}

function undecodable(o: KvValueOrigin, what: string): BusError {
  return new BusError(BusErrorCode.Undecodable, `${where(o)}: ${what}`);
}

function jsonObject(o: KvValueOrigin, value: Uint8Array): Record<string, unknown> {
  const text = new TextDecoder().decode(value);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw undecodable(o, `${JSON.stringify(text.slice(0, 80))} is not JSON (${(e as Error).message})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw undecodable(o, `${JSON.stringify(text.slice(0, 80))} is not a JSON object`);
  return v as Record<string, unknown>;
}

function finite(o: KvValueOrigin, obj: Record<string, unknown>, field: string, opts: { min?: number; integer?: boolean } = {}): number {
  const v = obj[field];
  const ok = typeof v === 'number' && Number.isFinite(v) && (opts.min === undefined || v >= opts.min) && (!opts.integer || Number.isInteger(v));
  if (!ok) {
    const want = `${opts.integer ? 'an integer' : 'a finite number'}${opts.min !== undefined ? ` >= ${opts.min}` : ''}`;
    throw undecodable(o, `${field}=${v === undefined ? 'missing' : JSON.stringify(v)} must be ${want}`);
  }
  return v;
}

/** The heartbeat stored under an actor's key; the id is the key's. @throws BusError BUS_UNDECODABLE naming the field. */
export function decodeActorRecord(o: KvValueOrigin, actorId: string, value: Uint8Array): ActorRecord {
  const obj = jsonObject(o, value);
  return {
    actorId,
    slots: finite(o, obj, 'slots', { min: 0, integer: true }),
    busy: finite(o, obj, 'busy', { min: 0, integer: true }),
    policyVersion: finite(o, obj, 'policyVersion', { min: 0, integer: true }),
    rssBytes: finite(o, obj, 'rssBytes', { min: 0 }),
    episodes: finite(o, obj, 'episodes', { min: 0, integer: true }),
    ...(obj['intervalMs'] !== undefined ? { intervalMs: finite(o, obj, 'intervalMs', { min: 1, integer: true }) } : {}),
    updatedAtMs: finite(o, obj, 'updatedAtMs'),
  };
}

/** A stored blacklist entry. @throws BusError BUS_UNDECODABLE naming the field. */
export function decodeBlacklistEntry(o: KvValueOrigin, value: Uint8Array): BlacklistEntry {
  const obj = jsonObject(o, value);
  const reason = obj['reason'];
  if (typeof reason !== 'string' || reason === '') throw undecodable(o, `reason=${reason === undefined ? 'missing' : JSON.stringify(reason)} must be a non-empty string`);
  return { reason, failures: finite(o, obj, 'failures', { min: 0, integer: true }), untilMs: finite(o, obj, 'untilMs') };
}
