// What already runs on the NATS a run joins (`--nats URL`, `nats.url`): the learner of this run
// (its gRPC address answers with this run id), a judge and actors (pull requests waiting on their
// consumers). `owrl train` starts only what is missing.
import { CONSUMER_ACTORS, CONSUMER_JUDGE, connectBus, readNatsSettings, STREAM_TASKS, STREAM_TRAJ, type Bus } from '@owrl/bus';
import type { Env } from '@owrl/core';
import { LearnerClient } from '@owrl/learner-client';
import { RunPhase } from '@owrl/proto';

export interface Running {
  /** The learner's gRPC address when this run's learner runs. */
  learner: string | null;
  judge: boolean;
  /** Pull requests of actors waiting for rollouts (0: no actor runs). */
  actors: number;
}

async function waiting(bus: Bus, stream: string, consumer: string): Promise<number> {
  try {
    return (await bus.consumerLag(stream, consumer)).numWaiting;
  } catch {
    return 0; // no such consumer yet: nothing has pulled from it
  }
}

export async function detectRunning(settings: Env, runId: string): Promise<Running> {
  const address = settings['OWRL_LEARNER'] ?? '127.0.0.1:50051';
  let learner: string | null = null;
  const client = new LearnerClient(address);
  try {
    const s = await client.getRunState(2000);
    if (s.runId === runId && s.phase !== RunPhase.FINISHED && s.phase !== RunPhase.FAILED) learner = address;
  } catch {
    // no learner there
  } finally {
    client.close();
  }
  const nats = readNatsSettings(settings);
  const bus = await connectBus({ servers: nats.servers, auth: nats.auth, name: 'owrl-train-join', timeoutMs: 5000 });
  try {
    return { learner, judge: (await waiting(bus, STREAM_TRAJ, CONSUMER_JUDGE)) > 0, actors: await waiting(bus, STREAM_TASKS, CONSUMER_ACTORS) };
  } finally {
    await bus.close().catch(() => {});
  }
}
