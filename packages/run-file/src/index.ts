// @owrl/run-file: one YAML file that names a whole training job. Its schema validates a file with
// line and column, maps it onto every service's settings (OWRL_RUN_FILE; the environment stays
// on top) and generates the reference (docs/run-file.md).
export { RunFileError, RunFileErrorCode, formatProblem, isRunFileError, type RunFileProblem } from './errors.js';
export { keyName, parseRunFile, readRunFile, resolveRunPath, type KeyPath, type LoadedRunFile, type RunFileOverride } from './load.js';
export { editDistance, nearest } from './nearest.js';
export { renderReference } from './reference.js';
export { FIXED_ON_RESUME, resumeChanges, type RunFileChange } from './resume-diff.js';
export { checkRules, RULES, type RuleIssue, type RunFileRule } from './rules.js';
export { BUNDLED_SUITES, runFileSchema, SECTIONS, SERVICE_NAMES, type FieldMeta, type RunFile, type SectionMeta, type SectionName, type ServiceName } from './schema.js';
export { envOverrides, overlayEnv, runFileSettings, schemaKeys, sectionDocs, type MappedKey, type RunFileSettings } from './service-env.js';
