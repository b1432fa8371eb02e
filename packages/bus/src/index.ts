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
} from './topology.js';
export type {
  LearnerConsumerOptions,
  ResolvedTopology,
  TopologyOptions,
} from './topology.js';
export {
  Bus,
  connectBus,
} from './bus.js';
export type {
  ConnectBusOptions,
  ConsumerLag,
} from './bus.js';
export {
  readNatsSettings,
  describeNatsSettings,
  redactUrl,
  DEFAULT_NATS_URL,
} from './nats-settings.js';
export type {
  NatsAuth,
  NatsSettings,
} from './nats-settings.js';
export type {
  BusContext,
} from './context.js';
export type {
  PublishOptions,
  PublishResult,
} from './publish.js';
export {
  nakDelayMs,
  DEFAULT_NAK_BACKOFF_MS,
} from './consume.js';
export type {
  ConsumeOptions,
  ConsumeHandle,
  ConsumeStats,
} from './consume.js';
export type {
  Delivery,
} from './delivery.js';
export {
  DlqHeader,
  DlqReason,
  deadLetterHeaders,
  deadLetterMsgId,
  publishDeadLetter,
  startDlqMover,
} from './dlq.js';
export type {
  DeadLetter,
  DlqMoverOptions,
  DlqMoverHandle,
} from './dlq.js';
export {
  encodeKvKey,
  decodeKvKey,
} from './kv-keys.js';
export {
  ActorRegistry,
  Blacklist,
  BlacklistCache,
  WeightsPointer,
  isEntryBlocking,
} from './kv.js';
export {
  decodeActorRecord,
  decodeBlacklistEntry,
  HEARTBEATS_MISSED,
} from './kv-values.js';
export type {
  ActorHeartbeat,
  ActorRecord,
  BlacklistEntry,
  KvValueOrigin,
} from './kv-values.js';
export {
  ScreenshotStore,
  imageInfo,
  sha256Hex,
  shotSubject,
} from './screenshot-store.js';
export type {
  StoredImage,
} from './screenshot-store.js';
