// The judge service (docs/design.md §7) as a library: the consume → judge → publish → ack loop and its
// metrics; main.ts wires it to the environment.
export {
  JudgeService,
} from './judge-service.js';
export type {
  JudgeServiceOptions,
  JudgeStats,
} from './judge-service.js';
export {
  createJudgeMetrics,
} from './judge-metrics.js';
export type {
  JudgeMetrics,
} from './judge-metrics.js';
export {
  readConfig,
  redactConfig,
} from './config.js';
export type {
  JudgeConfig,
  JudgeApiConfig,
  JudgeModelConfig,
} from './config.js';
