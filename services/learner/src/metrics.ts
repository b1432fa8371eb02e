// Metrics of the learner (RL signals included), created on the injected meter. Names carry their
// base unit (seconds, ratio, versions; KL in nats); per-epoch update health is labelled by the
// PPO epoch (1-based) and shows the latest update.
import { EPISODE_BUCKETS, FAST_BUCKETS, type Counter, type Gauge, type Histogram, type Meter } from '@owrl/core';

export interface LearnerMetrics {
  dispatched: Counter;
  terminations: Counter<'class' | 'host'>;
  excluded: Counter<'reason'>;
  groups: Counter<'fate'>;
  /** Task timeouts by whom the failure rules blamed them on (policy: trained at reward 0; site: excluded). */
  timeouts: Counter<'blame'>;
  /** Groups dropped because a sample spent its re-dispatch budget. */
  exhaustedGroups: Counter;
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
  /** Mean reward of the last round's trainable rollouts. */
  rewardMean: Gauge;
  /** Update health of the latest update, per PPO epoch. */
  clipFraction: Gauge<'epoch'>;
  approxKl: Gauge<'epoch'>;
  gradNorm: Gauge<'epoch'>;
  meanRatio: Gauge<'epoch'>;
  loss: Gauge<'epoch'>;
  learningRate: Gauge<'epoch'>;
  /** Clip fraction of the last epoch of every update (distribution over the run). */
  clipFractionLast: Histogram;
  /** Backtracking halvings of the KL trust region. */
  trustBacktracks: Counter;
  /** Policy versions between the one a trained trajectory was produced with and the one it trains. */
  staleness: Histogram;
  /** Time of the trainer's update (PPO epochs). */
  logprobGapMax: Gauge;
  logprobGapMean: Gauge;
  ess: Gauge;
  truncatedTokens: Counter;
  positiveLogprobGain: Gauge;
  updateSeconds: Histogram;
  /** Export + store + pointer publication of one policy version. */
  weightSyncSeconds: Histogram;
  /** Time a rollout request waited in OWRL_TASKS before an actor started it. */
  queueLagSeconds: Histogram;
  /** Judged to ingested, per result. */
  ingestLagSeconds: Histogram;
  /** Publishing one batch of rollout requests (its write-ahead included); the loop takes nothing in meanwhile. */
  dispatchSeconds: Histogram;
  /** Scored trajectories held unacked (their group not yet trained or dropped), and those queued for the loop. */
  heldResults: Gauge;
  inboxQueued: Gauge;
  /** Groups dispatched and not yet decided. */
  pendingGroups: Gauge;
}

const RATIO_BUCKETS = [0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1];
const STALENESS_BUCKETS = [0, 1, 2, 3, 4, 6, 8, 16];

export function createLearnerMetrics(meter: Meter): LearnerMetrics {
  const epoch = ['epoch'] as const;
  return {
    dispatched: meter.counter({ name: 'owrl_learner_rollouts_dispatched_total', help: 'Rollout requests published' }),
    terminations: meter.counter({ name: 'owrl_learner_terminations_total', help: 'Ingested trajectories by termination class and host', labelNames: ['class', 'host'] }),
    excluded: meter.counter({ name: 'owrl_learner_excluded_total', help: 'Trajectories excluded from training, by cause', labelNames: ['reason'] }),
    groups: meter.counter({ name: 'owrl_learner_groups_total', help: 'Completed groups by fate (kept, dropped_all_zero, dropped_all_one, abandoned)', labelNames: ['fate'] }),
    timeouts: meter.counter({ name: 'owrl_learner_task_timeouts_total', help: 'Task timeouts by whom the failure rules blamed them on (policy: scored 0 and trained; site: excluded and re-dispatched)', labelNames: ['blame'] }),
    exhaustedGroups: meter.counter({ name: 'owrl_learner_groups_exhausted_total', help: 'Groups dropped whole because a sample spent its re-dispatch budget' }),
    successRate: meter.gauge({ name: 'owrl_learner_success_rate', help: 'Success rate of the last round (trainable rollouts)' }),
    policyVersion: meter.gauge({ name: 'owrl_learner_policy_version', help: 'Latest published policy version' }),
    blacklistHosts: meter.gauge({ name: 'owrl_blacklist_hosts', help: 'Hosts currently blocked by KV owrl_blacklist' }),
    hostFailures: meter.counter({ name: 'owrl_host_failures_total', help: 'Outcomes counted against a host for the blacklist, by cause', labelNames: ['host', 'reason'] }),
    dropped: meter.counter({ name: 'owrl_learner_results_dropped_total', help: 'Scored results not used, by cause (duplicate, other_round, superseded, task_mismatch, ...)', labelNames: ['cause'] }),
    backpressureSeconds: meter.counter({ name: 'owrl_learner_backpressure_seconds_total', help: 'Time publishing was held back by a full stream' }),
    cancelled: meter.counter({ name: 'owrl_learner_redispatch_cancelled_total', help: 'Re-dispatches not made because the task host is blacklisted', labelNames: ['reason'] }),
    rewardMean: meter.gauge({ name: 'owrl_learner_reward_mean', help: 'Mean reward (0..1) of the last round over its trainable rollouts' }),
    clipFraction: meter.gauge({ name: 'owrl_learner_update_clip_fraction_ratio', help: 'Fraction of actions whose clipped branch is active, per PPO epoch of the latest update', labelNames: epoch }),
    approxKl: meter.gauge({ name: 'owrl_learner_update_approx_kl_nats', help: 'Approximate KL(behaviour || policy) in nats per action before each PPO epoch of the latest update', labelNames: epoch }),
    gradNorm: meter.gauge({ name: 'owrl_learner_update_grad_norm', help: 'Largest L2 norm of a minibatch gradient, per PPO epoch of the latest update', labelNames: epoch }),
    meanRatio: meter.gauge({ name: 'owrl_learner_update_mean_ratio', help: 'Mean importance ratio pi/pi_behaviour per PPO epoch of the latest update (1 in the first on-policy epoch)', labelNames: epoch }),
    loss: meter.gauge({ name: 'owrl_learner_update_loss', help: 'Clipped surrogate loss per PPO epoch of the latest update', labelNames: epoch }),
    learningRate: meter.gauge({ name: 'owrl_learner_update_learning_rate', help: 'Effective learning rate (Adam lr times the trust-region step scale) per PPO epoch of the latest update', labelNames: epoch }),
    clipFractionLast: meter.histogram({ name: 'owrl_learner_last_epoch_clip_fraction_ratio', help: 'Clip fraction of the last PPO epoch of each update', buckets: RATIO_BUCKETS }),
    trustBacktracks: meter.counter({ name: 'owrl_learner_trust_region_backtracks_total', help: 'Step halvings made by the KL trust region (OWRL_TRUST_KL)' }),
    staleness: meter.histogram({ name: 'owrl_learner_staleness_versions', help: 'Policy versions between the version a trained trajectory was produced with and the version it trains', buckets: STALENESS_BUCKETS }),
    logprobGapMax: meter.gauge({ name: 'owrl_learner_update_logprob_gap_max_nats', help: 'Largest |behaviour - trainer| log-prob over the tokens of the latest update sampled at its base version (engine/trainer parity, as the trainer reported it)' }),
    logprobGapMean: meter.gauge({ name: 'owrl_learner_update_logprob_gap_mean_nats', help: 'Mean |behaviour - trainer| log-prob over the tokens of the latest update sampled at its base version' }),
    ess: meter.gauge({ name: 'owrl_learner_update_ess_ratio', help: 'Effective sample size of the importance weights trainer/behaviour over the tokens of the latest update, as a fraction of the tokens' }),
    truncatedTokens: meter.counter({ name: 'owrl_learner_update_truncated_tokens_total', help: 'Tokens whose importance weight the trainer truncated (truncated importance sampling)' }),
    positiveLogprobGain: meter.gauge({ name: 'owrl_learner_update_positive_logprob_gain_nats', help: 'Mean change of log-prob, per token of positive-advantage samples, that the latest update made' }),
    updateSeconds: meter.histogram({ name: 'owrl_learner_update_seconds', help: 'Time of one policy update (the PPO epochs of the trainer)', buckets: FAST_BUCKETS }),
    weightSyncSeconds: meter.histogram({ name: 'owrl_learner_weight_sync_seconds', help: 'Time to export, store and publish one policy version (artifact and KV pointer)', buckets: FAST_BUCKETS }),
    ingestLagSeconds: meter.histogram({ name: 'owrl_learner_ingest_lag_seconds', help: 'Time from the judge scoring a trajectory to the learner ingesting it (bus and inbox)', buckets: FAST_BUCKETS }),
    dispatchSeconds: meter.histogram({ name: 'owrl_learner_dispatch_seconds', help: 'Time the loop spends publishing one batch of rollout requests (write-ahead included); it takes no result in meanwhile', buckets: FAST_BUCKETS }),
    heldResults: meter.gauge({ name: 'owrl_learner_held_results', help: 'Scored trajectories held unacked until their group is trained or dropped (bounded by the learner consumer max_ack_pending)' }),
    inboxQueued: meter.gauge({ name: 'owrl_learner_inbox_queued', help: 'Scored trajectories delivered and waiting for the loop' }),
    pendingGroups: meter.gauge({ name: 'owrl_learner_pending_groups', help: 'Groups dispatched and not yet decided' }),
    queueLagSeconds: meter.histogram({ name: 'owrl_learner_queue_lag_seconds', help: 'Time from dispatching a rollout request to an actor starting it', buckets: EPISODE_BUCKETS }),
  };
}
