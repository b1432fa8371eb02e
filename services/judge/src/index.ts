// The judge service (DESIGN §7) as a library: the consume → judge → publish → ack loop and its
// metrics; main.ts wires it to the environment.
export { JudgeService, type JudgeServiceOptions, type JudgeStats } from './judge-service.js';
export { createJudgeMetrics, type JudgeMetrics } from './judge-metrics.js';
export { readConfig, type JudgeConfig } from './config.js';
