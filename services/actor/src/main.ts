// Actor process: Chromium pool + policy holder + JetStream consumer, run through the startup path.
import { BrowserPool } from '@owrl/browser-env';
import { ensureTopology, ActorRegistry, CONSUMER_ACTORS, ScreenshotStore, startDlqMover, STREAM_TASKS, WeightsPointer } from '@owrl/bus';
import { EngineWeightLoader } from '@owrl/llm-policy';
import { runService } from '@owrl/service';
import { Actor } from './actor.js';
import { loadActorConfig } from './config.js';
import { openaiBackend, pointerBackend } from './policy-backends.js';
import { PolicyHolder } from './policy-holder.js';
import { SyntheticEpisodes } from './synthetic-episodes.js';

runService({
  name: 'actor',
  config: loadActorConfig,
  // Actors may start before NATS (compose, Kubernetes, a broker restart): keep trying to connect.
  waitOnFirstConnect: true,
  connectionName: (c) => `owrl-actor-${c.actorId}`,
  logBindings: (c) => ({ actor: c.actorId }),
  start: async ({ config, bus, logger, meter, topology }) => {
    await ensureTopology(bus, { logger, ...topology });
    // OWRL_SYNTHETIC=1: no browser; episodes are drawn from a model of episode times (scale tests).
    const synthetic = config.synthetic ? new SyntheticEpisodes(config.synthetic) : null;
    // Every episode's browser is behind the egress fence (docs/fence.md); its refusals count on this meter.
    const pool = synthetic ?? new BrowserPool({ executablePath: config.chromiumPath, allowHosts: config.allowHosts, maxEpisodesPerBrowser: config.maxEpisodesPerBrowser, logger, meter });
    if (synthetic) logger.info({ synthetic: synthetic.options }, 'synthetic episodes: no browser');
    const loader =
      config.openai && config.loadWeights && (config.openai.engine === 'vllm' || config.openai.engine === 'sglang')
        ? new EngineWeightLoader({ engine: config.openai.engine, baseUrl: config.openai.baseUrl, ...(config.openai.apiKey ? { apiKey: config.openai.apiKey } : {}), logger })
        : undefined;
    const backend = config.openai ? openaiBackend(config.openai, logger, loader, meter) : pointerBackend();
    logger.info({ policy: config.policy, kinds: backend.kinds, ...(config.openai ? { baseUrl: config.openai.baseUrl, model: config.openai.model, engine: config.openai.engine, loadWeights: loader !== undefined } : {}) }, 'policy backend');
    const policies = new PolicyHolder(logger, backend);
    const closeBrowsers = async () => {
      await policies.close();
      await pool.close();
    };
    let actor: Actor | undefined;
    let dlq: Awaited<ReturnType<typeof startDlqMover>> | undefined;
    try {
      await pool.start();
      actor = new Actor({ config, bus, pool, policies, weights: await WeightsPointer.open(bus), registry: await ActorRegistry.open(bus), shots: new ScreenshotStore(bus), meter, logger });
      await actor.start();
      // Rollout requests no actor acked within max_deliver deliveries (a request that crashes
      // every actor that takes it) are moved to OWRL_DLQ with the reason and out of the work queue.
      dlq = await startDlqMover(bus, { stream: STREAM_TASKS, consumer: CONSUMER_ACTORS });
      logger.info({ slots: config.slots, maxEpisodes: config.maxEpisodes || null }, 'actor ready');
      const running = actor;
      const mover = dlq;
      return {
        stop: async () => {
          // A synthetic actor publishes what it holds at once instead of waiting out the long tail.
          synthetic?.hurry();
          await mover.stop();
          await running.stop();
          await closeBrowsers();
        },
        // OWRL_MAX_EPISODES: the service ends (exit 0) once that many requests were served.
        ...(config.maxEpisodes ? { done: running.finished() } : {}),
      };
    } catch (e) {
      // A start that failed half-way (e.g. the broker went away) leaves nothing running: it may be retried.
      await dlq?.stop().catch(() => {});
      await actor?.stop().catch(() => {});
      await closeBrowsers();
      throw e;
    }
  },
});
