// Metrics of the judge, created on the injected meter: outcomes by source, latency, duplicates,
// exclusions, publish failures and the shadow calibration of the judge model.
import { FAST_BUCKETS, type Counter, type Gauge, type Histogram, type Meter } from '@owrl/core';

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

export function createJudgeMetrics(meter: Meter): JudgeMetrics {
  return {
    trajectories: meter.counter({ name: 'owrl_judge_trajectories_total', help: 'Trajectories judged and published, by outcome and verdict source', labelNames: ['outcome', 'source'] }),
    excluded: meter.counter({ name: 'owrl_judge_excluded_total', help: 'Trajectories published as excluded (not trainable), by reason', labelNames: ['reason'] }),
    latency: meter.histogram({ name: 'owrl_judge_latency_seconds', help: 'Time to judge one trajectory (pipeline only, publish excluded)', buckets: FAST_BUCKETS }),
    duplicates: meter.counter({ name: 'owrl_judge_duplicates_total', help: 'Redelivered trajectories that were already published (dropped)' }),
    publishFailures: meter.counter({ name: 'owrl_judge_publish_failures_total', help: 'Scored trajectories that could not be published (the trajectory is redelivered)' }),
    shadowPairs: meter.counter({
      name: 'owrl_judge_shadow_pairs_total',
      help: 'Shadow mode: trajectories judged by both the verifier (reward) and the model, by both verdicts',
      labelNames: ['model', 'verifier'],
    }),
    shadowUnavailable: meter.counter({
      name: 'owrl_judge_shadow_unavailable_total',
      help: 'Shadow mode: trajectories the model could not judge (the reward is unaffected), by reason',
      labelNames: ['reason'],
    }),
    shadowCalibration: meter.gauge({
      name: 'owrl_judge_shadow_calibration_ratio',
      help: 'Shadow mode: the model against the verifiers since start (figure = agreement | precision | recall | f1)',
      labelNames: ['figure'],
    }),
  };
}
