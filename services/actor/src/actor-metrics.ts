// Metrics of the actor, created on the injected meter: episodes by termination class and reason,
// episode wall time, busy slots and the policy version loaded.
import { EPISODE_BUCKETS, type Counter, type Gauge, type Histogram, type Meter } from '@owrl/core';

export interface ActorMetrics {
  episodes: Counter<'class' | 'reason'>;
  duration: Histogram;
  busy: Gauge;
  policyVersion: Gauge;
}

export function createActorMetrics(meter: Meter): ActorMetrics {
  return {
    episodes: meter.counter({ name: 'owrl_actor_episodes_total', help: 'Episodes finished by termination class and reason', labelNames: ['class', 'reason'] }),
    duration: meter.histogram({ name: 'owrl_actor_episode_seconds', help: 'Episode wall time', buckets: EPISODE_BUCKETS }),
    busy: meter.gauge({ name: 'owrl_actor_busy_slots', help: 'Browser slots running an episode' }),
    policyVersion: meter.gauge({ name: 'owrl_actor_policy_version', help: 'Policy version loaded' }),
  };
}
