// Actor configuration from the environment.
import os from 'node:os';
import { envInt, envList, envString } from '@owrl/core';

export interface ActorConfig {
  natsUrl: string;
  actorId: string;
  slots: number;
  allowHosts: string[];
  chromiumPath: string;
  metricsPort: number;
  policyWaitMs: number;
  heartbeatMs: number;
  maxEpisodesPerBrowser: number;
  maxPayloadBytes: number;
}

export function loadActorConfig(env: Record<string, string | undefined> = process.env): ActorConfig {
  return {
    natsUrl: envString('NATS_URL', 'nats://127.0.0.1:4222', env),
    actorId: envString('OWRL_ACTOR_ID', `${os.hostname()}-${process.pid}`, env),
    slots: envInt('OWRL_SLOTS', 4, env, 1),
    allowHosts: envList('OWRL_ALLOW_HOSTS', [], env),
    chromiumPath: envString('OWRL_CHROMIUM', '/usr/bin/chromium', env),
    metricsPort: envInt('OWRL_METRICS_PORT', 0, env),
    policyWaitMs: envInt('OWRL_POLICY_WAIT_S', 120, env, 0) * 1000,
    heartbeatMs: envInt('OWRL_HEARTBEAT_S', 10, env, 1) * 1000,
    maxEpisodesPerBrowser: envInt('OWRL_MAX_EPISODES_PER_BROWSER', 200, env, 1),
    maxPayloadBytes: envInt('OWRL_MAX_PAYLOAD', 1024 * 1024, env, 1024),
  };
}
