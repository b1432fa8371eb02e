// A Learner as its tests build it against a real nats-server: the built-in pointer model
// (dim 256) and a one-epoch GrpoTrainer, an artifact server on a free local port, checkpoints and
// updates under `dataDir`, no restored checkpoint. The caller runs it, then stops the learner and
// closes `artifacts`.
import path from 'node:path';
import { Blacklist, WeightsPointer, type Bus } from '@owrl/bus';
import { MemoryMeter } from '@owrl/core';
import { initialModel } from '@owrl/policy';
import { Adam, GrpoTrainer } from '@owrl/rl';
import { silentLogger } from '@owrl/telemetry';
import { ArtifactServer } from '../src/artifact-server.js';
import { CheckpointStore } from '../src/checkpoint.js';
import type { LearnerConfig } from '../src/config.js';
import { Learner } from '../src/learner.js';
import { createLearnerMetrics } from '../src/metrics.js';
import type { RunStateStore } from '../src/run-state-store.js';
import type { TaskScheduler } from '../src/scheduler.js';

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
  });
  return { learner, artifacts };
}
