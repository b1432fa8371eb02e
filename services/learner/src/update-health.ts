// Update health of one policy update, recorded once into the round summary (RunState) and the
// metrics: per PPO epoch loss, clip fraction, approximate KL, gradient norm, mean ratio and the
// effective learning rate the trust region allowed.
import type { OffPolicyStat, RoundSummary } from '@owrl/proto';
import { epochStatMessage, type EpochStats } from '@owrl/rl';
import type { LearnerMetrics } from './metrics.js';

export function recordUpdateHealth(summary: RoundSummary, epochs: readonly EpochStats[], metrics: LearnerMetrics): void {
  summary.epochs = epochs.map(epochStatMessage);
  const last = epochs[epochs.length - 1];
  summary.loss = last?.loss ?? 0;
  summary.clipFraction = last?.clipFraction ?? 0;
  for (const e of epochs) {
    const l = { epoch: e.epoch };
    metrics.loss.set(l, e.loss);
    metrics.clipFraction.set(l, e.clipFraction);
    metrics.approxKl.set(l, e.approxKl);
    metrics.gradNorm.set(l, e.gradNorm);
    metrics.meanRatio.set(l, e.meanRatio);
    metrics.learningRate.set(l, e.learningRate);
    if (e.backtracks > 0) metrics.trustBacktracks.inc(e.backtracks);
  }
  if (last) metrics.clipFractionLast.observe(last.clipFraction);
}

/** The trainer's off-policy figures of an update: into the round summary and the metrics. */
export function recordOffPolicy(summary: RoundSummary, op: OffPolicyStat, metrics: LearnerMetrics): void {
  summary.offPolicy = op;
  metrics.logprobGapMax.set(op.logprobGapMaxAbs);
  metrics.logprobGapMean.set(op.logprobGapMeanAbs);
  metrics.ess.set(op.ess);
  metrics.truncatedTokens.inc(Number(op.truncatedTokens));
  metrics.positiveLogprobGain.set(op.positiveLogprobGain);
}
