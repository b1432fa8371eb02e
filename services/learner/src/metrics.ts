// Prometheus metrics of the learner (RL signals included), registered on an injected registry.
import { Counter, Gauge, type Registry } from '@owrl/telemetry';

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
}

export function createLearnerMetrics(reg: Registry): LearnerMetrics {
  return {
    dispatched: new Counter({ name: 'owrl_learner_rollouts_dispatched_total', help: 'Rollout requests published', registers: [reg] }),
    terminations: new Counter({ name: 'owrl_learner_terminations_total', help: 'Ingested trajectories by termination class and host', labelNames: ['class', 'host'], registers: [reg] }),
    excluded: new Counter({ name: 'owrl_learner_excluded_total', help: 'Trajectories excluded from training, by cause', labelNames: ['reason'], registers: [reg] }),
    groups: new Counter({ name: 'owrl_learner_groups_total', help: 'Completed groups by fate (kept, dropped_all_zero, dropped_all_one, abandoned)', labelNames: ['fate'], registers: [reg] }),
    successRate: new Gauge({ name: 'owrl_learner_success_rate', help: 'Success rate of the last round (trainable rollouts)', registers: [reg] }),
    policyVersion: new Gauge({ name: 'owrl_learner_policy_version', help: 'Latest published policy version', registers: [reg] }),
    blacklistHosts: new Gauge({ name: 'owrl_blacklist_hosts', help: 'Hosts currently blocked by KV owrl_blacklist', registers: [reg] }),
    hostFailures: new Counter({ name: 'owrl_host_failures_total', help: 'Outcomes counted against a host for the blacklist, by cause', labelNames: ['host', 'reason'], registers: [reg] }),
    cancelled: new Counter({ name: 'owrl_learner_redispatch_cancelled_total', help: 'Re-dispatches not made because the task host is blacklisted', labelNames: ['reason'], registers: [reg] }),
  };
}
