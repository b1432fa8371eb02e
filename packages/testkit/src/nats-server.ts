// The tests' nats-server: @owrl/nats-server's launcher ($NATS_SERVER_BIN or the usual paths).
export { freePort, freePorts, startNatsServer } from '@owrl/nats-server';
export type { NatsServer, NatsServerOptions } from '@owrl/nats-server';
