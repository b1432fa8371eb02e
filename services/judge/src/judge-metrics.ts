// Prometheus metrics of the judge, registered on the registry the service is given (no global
// default registry): outcomes by source, latency, duplicates, exclusions and publish failures.
import { Counter, Gauge, Histogram, FAST_BUCKETS, type Registry } from '@owrl/telemetry';

export interface JudgeMetrics {
  /** outcome: success | failure | excluded; source: format | rule | verifier | model | none. */
  trajectories: Counter<'outcome' | 'source'>;
  excluded: Counter<'reason'>;
  latency: Histogram;
  duplicates: Counter;
  publishFailures: Counter;
  /** Shadow mode: pairs of (model, verifier) verdicts, each `success` | `failure`. */
  shadowPairs: Counter<'model' | 'verifier'>;
  /** Shadow verdicts the model could not give (timeout, crash), by reason. */
  shadowUnavailable: Counter<'reason'>;
  /** Running calibration of the model against the verifiers: agreement, precision, recall, f1. */
  shadowCalibration: Gauge<'figure'>;
}

/** Registers the judge's metrics on `reg` (once per registry: prom-client rejects duplicate names). */
export function createJudgeMetrics(reg: Registry): JudgeMetrics {
  return {
    trajectories: new Counter({
      name: 'owrl_judge_trajectories_total',
      help: 'Trajectories judged and published, by outcome and verdict source',
      labelNames: ['outcome', 'source'] as const,
      registers: [reg],
    }),
    excluded: new Counter({
      name: 'owrl_judge_excluded_total',
      help: 'Trajectories published as excluded (not trainable), by reason',
      labelNames: ['reason'] as const,
      registers: [reg],
    }),
    latency: new Histogram({
      name: 'owrl_judge_latency_seconds',
      help: 'Time to judge one trajectory (pipeline only, publish excluded)',
      buckets: FAST_BUCKETS,
      registers: [reg],
    }),
    duplicates: new Counter({
      name: 'owrl_judge_duplicates_total',
      help: 'Redelivered trajectories that were already published (dropped)',
      registers: [reg],
    }),
    publishFailures: new Counter({
      name: 'owrl_judge_publish_failures_total',
      help: 'Scored trajectories that could not be published (the trajectory is redelivered)',
      registers: [reg],
    }),
    shadowPairs: new Counter({
      name: 'owrl_judge_shadow_pairs_total',
      help: 'Shadow mode: trajectories judged by both the verifier (reward) and the model, by both verdicts',
      labelNames: ['model', 'verifier'] as const,
      registers: [reg],
    }),
    shadowUnavailable: new Counter({
      name: 'owrl_judge_shadow_unavailable_total',
      help: 'Shadow mode: trajectories the model could not judge (the reward is unaffected), by reason',
      labelNames: ['reason'] as const,
      registers: [reg],
    }),
    shadowCalibration: new Gauge({
      name: 'owrl_judge_shadow_calibration_ratio',
      help: 'Shadow mode: the model against the verifiers since start (figure = agreement | precision | recall | f1)',
      labelNames: ['figure'] as const,
      registers: [reg],
    }),
  };
}
