// The judge service (docs/design.md §7) as a library: the consume → judge → publish → ack loop and its
// metrics; main.ts wires it to the environment.
export { JudgeService, type JudgeServiceOptions, type JudgeStats } from './judge-service.js';
export { createJudgeMetrics, type JudgeMetrics } from './judge-metrics.js';
export { readConfig, redactConfig, type JudgeConfig, type JudgeApiConfig, type JudgeModelConfig } from './config.js';
