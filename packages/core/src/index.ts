// Shared domain types and pure helpers of owrl (no I/O): observations and tool calls, trajectory
// identity, termination classes and reasons, recipe defaults, base errors, seeded randomness,
// configuration from the environment, and the logger and meter interfaces.
export {
  TOOL_NAMES,
  isToolName,
  type Box,
  type ElementInfo,
  type HistoryEntry,
  type HistoryMode,
  type Observation,
  type TabInfo,
  type TextItem,
  type ToolCallSpec,
  type ToolName,
} from './observation.js';
export { groupKey, parseTrajectoryId, trajectoryId, type TrajectoryKey } from './ids.js';
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
  type HttpStatusReason,
  type NetReason,
  type ReasonFault,
  type ReasonInfo,
  type TerminationClassName,
  type TerminationReason,
} from './termination.js';
export { DEFAULTS, type CurriculumStage } from './defaults.js';
export { OwrlError, describeError } from './errors.js';
export { SeededRng, fnv1a, mulberry32, type Rng } from './rng.js';
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
  type Env,
} from './env.js';
export { Secret } from './secret.js';
export { lazyChild, silentLogger, type Logger, type LogLevelName } from './logger.js';
export {
  EPISODE_BUCKETS,
  FAST_BUCKETS,
  MeterError,
  MeterErrorCode,
  checkMetricSpec,
  isMeterError,
  noopMeter,
  type Counter,
  type Gauge,
  type Histogram,
  type HistogramSpec,
  type LabelValues,
  type Meter,
  type MetricKind,
  type MetricSpec,
  type WithLabels,
} from './meter.js';
export { MemoryMeter, type SeriesValue } from './memory-meter.js';
export { hostOf } from './url.js';
export { imageSize, sha256Hex } from './image.js';
