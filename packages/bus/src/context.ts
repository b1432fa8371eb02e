// What the bus's parts share: the connection, the JetStream contexts and the logger. The Bus
// implements it; internal modules depend on this interface, not on the Bus class.
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '@owrl/core';

export interface BusContext {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly logger: Logger;
}
