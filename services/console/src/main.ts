// Console process: the web app over the learner's gRPC API, run through the startup path.
import { Blacklist, ensureTopology, ScreenshotStore } from '@owrl/bus';
import { runService } from '@owrl/service';
import { ConsoleApp } from './app.js';
import { loadConsoleConfig } from './config.js';
import { LearnerClient } from '@owrl/learner-client';

runService({
  name: 'console',
  config: loadConsoleConfig,
  waitOnFirstConnect: true,
  start: async ({ config, bus, logger, topology }) => {
    // The console may start before the learner: the streams and buckets it reads are created here too.
    await ensureTopology(bus, { logger, ...topology });
    const learner = new LearnerClient(config.learner);
    const app = new ConsoleApp({ learner, shots: new ScreenshotStore(bus), blacklist: await Blacklist.open(bus), controlToken: config.controlToken.reveal(), logger });
    const port = await app.start(config.port, config.host);
    logger.info({ url: `http://${config.host}:${port}/`, learner: config.learner }, 'console ready');
    return {
      stop: async () => {
        await app.stop();
        learner.close();
      },
    };
  },
});
