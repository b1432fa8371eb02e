// Sites process: the bundled sites' HTTP server (no NATS), run through the startup path.
import { runService } from '@owrl/service';
import { loadSitesConfig } from './config.js';
import { startSitesServer } from './server.js';

runService({
  name: 'sites',
  bus: false,
  config: loadSitesConfig,
  start: async ({ config, logger }) => {
    const server = await startSitesServer({ port: config.port, host: config.host, seed: config.seed, logger, faults: config.faults });
    if (config.faults.length > 0) logger.info({ file: config.faultFile, rules: server.faults.list() }, 'startup fault rules active');
    return { stop: () => server.close() };
  },
});
