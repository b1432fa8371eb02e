// Shared domain types and pure helpers of owrl (no I/O): observations and tool calls, trajectory
// identity, termination classes and reasons, recipe defaults, base errors, seeded randomness,
// configuration from the environment, and the logger and meter interfaces.
export {
  TOOL_NAMES,
  isToolName,
} from './observation.js';
export type {
  Box,
  ElementInfo,
  HistoryEntry,
  HistoryMode,
  Observation,
  TabInfo,
  TextItem,
  ToolCallSpec,
  ToolName,
} from './observation.js';
export {
  groupKey,
  parseTrajectoryId,
  trajectoryId,
} from './ids.js';
export type {
  TrajectoryKey,
} from './ids.js';
export {
  FORMAT_ZERO_CLASSES,
  HTTP_STATUS_REASONS,
  INFRASTRUCTURE_CLASSES,
  NET_REASONS,
  POLICY_UNAVAILABLE_CODE,
  REASON_HOST_BLACKLISTED,
  REASON_POLICY_BEHIND,
  REASON_POLICY_UNAVAILABLE,
  REASON_ENGINE_INCOMPATIBLE,
  TERMINATION_CLASSES,
  TERMINATION_REASONS,
  TRAINABLE_CLASSES,
  hostFailureCause,
  isInfrastructure,
  isTerminationReason,
  outcomeFault,
  outcomeKey,
  parseOutcomeKey,
  policyUnavailableReason,
  reasonInfo,
  reasonsWithFault,
} from './termination.js';
export type {
  HttpStatusReason,
  NetReason,
  ReasonFault,
  ReasonInfo,
  TerminationClassName,
  TerminationReason,
} from './termination.js';
export {
  DEFAULTS,
} from './defaults.js';
export type {
  CurriculumStage,
} from './defaults.js';
export {
  OwrlError,
  describeError,
} from './errors.js';
export {
  SeededRng,
  fnv1a,
  mulberry32,
} from './rng.js';
export type {
  Rng,
} from './rng.js';
export {
  ConfigError,
  ConfigErrorCode,
  envBool,
  envInt,
  envList,
  envNumber,
  envOneOf,
  envSecret,
  envString,
  isConfigError,
} from './env.js';
export type {
  Env,
} from './env.js';
export {
  Secret,
} from './secret.js';
export {
  lazyChild,
  silentLogger,
} from './logger.js';
export type {
  Logger,
  LogLevelName,
} from './logger.js';
export {
  EPISODE_BUCKETS,
  FAST_BUCKETS,
  MeterError,
  MeterErrorCode,
  checkMetricSpec,
  isMeterError,
  noopMeter,
} from './meter.js';
export type {
  Counter,
  Gauge,
  Histogram,
  HistogramSpec,
  LabelValues,
  Meter,
  MetricKind,
  MetricSpec,
  WithLabels,
} from './meter.js';
export {
  MemoryMeter,
} from './memory-meter.js';
export type {
  SeriesValue,
} from './memory-meter.js';
export {
  hostOf,
} from './url.js';
export {
  imageSize,
  sha256Hex,
} from './image.js';
export {
  isProcessAlive,
  listProcesses,
  parseKbField,
  parseProcStat,
  procDescendants,
  processTree,
  pssBytes,
  readCmdline,
  readProcStat,
  rssBytes,
  treeMemory,
  treeRssBytes,
} from './proc.js';
export type {
  ProcInfo,
  TreeMemory,
} from './proc.js';
