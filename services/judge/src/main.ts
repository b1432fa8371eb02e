// Entry point of the judge process: reads the environment, connects to NATS, ensures the
// topology, serves /metrics and /healthz when OWRL_METRICS_PORT is set, runs the JudgeService,
// and shuts down gracefully on SIGTERM/SIGINT (stop pulling, finish in-flight, drain, exit).
import { connectBus, ensureTopology } from '@owrl/bus';
import { ConfigError, takeShutdownSignals } from '@owrl/core';
import { createLogger, createRegistry, startMetricsServer, type MetricsServer } from '@owrl/telemetry';
import { ApiJudge, OnnxJudge, modelVerdictSource, type BatchScorer } from '@owrl/judge-model';
import { readConfig, redactConfig, type JudgeConfig } from './config.js';
import { JudgeService } from './judge-service.js';

async function main(): Promise<void> {
  const signals = takeShutdownSignals();
  const log = createLogger('judge');
  let cfg: JudgeConfig;
  try {
    cfg = readConfig();
  } catch (e) {
    log.error({ err: (e as Error).message, variable: e instanceof ConfigError ? e.variable : undefined }, 'bad configuration');
    process.exitCode = 2;
    return;
  }
  log.info(redactConfig(cfg), 'judge starting');
  const bus = await connectBus({ servers: cfg.natsUrl, name: `judge-${process.pid}`, logger: log, waitOnFirstConnect: true });
  await ensureTopology(bus, { logger: log });
  const registry = createRegistry('judge');
  // The judge model judges tasks without a verifier and, in shadow mode, the verified ones too.
  let model: (BatchScorer & { close(): Promise<void> }) | undefined;
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
      logger: log,
      ...(a.apiKey !== '' ? { apiKey: a.apiKey } : {}),
      ...(a.threshold !== undefined ? { threshold: a.threshold } : {}),
      ...(a.extraBody !== undefined ? { extraBody: a.extraBody } : {}),
      ...(a.version !== '' ? { version: a.version } : {}),
    });
    // A server that is down or still loading is reported, not fatal: its judgements are excluded until it answers.
    const probe = await api.probe();
    if (probe.ok) log.info({ endpoint: api.endpoint, model: api.model, version: api.version }, 'judge model served by API');
    else log.warn({ endpoint: api.endpoint, model: api.model, version: api.version, problem: probe.problem }, 'judge API not ready; trajectories it should judge are excluded until it answers');
    model = api;
  } else if (cfg.model !== undefined) {
    const m = cfg.model;
    model = await OnnxJudge.load({
      modelDir: m.dir,
      device: m.device,
      workers: m.workers,
      maxBatch: m.maxBatch,
      timeoutMs: cfg.timeoutMs,
      logger: log,
      ...(m.threads > 0 ? { threads: m.threads } : {}),
      ...(m.threshold !== undefined ? { threshold: m.threshold } : {}),
    });
  }
  const modelSource = model === undefined ? undefined : modelVerdictSource(model);
  const shadow = (cfg.api ?? cfg.model)?.shadow === true;
  const service = new JudgeService({
    bus,
    logger: log,
    metrics: registry,
    judgeVersion: cfg.judgeVersion,
    concurrency: cfg.concurrency,
    timeoutMs: cfg.timeoutMs,
    ...(modelSource !== undefined ? { sources: [modelSource] } : {}),
    ...(modelSource !== undefined && shadow ? { shadow: modelSource } : {}),
  });
  let metrics: MetricsServer | null = null;
  if (cfg.metricsPort > 0) {
    metrics = await startMetricsServer(registry, { port: cfg.metricsPort, healthy: () => service.running && !bus.nc.isClosed() });
    log.info({ port: metrics.port }, 'metrics listening');
  }
  let stopping: Promise<void> | null = null;
  const shutdown = (signal: string): Promise<void> =>
    (stopping ??= (async () => {
      log.info({ signal }, 'judge shutting down');
      await service.stop();
      // Closing lets a forward pass in flight finish: killing a worker inside onnxruntime aborts the process.
      await model?.close().catch((e: unknown) => log.warn({ err: (e as Error).message }, 'judge model close failed'));
      await bus.drain().catch((e: unknown) => log.warn({ err: (e as Error).message }, 'drain failed'));
      await metrics?.close();
      log.info({ ...service.stats, ...(model instanceof ApiJudge ? { api: model.stats() } : {}) }, 'judge stopped');
    })());
  signals.ready(shutdown);
  await service.start();

  // Consumption also ends when the connection closes for good: shut down the rest then.
  await service.closed;
  await shutdown('closed');
}

main().catch((e: unknown) => {
  // The logger may not exist yet; one JSON line on stderr keeps the failure machine-readable.
  process.stderr.write(`${JSON.stringify({ level: 'fatal', service: 'judge', err: (e as Error)?.stack ?? String(e) })}\n`);
  process.exit(1);
});
