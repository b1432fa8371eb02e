// Process entry of the sites service: reads OWRL_SITES_PORT (default 8400), OWRL_SITES_HOST
// (default 127.0.0.1), OWRL_SITES_SEED (data seed of every site, default 1) and OWRL_SITES_FAULTS (a JSON
// file of fault rules active from the start), logs one JSON line when listening, and shuts down
// on SIGTERM/SIGINT.
import { envInt, envNumber, envString, takeShutdownSignals } from '@owrl/core';
import { DEFAULT_DATA_SEED } from '@owrl/tasks';
import { createLogger } from '@owrl/telemetry';
import { readFaultFile } from './faults/file.js';
import { startSitesServer } from './server.js';

async function main(): Promise<void> {
  const signals = takeShutdownSignals();
  const log = createLogger('sites');
  const port = envInt('OWRL_SITES_PORT', 8400, process.env, 0);
  const host = envString('OWRL_SITES_HOST', '127.0.0.1');
  const seed = envNumber('OWRL_SITES_SEED', DEFAULT_DATA_SEED, process.env, { integer: true });
  const faultFile = envString('OWRL_SITES_FAULTS', '');
  const faults = faultFile === '' ? [] : await readFaultFile(faultFile);
  const server = await startSitesServer({ port, host, seed, logger: log, faults });
  if (faults.length > 0) log.info({ file: faultFile, rules: server.faults.list() }, 'startup fault rules active');
  signals.ready(async (signal) => {
    log.info({ signal }, 'sites stopping');
    try {
      await server.close();
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'sites close failed');
      process.exit(1);
    }
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${JSON.stringify({ level: 'fatal', service: 'sites', msg: 'sites failed to start', err: String(err) })}\n`);
  process.exit(1);
});
