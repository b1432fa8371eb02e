// @owrl/nats-server: a local JetStream nats-server as a child process, on a free port with its own
// store directory; stoppable and restartable on the same port and store. The demo starts one when
// no NATS_URL is configured; the test kit and the benchmarks start theirs through it.
export {
  startNatsServer,
} from './nats-server.js';
export type {
  NatsServer,
  NatsServerOptions,
} from './nats-server.js';
export {
  freePort,
  freePorts,
} from './free-port.js';
