// Learner process: wires config, NATS, the artifact server, gRPC, metrics and the training loop,
// run through the startup path (@owrl/service).
import fs from 'node:fs';
import path from 'node:path';
import { ActorRegistry, ensureTopology, ScreenshotStore, WeightsPointer, Blacklist } from '@owrl/bus';
import { RunPhase } from '@owrl/proto';
import { DEFAULT_DIM, initialModel, readOnnxWeights } from '@owrl/policy';
import { make, TrainHyperparamsSchema } from '@owrl/proto';
import { Adam, GrpoTrainer } from '@owrl/rl';
import type { Logger } from '@owrl/core';
import { RemoteTrainer } from '@owrl/trainer-rpc';
import { runService } from '@owrl/service';
import { ArtifactServer } from './artifact-server.js';
import { CheckpointStore } from './checkpoint.js';
import { loadLearnerConfig, type LearnerConfig } from './config.js';
import { failureCodeOf } from './errors.js';
import { FleetView } from './fleet-view.js';
import { LearnerGrpcServer } from './grpc-server.js';
import { Learner } from './learner.js';
import { createLearnerMetrics } from './metrics.js';
import type { RemoteTrainerBinding } from './publisher.js';
import { RunStateStore } from './run-state-store.js';
import { ShotKeeper } from './shot-keeper.js';
import { TaskScheduler } from './scheduler.js';
import { StepSpill } from './step-spill.js';
import { StreamSteps } from './stream-steps.js';
import { loadTasks } from './task-source.js';

/**
 * OWRL_TRAINER=host:port: the trainer every update goes to, asked what it trains at start-up (an
 * unreachable trainer fails the start after the client's retries).
 */
async function connectTrainer(config: LearnerConfig, resumedVersion: number | null, stateDir: string, logger: Logger): Promise<RemoteTrainerBinding> {
  const address = config.trainer === 'inprocess' ? '' : config.trainer.address;
  const remote = new RemoteTrainer(address, { token: config.trainerToken, logger });
  const info = await remote.info();
  // a fresh run starts from version 0: requests and answers of an earlier run under this id are stale
  if (!config.resume) fs.rmSync(stateDir, { recursive: true, force: true });
  if (resumedVersion !== null && !info.restorableVersions.includes(BigInt(resumedVersion))) {
    logger.warn({ trainer: address, resumedVersion, restorable: info.restorableVersions.map(Number) }, 'the trainer cannot restore the checkpointed version; the next update will be refused');
  }
  const binding: RemoteTrainerBinding = {
    trainer: remote,
    info,
    stateDir,
    hyper: make(TrainHyperparamsSchema, {
      ppoEpochs: config.ppoEpochs,
      minibatches: config.minibatches,
      clipLow: config.clipLow,
      clipHigh: config.clipHigh,
      learningRate: config.learningRate,
      temperature: config.temperature,
      lossAgg: 'token_mean',
      trustKl: config.trustKl,
    }),
  };
  logger.info({ trainer: address, name: info.name, traceKinds: info.traceKinds, artifactKind: info.artifactKind, latestVersion: Number(info.latestVersion) }, 'updates go to a remote trainer');
  return binding;
}

runService({
  name: 'learner',
  config: loadLearnerConfig,
  connectionName: (c) => `owrl-learner-${c.runId}`,
  logBindings: (c) => ({ run: c.runId }),
  start: async ({ config, bus, logger, meter, fail, topology }) => {
    const metrics = createLearnerMetrics(meter);
    const store = new RunStateStore(config.runId, config.rounds, config.mode);
    const runDir = path.join(config.dataDir, config.runId);

    await ensureTopology(bus, { logger, ...topology });
    const weights = await WeightsPointer.open(bus);
    const blacklist = await Blacklist.open(bus);

    const tasks = await loadTasks(config);
    logger.info({ tasks: tasks.length, levels: [...new Set(tasks.map((t) => t.difficulty))].sort() }, 'task pool loaded');
    const scheduler = new TaskScheduler(tasks, { seed: config.seed, initialLevels: config.levels.initial, unlockAt: config.levels.unlockAt, levelWindow: config.levels.window });
    const checkpoints = new CheckpointStore(path.join(runDir, 'checkpoint'));
    const incarnation = checkpoints.nextIncarnation();
    const model = initialModel({ dim: DEFAULT_DIM, temperature: config.temperature });
    const restored = config.resume ? checkpoints.load(model.dim) : null;
    if (restored) model.weights.set(restored.weights);
    else if (config.initPolicy) {
      // A warmed-up policy (owrl demo --warmup) starts the run: the first version actors run.
      model.weights.set(readOnnxWeights(fs.readFileSync(config.initPolicy)).weights);
      logger.info({ initPolicy: config.initPolicy }, 'initial policy loaded');
    }
    const optimizer = restored?.optimizer ?? new Adam(model.dim, config.learningRate > 0 ? { lr: config.learningRate } : {});
    const trainer = new GrpoTrainer(model, optimizer, { epochs: config.ppoEpochs, minibatches: config.minibatches, clipLow: config.clipLow, clipHigh: config.clipHigh, trustKl: config.trustKl });
    const remoteTrainer = config.trainer === 'inprocess' ? null : await connectTrainer(config, restored?.policyVersion ?? null, path.join(runDir, 'trainer'), logger);
    // RunState.update: the rule every update follows (the remote trainer gets the same hyper-parameters).
    store.change('snapshot', (s) => {
      s.update =
        remoteTrainer?.hyper ??
        make(TrainHyperparamsSchema, {
          ppoEpochs: trainer.epochs,
          minibatches: trainer.minibatches,
          clipLow: trainer.clipLow,
          clipHigh: trainer.clipHigh,
          learningRate: optimizer.lr,
          temperature: model.temperature,
          lossAgg: 'token_mean',
          trustKl: trainer.trustKl,
        });
    });
    const artifacts = new ArtifactServer(path.join(runDir, 'artifacts'), { port: config.artifactPort, host: config.artifactHost, advertiseHost: config.advertiseHost, keep: config.keepArtifacts });
    const artifactUrl = await artifacts.start();
    // The screenshots a remote update references: kept until the update is committed, served by sha256.
    const screenshots = new ScreenshotStore(bus);
    const keeper = new ShotKeeper(path.join(runDir, 'shots'), screenshots, logger);
    artifacts.serveShots({ find: (sha) => keeper.find(sha), get: (sha) => screenshots.get(sha) });
    const shots = remoteTrainer ? { keeper, imageUrl: artifacts.shotsUrl } : undefined;

    // RunState.actors and .blacklist for `owrl status` and the console, re-read from KV every few seconds.
    const fleet = new FleetView({ actors: await ActorRegistry.open(bus), blacklist }, store, logger);
    await fleet.start();

    const spill = config.heldSteps === 'disk' ? new StepSpill(path.join(runDir, 'spill'), { logger }) : undefined;
    const heldSteps = config.heldSteps === 'stream' ? new StreamSteps(bus, { logger }) : spill;
    if (config.heldSteps !== 'disk') fs.rmSync(path.join(runDir, 'spill'), { recursive: true, force: true });
    const learner = new Learner({ config, bus, store, scheduler, model, trainer, ...(remoteTrainer ? { remoteTrainer } : {}), ...(heldSteps ? { heldSteps } : {}), ...(shots ? { shots } : {}), artifacts, weights, blacklist, checkpoints, updatesDir: path.join(runDir, 'updates'), restored, incarnation, metrics, logger });
    const grpcServer = new LearnerGrpcServer(store, learner.control, { port: config.grpcPort, host: config.grpcHost, controlToken: config.controlToken, logger });
    const grpcPort = await grpcServer.start();
    grpcServer.setServing(true);
    logger.info({ grpcPort, artifactUrl, incarnation }, 'learner listening');

    // Training runs in the background; when it ends the learner keeps serving its run state.
    void learner.run().then(
      () => logger.info({ state: 'finished', policyVersion: store.get().policyVersion.toString() }, 'training finished; still serving run state until stopped'),
      (e: unknown) => {
        // Fatal: the run state says FAILED with its reason, health turns NOT_SERVING, the process exits non-zero.
        logger.error({ err: e }, 'training loop failed');
        store.change('phase', (s) => {
          s.phase = RunPhase.FAILED;
          s.failureCode = failureCodeOf(e);
          s.message = (e as Error).message;
        });
        grpcServer.setServing(false);
        fail(e);
      },
    );
    return {
      stop: async () => {
        await learner.stop();
        await fleet.stop();
        grpcServer.setServing(false);
        await grpcServer.close();
        await artifacts.close();
        await remoteTrainer?.trainer.close();
        // Last: the gRPC server read held trajectories' steps from it until it closed.
        spill?.close();
        if (heldSteps instanceof StreamSteps) heldSteps.close();
      },
    };
  },
});
