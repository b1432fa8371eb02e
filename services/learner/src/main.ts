// Learner process: wires config, NATS, the artifact server, gRPC, metrics and the training loop,
// run through the startup path (@owrl/service).
import fs from 'node:fs';
import path from 'node:path';
import { ensureTopology, WeightsPointer, Blacklist } from '@owrl/bus';
import { DEFAULT_DIM, initialModel, readOnnxWeights } from '@owrl/policy';
import { Adam, GrpoTrainer } from '@owrl/rl';
import { runService } from '@owrl/service';
import { ArtifactServer } from './artifact-server.js';
import { CheckpointStore } from './checkpoint.js';
import { loadLearnerConfig } from './config.js';
import { LearnerGrpcServer } from './grpc-server.js';
import { Learner } from './learner.js';
import { createLearnerMetrics } from './metrics.js';
import { RunStateStore } from './run-state-store.js';
import { TaskScheduler } from './scheduler.js';
import { loadTasks } from './task-source.js';

runService({
  name: 'learner',
  config: loadLearnerConfig,
  connectionName: (c) => `owrl-learner-${c.runId}`,
  logBindings: (c) => ({ run: c.runId }),
  start: async ({ config, bus, logger, meter }) => {
    const metrics = createLearnerMetrics(meter);
    const store = new RunStateStore(config.runId, config.rounds, 'sync');
    const runDir = path.join(config.dataDir, config.runId);

    await ensureTopology(bus, { logger });
    const weights = await WeightsPointer.open(bus);
    const blacklist = await Blacklist.open(bus);

    const tasks = await loadTasks(config);
    logger.info({ tasks: tasks.length, levels: [...new Set(tasks.map((t) => t.difficulty))].sort() }, 'task pool loaded');
    const scheduler = new TaskScheduler(tasks, { seed: config.seed });
    const checkpoints = new CheckpointStore(path.join(runDir, 'checkpoint'));
    const model = initialModel({ dim: DEFAULT_DIM, temperature: config.temperature });
    const restored = config.resume ? checkpoints.load(model.dim) : null;
    if (restored) model.weights.set(restored.weights);
    else if (config.initPolicy) {
      // A warmed-up policy (owrl demo --warmup) starts the run: the first version actors run.
      model.weights.set(readOnnxWeights(fs.readFileSync(config.initPolicy)).weights);
      logger.info({ initPolicy: config.initPolicy }, 'initial policy loaded');
    }
    const optimizer = restored?.optimizer ?? new Adam(model.dim, config.learningRate > 0 ? { lr: config.learningRate } : {});
    const trainer = new GrpoTrainer(model, optimizer, { epochs: config.ppoEpochs, clipLow: config.clipLow, clipHigh: config.clipHigh });
    const artifacts = new ArtifactServer(path.join(runDir, 'artifacts'), { port: config.artifactPort, host: config.artifactHost, advertiseHost: config.advertiseHost });
    const artifactUrl = await artifacts.start();

    const learner = new Learner({ config, bus, store, scheduler, model, trainer, artifacts, weights, blacklist, checkpoints, restored, metrics, logger });
    const grpcServer = new LearnerGrpcServer(store, learner, { port: config.grpcPort, host: config.grpcHost, controlToken: config.controlToken, logger });
    const grpcPort = await grpcServer.start();
    grpcServer.setServing(true);
    logger.info({ grpcPort, artifactUrl }, 'learner listening');

    // Training runs in the background; when it ends the learner keeps serving its run state.
    void learner.run().then(
      () => logger.info({ state: 'finished', policyVersion: store.get().policyVersion.toString() }, 'training finished; still serving run state until stopped'),
      (e: unknown) => {
        logger.error({ err: e }, 'training loop failed');
        store.change('phase', (s) => {
          s.phase = 5;
          s.message = (e as Error).message;
        });
      },
    );
    return {
      stop: async () => {
        learner.stop();
        grpcServer.setServing(false);
        await grpcServer.close();
        await artifacts.close();
      },
    };
  },
});
