// Judge process: the JudgeService (consume trajectories → reward pipeline → publish scored →
// ack) with the optional judge model (an ONNX export, or a model behind an OpenAI-compatible
// API), run through the startup path. It may start before NATS.
import { CONSUMER_JUDGE, ensureTopology, startDlqMover, STREAM_TRAJ } from '@owrl/bus';
import { createVerifiers } from '@owrl/judge-core';
import { ApiJudge, OnnxJudge, isGpu, modelVerdictSource, type BatchScorer } from '@owrl/judge-model';
import type { Meter, Logger } from '@owrl/core';
import { runService } from '@owrl/service';
import { concurrencyDefault, readConfig, redactConfig, type JudgeConfig } from './config.js';
import { JudgeService } from './judge-service.js';

type JudgeModel = BatchScorer & { close(): Promise<void> };

/** The judge model of the configuration, or undefined (verifiers only). */
async function loadModel(cfg: JudgeConfig, logger: Logger, meter: Meter): Promise<JudgeModel | undefined> {
  if (cfg.api !== undefined) {
    const a = cfg.api;
    const api = new ApiJudge({
      url: a.url,
      model: a.model,
      concurrency: a.concurrency,
      retries: a.retries,
      image: a.image,
      logprobs: a.logprobs,
      topLogprobs: a.topLogprobs,
      maxTokens: a.maxTokens,
      maxPromptChars: a.maxPromptChars,
      timeoutMs: cfg.timeoutMs,
      logger,
      ...(a.apiKey !== '' ? { apiKey: a.apiKey } : {}),
      ...(a.threshold !== undefined ? { threshold: a.threshold } : {}),
      ...(a.extraBody !== undefined ? { extraBody: a.extraBody } : {}),
      ...(a.version !== '' ? { version: a.version } : {}),
    });
    // A server that is down or still loading is reported, not fatal: its judgements are excluded until it answers.
    const probe = await api.probe();
    if (probe.ok) logger.info({ endpoint: api.endpoint, model: api.model, version: api.version }, 'judge model served by API');
    else logger.warn({ endpoint: api.endpoint, model: api.model, version: api.version, problem: probe.problem }, 'judge API not ready; trajectories it should judge are excluded until it answers');
    return api;
  }
  const m = cfg.model;
  if (m === undefined) return undefined;
  return await OnnxJudge.load({
    modelDir: m.dir,
    device: m.device,
    workers: m.workers,
    timeoutMs: cfg.timeoutMs,
    logger,
    meter,
    ...(m.prepareWorkers !== undefined ? { prepareWorkers: m.prepareWorkers } : {}),
    ...(m.maxBatch !== undefined ? { maxBatch: m.maxBatch } : {}),
    ...(m.batchTokens !== undefined ? { batchTokens: m.batchTokens } : {}),
    ...(m.threads > 0 ? { threads: m.threads } : {}),
    ...(m.threshold !== undefined ? { threshold: m.threshold } : {}),
  });
}

function backendOf(model: JudgeModel | undefined): 'none' | 'api' | 'cpu' | 'gpu' {
  if (model === undefined) return 'none';
  if (model instanceof OnnxJudge) return isGpu(model.device) ? 'gpu' : 'cpu';
  return 'api';
}

runService({
  name: 'judge',
  config: readConfig,
  waitOnFirstConnect: true,
  start: async ({ config: cfg, bus, logger, meter, health, topology }) => {
    logger.info(redactConfig(cfg), 'judge starting');
    await ensureTopology(bus, { logger, ...topology });
    // The judge model judges tasks without a verifier and, in shadow mode, the verified ones too.
    const model = await loadModel(cfg, logger, meter);
    const modelSource = model === undefined ? undefined : modelVerdictSource(model);
    const shadow = (cfg.api ?? cfg.model)?.shadow === true;
    const service = new JudgeService({
      bus,
      logger,
      meter,
      judgeVersion: cfg.judgeVersion,
      concurrency: cfg.concurrency ?? concurrencyDefault(backendOf(model), model?.maxBatch),
      timeoutMs: cfg.timeoutMs,
      verifiers: createVerifiers(cfg.verifyHosts !== undefined ? { verifyHosts: cfg.verifyHosts } : {}),
      ...(modelSource !== undefined ? { sources: [modelSource] } : {}),
      ...(modelSource !== undefined && shadow ? { shadow: modelSource } : {}),
    });
    health.check('consuming', () => service.running);
    // Trajectories the judge failed to ack max_deliver times (a judge that crashes on one, say) are
    // moved to OWRL_DLQ with the reason, from the server's advisories: kept, not left in the stream.
    let dlq: Awaited<ReturnType<typeof startDlqMover>> | undefined;
    try {
      await service.start();
      dlq = await startDlqMover(bus, { stream: STREAM_TRAJ, consumer: CONSUMER_JUDGE });
    } catch (e) {
      // Nothing is left running when the start fails (it is retried while the broker is unavailable).
      await service.stop().catch(() => {});
      await model?.close().catch(() => {});
      throw e;
    }
    return {
      stop: async () => {
        await dlq?.stop();
        await service.stop();
        // Closing lets a forward pass in flight finish: killing a worker inside onnxruntime aborts the process.
        await model?.close().catch((e: unknown) => logger.warn({ err: e }, 'judge model close failed'));
        logger.info({ ...service.stats, ...(model instanceof ApiJudge ? { api: model.stats() } : {}) }, 'judge stopped');
      },
      // Consumption also ends when the connection closes for good: that is a failure, not a stop.
      done: service.closed.then(() => {
        throw new Error('judge consumption ended');
      }),
    };
  },
});
