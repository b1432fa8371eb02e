// The NATS settings of a command: NATS_URL and the NATS_* authentication variables (the same
// ones the services read, through readNatsSettings), with `--nats URL` taking the URL's place.
import { readNatsSettings, type NatsSettings } from '@owrl/bus';
import { ConfigError, type Env } from '@owrl/core';
import { UsageError } from './usage.js';

/** @throws UsageError naming the variable or flag when a setting is bad (exit 2). */
export function natsSettings(env: Env, flag: string | undefined): NatsSettings {
  try {
    return readNatsSettings(flag === undefined ? env : { ...env, NATS_URL: flag });
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(flag !== undefined && e.variable === 'NATS_URL' ? e.message.replace(/^NATS_URL/, '--nats') : e.message, { cause: e });
    throw e;
  }
}
