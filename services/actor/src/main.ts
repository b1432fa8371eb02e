// Actor process: Chromium pool + policy holder + JetStream consumer, with metrics and heartbeats.
import { BrowserPool } from '@owrl/browser-env';
import { connectBus, ensureTopology, ActorRegistry, WeightsPointer } from '@owrl/bus';
import { takeShutdownSignals } from '@owrl/core';
import { createLogger, createRegistry, startMetricsServer } from '@owrl/telemetry';
import { Actor } from './actor.js';
import { loadActorConfig } from './config.js';
import { PolicyHolder } from './policy-holder.js';

async function main(): Promise<void> {
  const signals = takeShutdownSignals();
  const config = loadActorConfig();
  const logger = createLogger('actor', { bindings: { actor: config.actorId } });
  const metrics = createRegistry('actor');
  const bus = await connectBus({ servers: config.natsUrl, name: `owrl-actor-${config.actorId}`, logger });
  await ensureTopology(bus);
  const pool = new BrowserPool({
    executablePath: config.chromiumPath,
    allowHosts: config.allowHosts,
    maxEpisodesPerBrowser: config.maxEpisodesPerBrowser,
    logger,
  });
  await pool.start();
  const policies = new PolicyHolder(logger);
  const actor = new Actor({
    config,
    bus,
    pool,
    policies,
    weights: await WeightsPointer.open(bus),
    registry: await ActorRegistry.open(bus),
    metrics,
    logger,
  });
  await actor.start();
  const metricsServer = config.metricsPort > 0 ? await startMetricsServer(metrics, { port: config.metricsPort }) : null;
  logger.info({ slots: config.slots, metricsPort: metricsServer?.port ?? 0 }, 'actor ready');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'actor draining');
    await actor.stop();
    await policies.close();
    await pool.close();
    await metricsServer?.close();
    await bus.close();
    process.exit(0);
  };
  signals.ready(shutdown);
}

main().catch((e: unknown) => {
  process.stderr.write(`actor: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
