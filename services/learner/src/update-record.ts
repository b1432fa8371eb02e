// What a trained update leaves behind besides its weights: its outcome (samples not sent, images
// missing, samples refused), health and duration in its round's summary, the run counters and the
// metrics; and the time its publication took.
import type { RoundSummary, RunCounters } from '@owrl/proto';
import type { UpdateStats } from '@owrl/rl';
import type { LearnerMetrics } from './metrics.js';
import type { PolicyPublisher, UpdateOutcome } from './publisher.js';
import { recordOffPolicy, recordUpdateHealth } from './update-health.js';

/** Records a trained update that took `seconds` into its round's `summary`, the run `counters` and the metrics. */
export function recordUpdate(summary: RoundSummary, u: UpdateStats, outcome: UpdateOutcome, seconds: number, counters: RunCounters, metrics: LearnerMetrics): void {
  summary.samplesNotSent = outcome.samplesNotSent;
  summary.imagesMissing = outcome.imagesMissing;
  summary.samplesRefused = outcome.samplesRefused;
  counters.samplesNotSent += BigInt(outcome.samplesNotSent);
  counters.samplesRefused += BigInt(outcome.samplesRefused);
  recordUpdateHealth(summary, u.epochs, metrics);
  if (outcome.offPolicy) recordOffPolicy(summary, outcome.offPolicy, metrics);
  summary.updateS = seconds;
  metrics.updateSeconds.observe(seconds);
}

/** Publishes `version` (the weights pointer moves to it), its duration in the summary and the weight-sync metric. */
export async function publishVersion(publisher: PolicyPublisher, version: number, summary: RoundSummary, metrics: LearnerMetrics): Promise<void> {
  const t0 = Date.now();
  await publisher.publish(version);
  summary.publishS = (Date.now() - t0) / 1000;
  metrics.weightSyncSeconds.observe(summary.publishS);
}
