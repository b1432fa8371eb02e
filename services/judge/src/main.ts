// Judge process: the JudgeService (consume trajectories → reward pipeline → publish scored →
// ack) with the optional judge model, run through the startup path. It may start before NATS.
import { ensureTopology } from '@owrl/bus';
import { OnnxJudge, modelVerdictSource } from '@owrl/judge-model';
import { runService } from '@owrl/service';
import { readConfig } from './config.js';
import { JudgeService } from './judge-service.js';

runService({
  name: 'judge',
  config: readConfig,
  waitOnFirstConnect: true,
  start: async ({ config: cfg, bus, logger, meter, health }) => {
    logger.info({ ...cfg }, 'judge starting');
    await ensureTopology(bus, { logger });
    // The judge model judges tasks without a verifier and, in shadow mode, the verified ones too.
    const m = cfg.model;
    const model =
      m === undefined
        ? undefined
        : await OnnxJudge.load({
            modelDir: m.dir,
            device: m.device,
            workers: m.workers,
            maxBatch: m.maxBatch,
            timeoutMs: cfg.timeoutMs,
            logger,
            ...(m.threads > 0 ? { threads: m.threads } : {}),
            ...(m.threshold !== undefined ? { threshold: m.threshold } : {}),
          });
    const modelSource = model === undefined ? undefined : modelVerdictSource(model);
    const service = new JudgeService({
      bus,
      logger,
      meter,
      judgeVersion: cfg.judgeVersion,
      concurrency: cfg.concurrency,
      timeoutMs: cfg.timeoutMs,
      ...(modelSource !== undefined ? { sources: [modelSource] } : {}),
      ...(modelSource !== undefined && m?.shadow === true ? { shadow: modelSource } : {}),
    });
    health.check('consuming', () => service.running);
    await service.start();
    return {
      stop: async () => {
        await service.stop();
        // Closing lets a forward pass in flight finish: killing a worker inside onnxruntime aborts the process.
        await model?.close().catch((e: unknown) => logger.warn({ err: e }, 'judge model close failed'));
      },
      // Consumption also ends when the connection closes for good: that is a failure, not a stop.
      done: service.closed.then(() => {
        throw new Error('judge consumption ended');
      }),
    };
  },
});
