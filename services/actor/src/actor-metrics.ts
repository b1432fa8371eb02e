// Metrics of the actor, created on the injected meter: episodes by termination class and reason,
// episode wall time, step latency by phase, busy slots, the policy version loaded, and the
// trajectory publish path (retries, failures, trimmed and too-large trajectories).
import { EPISODE_BUCKETS, FAST_BUCKETS, type Counter, type Gauge, type Histogram, type Meter } from '@owrl/core';

export interface ActorMetrics {
  episodes: Counter<'class' | 'reason'>;
  duration: Histogram;
  stepPhase: Histogram<'phase'>;
  busy: Gauge;
  policyVersion: Gauge;
  publishRetries: Counter<'code'>;
  publishFailures: Counter<'code'>;
  trimmed: Counter;
  tooLarge: Counter;
}

export function createActorMetrics(meter: Meter): ActorMetrics {
  return {
    episodes: meter.counter({ name: 'owrl_actor_episodes_total', help: 'Episodes finished by termination class and reason', labelNames: ['class', 'reason'] }),
    duration: meter.histogram({ name: 'owrl_actor_episode_seconds', help: 'Episode wall time', buckets: EPISODE_BUCKETS }),
    stepPhase: meter.histogram({ name: 'owrl_actor_step_phase_seconds', help: 'Step latency by phase (policy, action, settle, observe)', labelNames: ['phase'], buckets: FAST_BUCKETS }),
    busy: meter.gauge({ name: 'owrl_actor_busy_slots', help: 'Browser slots running an episode' }),
    policyVersion: meter.gauge({ name: 'owrl_actor_policy_version', help: 'Policy version loaded' }),
    publishRetries: meter.counter({ name: 'owrl_actor_publish_retries_total', help: 'Trajectory publish attempts that failed and were retried, by bus error code', labelNames: ['code'] }),
    publishFailures: meter.counter({ name: 'owrl_actor_publish_failures_total', help: 'Trajectories not published after all retries (request requeued), by bus error code', labelNames: ['code'] }),
    trimmed: meter.counter({ name: 'owrl_actor_trajectories_trimmed_total', help: 'Trajectories trimmed to fit the bus payload limit' }),
    tooLarge: meter.counter({ name: 'owrl_actor_trajectories_too_large_total', help: 'Trajectories replaced by trajectory_too_large failures (over the payload limit after trimming)' }),
  };
}
