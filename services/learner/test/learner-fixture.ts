// A Learner as its tests build it against a real nats-server: the built-in pointer model
// (dim 256) and a one-epoch GrpoTrainer, an artifact server on a free local port, checkpoints and
// updates under `dataDir`, no restored checkpoint. The caller runs it, then stops the learner and
// closes `artifacts`.
import path from 'node:path';
import { Blacklist, CONSUMER_ACTORS, scoredSubject, STREAM_TASKS, WeightsPointer, type Bus, type ConsumeHandle } from '@owrl/bus';
import { MemoryMeter, silentLogger } from '@owrl/core';
import { initialModel } from '@owrl/policy';
import { make, RolloutRequestSchema, ScoredTrajectorySchema, TaskSchema, TerminationClass, TerminationSchema, TrajectorySchema, VerdictSchema, type RolloutRequest, type Task } from '@owrl/proto';
import { Adam, GrpoTrainer } from '@owrl/rl';
import { ArtifactServer } from '../src/artifact-server.js';
import { CheckpointStore } from '../src/checkpoint.js';
import { loadLearnerConfig, type LearnerConfig } from '../src/config.js';
import { Learner } from '../src/learner.js';
import type { HeldSteps } from '../src/scored-intake.js';
import { createLearnerMetrics } from '../src/metrics.js';
import type { RunStateStore } from '../src/run-state-store.js';
import type { TaskScheduler } from '../src/scheduler.js';

/**
 * The learner settings of a test run: `env` over what every such run shares (its run id and data
 * directory, a task file name the scheduler stands in for, difficulty 1 with 3 steps).
 */
export function testLearnerConfig(runId: string, dataDir: string, env: Record<string, string>): LearnerConfig {
  return loadLearnerConfig({ OWRL_RUN_ID: runId, OWRL_TASKS_FILE: 'tasks.jsonl', OWRL_CURRICULUM: '1:3', OWRL_DATA_DIR: dataDir, ...env });
}

/** `n` difficulty-1 tasks t0…, each on a host of its own (site-<i>.example). */
export function siteTasks(n: number): Task[] {
  return Array.from({ length: n }, (_, i) => make(TaskSchema, { id: `t${i}`, startUrl: `http://site-${i}.example/`, instruction: 'find it', difficulty: 1 }));
}

export interface LearnerFixtureOptions {
  bus: Bus;
  config: LearnerConfig;
  scheduler: TaskScheduler;
  store: RunStateStore;
  dataDir: string;
  /** Default: the bus's blacklist bucket opened anew. */
  blacklist?: Blacklist;
  /** Where the learner's metrics go (read them back with `value`). Default: a fresh one. */
  meter?: MemoryMeter;
  /** Where held results' steps go (OWRL_HELD_STEPS). Default: none, they stay in memory. */
  heldSteps?: HeldSteps;
}

export async function startTestLearner(o: LearnerFixtureOptions): Promise<{ learner: Learner; artifacts: ArtifactServer }> {
  const model = initialModel({ dim: 256 });
  const trainer = new GrpoTrainer(model, new Adam(model.dim), { epochs: 1 });
  const artifacts = new ArtifactServer(path.join(o.dataDir, 'artifacts'), { port: 0, host: '127.0.0.1' });
  await artifacts.start();
  const learner = new Learner({
    config: o.config,
    bus: o.bus,
    store: o.store,
    scheduler: o.scheduler,
    model,
    trainer,
    artifacts,
    weights: await WeightsPointer.open(o.bus),
    blacklist: o.blacklist ?? (await Blacklist.open(o.bus)),
    checkpoints: new CheckpointStore(path.join(o.dataDir, 'checkpoint')),
    updatesDir: path.join(o.dataDir, 'updates'),
    restored: null,
    incarnation: 1,
    metrics: createLearnerMetrics(o.meter ?? new MemoryMeter()),
    logger: silentLogger,
    ...(o.heldSteps ? { heldSteps: o.heldSteps } : {}),
  });
  return { learner, artifacts };
}

/**
 * Stands in for the actors and the judge of run `runId`: answers every rollout request with a
 * trainable scored result, reward `sample % 2` (so every group of two or more samples is kept).
 * `before` runs first (e.g. a delay), `after` once the result is published.
 */
export async function answerRequests(
  bus: Bus,
  runId: string,
  o: { maxInFlight: number; before?: (req: RolloutRequest) => Promise<void>; after?: (req: RolloutRequest) => void },
): Promise<ConsumeHandle> {
  return await bus.consume({
    stream: STREAM_TASKS,
    consumer: CONSUMER_ACTORS,
    schema: RolloutRequestSchema,
    maxInFlight: o.maxInFlight,
    pullExpiresMs: 1000,
    handler: async (d) => {
      const req = d.value;
      await o.before?.(req);
      const out = make(ScoredTrajectorySchema, {
        trajectoryId: req.trajectoryId,
        trajectory: make(TrajectorySchema, { trajectoryId: req.trajectoryId, request: req, policyVersion: req.policyVersion, termination: make(TerminationSchema, { class: TerminationClass.COMPLETED, reason: 'done' }) }),
        trainable: true,
        verdict: make(VerdictSchema, { reward: req.sample % 2, success: req.sample % 2 === 1 }),
      });
      await bus.publish(scoredSubject(runId), ScoredTrajectorySchema, out, { msgId: req.trajectoryId });
      o.after?.(req);
    },
  });
}
