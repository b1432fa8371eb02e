// The tests' nats-server: @owrl/nats-server's launcher, with the binary from $NATS_SERVER_BIN when
// it is set (the launcher itself reads no environment).
import { startNatsServer as start, type NatsServer, type NatsServerOptions } from '@owrl/nats-server';

export { freePort, freePorts } from '@owrl/nats-server';
export type { NatsServer, NatsServerOptions };

/** Starts a JetStream-enabled nats-server on a free port ($NATS_SERVER_BIN or the usual paths). */
export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServer> {
  const bin = process.env['NATS_SERVER_BIN'];
  return await start({ ...(bin ? { bin } : {}), ...opts });
}
