// Configuration of the sites process from the environment: OWRL_SITES_PORT (default 8400),
// OWRL_SITES_HOST (default 127.0.0.1), OWRL_SITES_SEED (data seed of every site, default 1) and
// OWRL_SITES_FAULTS (a JSON file of fault rules active from the start, read and checked here).
import { ConfigError, envInt, envNumber, envString, type Env } from '@owrl/core';
import { DEFAULT_DATA_SEED, SUITES } from '@owrl/tasks';
import { addRules, readFaultFile } from './faults/file.js';
import { FaultRegistry } from './faults/registry.js';

export interface SitesConfig {
  port: number;
  host: string;
  seed: number;
  /** Path of the fault file; '' = none. */
  faultFile: string;
  /** Its rules, checked against the bundled sites. */
  faults: unknown[];
}

/** @throws ConfigError naming the variable (a bad fault rule names OWRL_SITES_FAULTS and the rule's field). */
export async function loadSitesConfig(env: Env): Promise<SitesConfig> {
  const port = envInt('OWRL_SITES_PORT', 8400, env, 0);
  if (port > 65535) throw new ConfigError('OWRL_SITES_PORT', `OWRL_SITES_PORT=${port} is not a port (0-65535)`);
  const seed = envNumber('OWRL_SITES_SEED', DEFAULT_DATA_SEED, env, { integer: true });
  const faultFile = envString('OWRL_SITES_FAULTS', '', env);
  let faults: unknown[] = [];
  if (faultFile !== '') {
    try {
      faults = await readFaultFile(faultFile);
      addRules(new FaultRegistry(seed, SUITES.map((s) => s.site)), faults, 'faults');
    } catch (e) {
      throw new ConfigError('OWRL_SITES_FAULTS', `OWRL_SITES_FAULTS=${JSON.stringify(faultFile)}: ${(e as Error).message}`, { cause: e });
    }
  }
  return { port, seed, host: envString('OWRL_SITES_HOST', '127.0.0.1', env), faultFile, faults };
}
