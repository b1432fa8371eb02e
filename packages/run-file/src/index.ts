// @owrl/run-file: one YAML file that names a whole training job. Its schema validates a file with
// line and column, maps it onto every service's settings (OWRL_RUN_FILE; the environment stays
// on top) and generates the reference (docs/run-file.md).
export {
  RunFileError,
  RunFileErrorCode,
  formatProblem,
  isRunFileError,
} from './errors.js';
export type {
  RunFileProblem,
} from './errors.js';
export {
  keyName,
  parseRunFile,
  readRunFile,
  resolveRunPath,
} from './load.js';
export type {
  KeyPath,
  LoadedRunFile,
  RunFileOverride,
} from './load.js';
export {
  editDistance,
  nearest,
} from './nearest.js';
export {
  renderReference,
} from './reference.js';
export {
  FIXED_ON_RESUME,
  resumeChanges,
} from './resume-diff.js';
export type {
  RunFileChange,
} from './resume-diff.js';
export {
  checkRules,
  RULES,
} from './rules.js';
export type {
  RuleIssue,
  RunFileRule,
} from './rules.js';
export {
  BUNDLED_SUITES,
  runFileSchema,
  SECTIONS,
  SERVICE_NAMES,
} from './schema.js';
export type {
  FieldMeta,
  RunFile,
  SectionMeta,
  SectionName,
  ServiceName,
} from './schema.js';
export {
  envOverrides,
  overlayEnv,
  runFileSettings,
  schemaKeys,
  sectionDocs,
} from './service-env.js';
export type {
  MappedKey,
  RunFileSettings,
} from './service-env.js';
