// @owrl/bus: the NATS JetStream layer of owrl (docs/design.md §4): topology, typed publish/consume with
// dedupe, working() and dead-lettering, the DLQ mover, and typed KV wrappers.
export {
  BusError,
  BusErrorCode,
  isBrokerUnavailable,
  isBusError,
  isNotFound,
  isPublishRefused,
  isRetryableBusError,
} from './errors.js';
export { silentLogger, type Logger } from './logger.js';
export {
  CONSUMER_ACTORS,
  CONSUMER_JUDGE,
  CONSUMER_LEARNER,
  KV_ACTORS,
  KV_BLACKLIST,
  KV_WEIGHTS,
  STREAM_ADVISORIES,
  STREAM_DLQ,
  STREAM_SCORED,
  STREAM_SHOTS,
  STREAM_TASKS,
  STREAM_TRAJ,
  SUBJECT_SCORED,
  dlqKindForStream,
  dlqSubject,
  ensureLearnerConsumer,
  ensureTopology,
  learnerConsumer,
  learnerConsumerName,
  resolveTopology,
  scoredSubject,
  taskSubject,
  trajSubject,
  type LearnerConsumerOptions,
  type ResolvedTopology,
  type TopologyOptions,
} from './topology.js';
export { Bus, connectBus, type ConnectBusOptions, type ConsumerLag } from './bus.js';
export {
  readNatsSettings,
  describeNatsSettings,
  redactUrl,
  DEFAULT_NATS_URL,
  type NatsAuth,
  type NatsSettings,
} from './nats-settings.js';
export type { BusContext } from './context.js';
export type { PublishOptions, PublishResult } from './publish.js';
export {
  nakDelayMs,
  DEFAULT_NAK_BACKOFF_MS,
  type ConsumeOptions,
  type ConsumeHandle,
  type ConsumeStats,
} from './consume.js';
export type { Delivery } from './delivery.js';
export {
  DlqHeader,
  DlqReason,
  deadLetterHeaders,
  deadLetterMsgId,
  publishDeadLetter,
  startDlqMover,
  type DeadLetter,
  type DlqMoverOptions,
  type DlqMoverHandle,
} from './dlq.js';
export { encodeKvKey, decodeKvKey } from './kv-keys.js';
export { ActorRegistry, Blacklist, BlacklistCache, WeightsPointer, isEntryBlocking } from './kv.js';
export {
  decodeActorRecord,
  decodeBlacklistEntry,
  HEARTBEATS_MISSED,
  type ActorHeartbeat,
  type ActorRecord,
  type BlacklistEntry,
  type KvValueOrigin,
} from './kv-values.js';
export {
  ScreenshotStore,
  imageInfo,
  sha256Hex,
  shotSubject,
  type StoredImage,
} from './screenshot-store.js';
