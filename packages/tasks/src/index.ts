// Tasks of owrl, the suite-independent part: JSONL task files with validation, benchmark import,
// episode sessions on the bundled sites, the task errors and the registry of the bundled suites.
// Each suite's own catalog, rules, verifier and generator is an entry of its own:
// @owrl/tasks/shop, @owrl/tasks/travel, @owrl/tasks/mail and @owrl/tasks/wiki.
export {
  isTaskError,
  TaskError,
  TaskErrorCode,
} from './errors.js';
export {
  validateTask,
} from './task-validate.js';
export type {
  TaskIssue,
} from './task-validate.js';
export {
  assertValidTask,
  formatTaskFile,
  formatTaskLine,
  parseTaskFile,
  parseTaskLine,
  readTaskFile,
  writeTaskFile,
} from './task-file.js';
export {
  splitJsonRecords,
} from './json-records.js';
export {
  BENCHMARK_FORMATS,
  DEFAULT_IMPORT_DIFFICULTY,
  importBenchmarkRecord,
  importBenchmarkText,
  slug,
} from './benchmark-import.js';
export type {
  BenchmarkFormat,
  ImportedTask,
  ImportIssue,
  ImportOptions,
  ImportResult,
  ImportSummary,
} from './benchmark-import.js';
export {
  isValidSessionId,
  SESSION_COOKIE,
  SESSION_PARAM,
  withSession,
} from './session.js';
export {
  generateSuiteTasks,
  getSuite,
  suiteNames,
  SUITES,
} from './suites.js';
export {
  DEFAULT_DATA_SEED,
} from './suite-options.js';
export type {
  SuiteDef,
  SuiteFamilyInfo,
  SuiteGenerateOptions,
} from './suite-options.js';
export type {
  VerifyResult,
} from './verify-result.js';
