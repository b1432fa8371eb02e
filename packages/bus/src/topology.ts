// The JetStream topology of owrl (docs/design.md §4) in one place: stream, consumer and KV bucket names,
// subject helpers, the desired configuration resolved from options (pure), and ensureTopology(),
// which creates or updates all of it idempotently; every service calls it at start.
import { type JetStreamManager, type ConsumerConfig, type StreamConfig, AckPolicy, DeliverPolicy, DiscardPolicy, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { DEFAULTS, silentLogger, type Logger } from '@owrl/core';
import { BusError, BusErrorCode } from './errors.js';
import { ensureConsumer, ensureKvBucket, ensureStream, type KvBucketSpec } from './jsm-ensure.js';

export const STREAM_TASKS = 'OWRL_TASKS';
export const STREAM_TRAJ = 'OWRL_TRAJ';
export const STREAM_SCORED = 'OWRL_SCORED';
export const STREAM_DLQ = 'OWRL_DLQ';
/** Captures the server's max-deliveries advisories so the DLQ mover loses none while it is down. */
export const STREAM_ADVISORIES = 'OWRL_ADVISORIES';
/** Content-addressed screenshots (one message per `owrl.shots.<sha256>`), apart from trajectories. */
export const STREAM_SHOTS = 'OWRL_SHOTS';

export const CONSUMER_ACTORS = 'actors';
export const CONSUMER_JUDGE = 'judge';
export const CONSUMER_LEARNER = 'learner';

export const KV_WEIGHTS = 'owrl_weights';
export const KV_BLACKLIST = 'owrl_blacklist';
export const KV_ACTORS = 'owrl_actors';
/** Key of the current policy artifact in {@link KV_WEIGHTS}. */
export const WEIGHTS_KEY = 'latest';

export const SUBJECT_TASKS = 'owrl.tasks';
export const SUBJECT_TRAJ = 'owrl.traj';
export const SUBJECT_SCORED = 'owrl.scored';
export const SUBJECT_DLQ = 'owrl.dlq';
export const SUBJECT_SHOTS = 'owrl.shots';
export const MAX_DELIVERIES_ADVISORY = '$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES';

/** The work streams and their durable consumers whose exhausted messages the DLQ mover handles. */
export const WORK_CONSUMERS: ReadonlyArray<{ stream: string; consumer: string }> = [
  { stream: STREAM_TASKS, consumer: CONSUMER_ACTORS },
  { stream: STREAM_TRAJ, consumer: CONSUMER_JUDGE },
  { stream: STREAM_SCORED, consumer: CONSUMER_LEARNER },
];

const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Checks that `value` can be one subject token: letters, digits, `_` and `-` only (no dots,
 * spaces or wildcards), 1–128 characters.
 * @throws BusError BUS_INVALID_ARGUMENT naming `field` and the value.
 */
export function validateSubjectToken(field: string, value: string): string {
  if (typeof value !== 'string' || !TOKEN.test(value)) {
    throw new BusError(
      BusErrorCode.InvalidArgument,
      `${field} ${JSON.stringify(value)} is not a valid subject token: use 1-128 letters, digits, '_' or '-' (no dots, spaces or wildcards)`,
    );
  }
  return value;
}

/** `owrl.tasks.<runId>`: where the learner publishes rollout requests of a run. */
export function taskSubject(runId: string): string {
  return `${SUBJECT_TASKS}.${validateSubjectToken('runId', runId)}`;
}

/** `owrl.traj.<runId>`: where actors publish trajectories. */
export function trajSubject(runId: string): string {
  return `${SUBJECT_TRAJ}.${validateSubjectToken('runId', runId)}`;
}

/** `owrl.scored.<runId>`: where the judge publishes scored trajectories. */
export function scoredSubject(runId: string): string {
  return `${SUBJECT_SCORED}.${validateSubjectToken('runId', runId)}`;
}

/** `owrl.dlq.<kind>`, e.g. kind `tasks` for dead rollout requests. */
export function dlqSubject(kind: string): string {
  return `${SUBJECT_DLQ}.${validateSubjectToken('kind', kind)}`;
}

/** DLQ kind of a stream: `OWRL_TASKS` → `tasks`; other names lower-cased, odd characters → `_`. */
export function dlqKindForStream(stream: string): string {
  const base = stream.startsWith('OWRL_') ? stream.slice('OWRL_'.length) : stream;
  const kind = base.toLowerCase().replace(/[^a-z0-9_-]/g, '_');
  return kind.length > 0 ? kind.slice(0, 128) : 'unknown';
}

/** Subject of the server advisory emitted when a message of `stream`/`consumer` exhausts max_deliver. */
export function maxDeliveriesAdvisorySubject(stream: string, consumer: string): string {
  return `${MAX_DELIVERIES_ADVISORY}.${stream}.${consumer}`;
}

/** Durable consumer on {@link STREAM_ADVISORIES} that the DLQ mover of `stream`/`consumer` reads. */
export function dlqMoverConsumerName(stream: string, consumer: string): string {
  return `dlq_mover_${stream}_${consumer}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

export interface TopologyOptions {
  /** OWRL_TASKS capacity; publishing beyond it is refused. Default 100000. */
  tasksMaxMsgs?: number;
  /** OWRL_TASKS byte capacity; default -1 (unlimited). */
  tasksMaxBytes?: number;
  /** Deduplication window of the streams (Nats-Msg-Id). Default 2 min. */
  duplicateWindowMs?: number;
  /** Redeliveries before a message is dead-lettered, for all work consumers. Default 4. */
  maxDeliver?: number;
  /** ack_wait of `actors`; actors send working() well within it. Default 60 s. */
  actorsAckWaitMs?: number;
  /** max_ack_pending of `actors`: at least the total number of browser slots. Default 256. */
  actorsMaxAckPending?: number;
  /** ack_wait of `judge`. Default 60 s. */
  judgeAckWaitMs?: number;
  /** max_ack_pending of `judge`. Default 1024. */
  judgeMaxAckPending?: number;
  /** ack_wait of `learner`: must outlast an update cycle (it acks after checkpointing). Default 30 min. */
  learnerAckWaitMs?: number;
  /** max_ack_pending of `learner`. Default 20000. */
  learnerMaxAckPending?: number;
  /** max_age of OWRL_TRAJ and OWRL_SCORED. Default 7 days. */
  retentionMs?: number;
  /** max_age of OWRL_DLQ. Default 30 days. */
  dlqRetentionMs?: number;
  /** max_age of OWRL_SHOTS (screenshot retention). Default 7 days. */
  shotsRetentionMs?: number;
  /** Byte capacity of OWRL_SHOTS; the oldest screenshots go first. Default 2 GiB. */
  shotsMaxBytes?: number;
  /** History kept by KV owrl_weights. Default 5. */
  weightsHistory?: number;
  /** Bucket TTL of KV owrl_blacklist. Default 1 h. */
  blacklistTtlMs?: number;
  /** Bucket TTL of KV owrl_actors (≈ 3 heartbeats). Default 30 s. */
  actorsTtlMs?: number;
  /** Storage of all streams; default file (memory is for throwaway tests only). */
  storage?: 'file' | 'memory';
  logger?: Logger;
}

/** The topology with every option filled in: what ensureTopology() converges the server to. */
export interface ResolvedTopology {
  streams: Array<Partial<StreamConfig> & { name: string }>;
  consumers: Array<{ stream: string; config: Partial<ConsumerConfig> & { durable_name: string } }>;
  buckets: KvBucketSpec[];
}

const MS = 1_000_000; // nanoseconds per millisecond
const DAY_MS = 24 * 3600 * 1000;

function positiveInt(field: string, v: number | undefined, def: number, opts: { allowMinusOne?: boolean; min?: number } = {}): number {
  if (v === undefined) return def;
  const min = opts.min ?? 1;
  if (!Number.isInteger(v) || (v < min && !(opts.allowMinusOne && v === -1))) {
    throw new BusError(BusErrorCode.InvalidArgument, `topology option ${field}=${String(v)} must be an integer >= ${min}${opts.allowMinusOne ? ' or -1' : ''}`);
  }
  return v;
}

/** Fills in defaults and validates options (pure). @throws BusError BUS_INVALID_ARGUMENT. */
export function resolveTopology(opts: TopologyOptions = {}): ResolvedTopology {
  const storage = opts.storage === 'memory' ? StorageType.Memory : StorageType.File;
  if (opts.storage !== undefined && opts.storage !== 'file' && opts.storage !== 'memory') {
    throw new BusError(BusErrorCode.InvalidArgument, `topology option storage=${JSON.stringify(opts.storage)} must be 'file' or 'memory'`);
  }
  const dupMs = positiveInt('duplicateWindowMs', opts.duplicateWindowMs, 120_000, { min: 1000 });
  const maxDeliver = positiveInt('maxDeliver', opts.maxDeliver, DEFAULTS.maxDeliver);
  const retentionMs = positiveInt('retentionMs', opts.retentionMs, 7 * DAY_MS, { min: dupMs });
  const dlqRetentionMs = positiveInt('dlqRetentionMs', opts.dlqRetentionMs, 30 * DAY_MS, { min: dupMs });
  const shotsRetentionMs = positiveInt('shotsRetentionMs', opts.shotsRetentionMs, 7 * DAY_MS, { min: dupMs });
  const shotsMaxBytes = positiveInt('shotsMaxBytes', opts.shotsMaxBytes, 2 * 1024 ** 3, { allowMinusOne: true, min: 1024 * 1024 });
  const dup = dupMs * MS;

  const streams: ResolvedTopology['streams'] = [
    {
      name: STREAM_TASKS,
      subjects: [`${SUBJECT_TASKS}.>`],
      retention: RetentionPolicy.Workqueue,
      storage,
      discard: DiscardPolicy.New,
      max_msgs: positiveInt('tasksMaxMsgs', opts.tasksMaxMsgs, 100_000),
      max_bytes: positiveInt('tasksMaxBytes', opts.tasksMaxBytes, -1, { allowMinusOne: true }),
      duplicate_window: dup,
    },
    {
      name: STREAM_TRAJ,
      subjects: [`${SUBJECT_TRAJ}.>`],
      retention: RetentionPolicy.Limits,
      storage,
      discard: DiscardPolicy.Old,
      max_age: retentionMs * MS,
      duplicate_window: dup,
    },
    {
      name: STREAM_SCORED,
      subjects: [`${SUBJECT_SCORED}.>`],
      retention: RetentionPolicy.Limits,
      storage,
      discard: DiscardPolicy.Old,
      max_age: retentionMs * MS,
      duplicate_window: dup,
      // The learner reads a held result's steps back by sequence (services/learner/src/stream-steps.ts).
      allow_direct: true,
    },
    {
      name: STREAM_DLQ,
      subjects: [`${SUBJECT_DLQ}.>`],
      retention: RetentionPolicy.Limits,
      storage,
      discard: DiscardPolicy.Old,
      max_age: dlqRetentionMs * MS,
      duplicate_window: dup,
    },
    {
      name: STREAM_ADVISORIES,
      subjects: [`${MAX_DELIVERIES_ADVISORY}.>`],
      retention: RetentionPolicy.Limits,
      storage,
      discard: DiscardPolicy.Old,
      max_age: retentionMs * MS,
      duplicate_window: dup,
    },
    {
      // One message per image (the subject names its sha256), so storing the same picture twice
      // keeps one copy; age and bytes bound what is kept, oldest first.
      name: STREAM_SHOTS,
      subjects: [`${SUBJECT_SHOTS}.*`],
      retention: RetentionPolicy.Limits,
      storage,
      discard: DiscardPolicy.Old,
      max_age: shotsRetentionMs * MS,
      max_bytes: shotsMaxBytes,
      max_msgs_per_subject: 1,
      duplicate_window: dup,
    },
  ];

  const work = (stream: string, name: string, ackWaitMs: number, maxAckPending: number) => ({
    stream,
    config: {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: ackWaitMs * MS,
      max_deliver: maxDeliver,
      max_ack_pending: maxAckPending,
    },
  });
  const consumers: ResolvedTopology['consumers'] = [
    work(
      STREAM_TASKS,
      CONSUMER_ACTORS,
      positiveInt('actorsAckWaitMs', opts.actorsAckWaitMs, DEFAULTS.ackWaitMs, { min: 1000 }),
      positiveInt('actorsMaxAckPending', opts.actorsMaxAckPending, 256),
    ),
    work(
      STREAM_TRAJ,
      CONSUMER_JUDGE,
      positiveInt('judgeAckWaitMs', opts.judgeAckWaitMs, DEFAULTS.ackWaitMs, { min: 1000 }),
      positiveInt('judgeMaxAckPending', opts.judgeMaxAckPending, 1024),
    ),
    work(
      STREAM_SCORED,
      CONSUMER_LEARNER,
      positiveInt('learnerAckWaitMs', opts.learnerAckWaitMs, 30 * 60_000, { min: 1000 }),
      positiveInt('learnerMaxAckPending', opts.learnerMaxAckPending, 20_000),
    ),
    ...WORK_CONSUMERS.map((w) => dlqMoverConsumer(w.stream, w.consumer)),
  ];

  const buckets: KvBucketSpec[] = [
    { bucket: KV_WEIGHTS, history: positiveInt('weightsHistory', opts.weightsHistory, 5), ttlMs: 0, storage },
    { bucket: KV_BLACKLIST, history: 1, ttlMs: positiveInt('blacklistTtlMs', opts.blacklistTtlMs, 3600_000, { min: 1000 }), storage },
    { bucket: KV_ACTORS, history: 1, ttlMs: positiveInt('actorsTtlMs', opts.actorsTtlMs, 30_000, { min: 1000 }), storage },
  ];
  return { streams, consumers, buckets };
}

/** Consumer config of the DLQ mover of `stream`/`consumer` on {@link STREAM_ADVISORIES}. */
export function dlqMoverConsumer(stream: string, consumer: string): ResolvedTopology['consumers'][number] {
  return {
    stream: STREAM_ADVISORIES,
    config: {
      durable_name: dlqMoverConsumerName(stream, consumer),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: maxDeliveriesAdvisorySubject(stream, consumer),
      ack_wait: 30_000 * MS,
      max_deliver: -1,
      max_ack_pending: 64,
    },
  };
}

/** Durable name of the learner consumer of run `runId` on OWRL_SCORED: `learner_<runId>`. */
export function learnerConsumerName(runId: string): string {
  return `${CONSUMER_LEARNER}_${validateSubjectToken('runId', runId)}`;
}

export interface LearnerConsumerOptions {
  /** ack_wait; the learner sends working() on every message it holds well within it. Default 60 s. */
  ackWaitMs?: number;
  /** max_ack_pending. Default 20000. */
  maxAckPending?: number;
}

/**
 * The learner consumer of one run: filtered on `owrl.scored.<runId>`, so two runs on one
 * JetStream never see (or ack) each other's scored trajectories; unlimited deliveries, because a
 * scored trajectory is held unacked until the update that used it is checkpointed and may come
 * back after every learner restart (pure).
 */
export function learnerConsumer(runId: string, opts: LearnerConsumerOptions = {}): ResolvedTopology['consumers'][number] {
  return {
    stream: STREAM_SCORED,
    config: {
      durable_name: learnerConsumerName(runId),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: scoredSubject(runId),
      ack_wait: positiveInt('ackWaitMs', opts.ackWaitMs, 60_000, { min: 1000 }) * MS,
      max_deliver: -1,
      max_ack_pending: positiveInt('maxAckPending', opts.maxAckPending, 20_000),
    },
  };
}

/** Creates or updates the learner consumer of run `runId` (see {@link learnerConsumer}); returns its name. */
export async function ensureLearnerConsumer(target: { jsm: JetStreamManager } | JetStreamManager, runId: string, opts: LearnerConsumerOptions & { logger?: Logger } = {}): Promise<string> {
  const jsm = 'jsm' in target ? target.jsm : target;
  const c = learnerConsumer(runId, opts);
  await ensureConsumer(jsm, c.stream, c.config, (opts.logger ?? silentLogger).child({ component: 'topology' }));
  return c.config.durable_name;
}

/**
 * Creates or updates every stream, consumer and KV bucket of the topology (create-or-update; safe
 * to call concurrently from every service at start). Settings that the server cannot change on
 * an existing stream or consumer (retention, storage, ack policy) raise BUS_TOPOLOGY_CONFLICT.
 * @param target a Bus (anything with `jsm`) or a JetStreamManager.
 */
export async function ensureTopology(target: { jsm: JetStreamManager } | JetStreamManager, opts: TopologyOptions = {}): Promise<ResolvedTopology> {
  const jsm = 'jsm' in target ? target.jsm : target;
  const log = (opts.logger ?? silentLogger).child({ component: 'topology' });
  const topo = resolveTopology(opts);
  await Promise.all(topo.streams.map((s) => ensureStream(jsm, s, log)));
  await Promise.all(topo.consumers.map((c) => ensureConsumer(jsm, c.stream, c.config, log)));
  const js = jsm.jetstream();
  await Promise.all(topo.buckets.map((b) => ensureKvBucket(js, jsm, b, log)));
  return topo;
}
