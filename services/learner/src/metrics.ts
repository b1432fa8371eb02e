// Metrics of the learner (RL signals included), created on the injected meter.
import type { Counter, Gauge, Meter } from '@owrl/core';

export interface LearnerMetrics {
  dispatched: Counter;
  terminations: Counter<'class' | 'host'>;
  excluded: Counter<'reason'>;
  groups: Counter<'fate'>;
  successRate: Gauge;
  policyVersion: Gauge;
  /** Hosts the blacklist blocks (as of the learner's last read of KV owrl_blacklist). */
  blacklistHosts: Gauge;
  hostFailures: Counter<'host' | 'reason'>;
  /** Re-dispatches not made because the task's host became blacklisted mid-round. */
  cancelled: Counter<'reason'>;
  /** Results taken from the bus and not used: duplicates, other rounds, superseded by a re-dispatch, task mismatch. */
  dropped: Counter<'cause'>;
  /** Time a full stream held the learner back. */
  backpressureSeconds: Counter;
}

export function createLearnerMetrics(meter: Meter): LearnerMetrics {
  return {
    dispatched: meter.counter({ name: 'owrl_learner_rollouts_dispatched_total', help: 'Rollout requests published' }),
    terminations: meter.counter({ name: 'owrl_learner_terminations_total', help: 'Ingested trajectories by termination class and host', labelNames: ['class', 'host'] }),
    excluded: meter.counter({ name: 'owrl_learner_excluded_total', help: 'Trajectories excluded from training, by cause', labelNames: ['reason'] }),
    groups: meter.counter({ name: 'owrl_learner_groups_total', help: 'Completed groups by fate (kept, dropped_all_zero, dropped_all_one, abandoned)', labelNames: ['fate'] }),
    successRate: meter.gauge({ name: 'owrl_learner_success_rate', help: 'Success rate of the last round (trainable rollouts)' }),
    policyVersion: meter.gauge({ name: 'owrl_learner_policy_version', help: 'Latest published policy version' }),
    blacklistHosts: meter.gauge({ name: 'owrl_blacklist_hosts', help: 'Hosts currently blocked by KV owrl_blacklist' }),
    hostFailures: meter.counter({ name: 'owrl_host_failures_total', help: 'Outcomes counted against a host for the blacklist, by cause', labelNames: ['host', 'reason'] }),
    dropped: meter.counter({ name: 'owrl_learner_results_dropped_total', help: 'Scored results not used, by cause (duplicate, other_round, superseded, task_mismatch, ...)', labelNames: ['cause'] }),
    backpressureSeconds: meter.counter({ name: 'owrl_learner_backpressure_seconds_total', help: 'Time publishing was held back by a full stream' }),
    cancelled: meter.counter({ name: 'owrl_learner_redispatch_cancelled_total', help: 'Re-dispatches not made because the task host is blacklisted', labelNames: ['reason'] }),
  };
}
