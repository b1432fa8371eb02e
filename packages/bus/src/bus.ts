// The Bus: one NATS connection (reconnecting forever) with its JetStream client and manager,
// typed protobuf publish with Nats-Msg-Id dedupe, typed consumption, and lag passthroughs.
import { encode, type DescMessage, type MessageShape } from '@owrl/proto';
import { type ConsumerInfo, type JetStreamClient, type JetStreamManager, type StreamInfo, JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import { credsAuthenticator, nkeyAuthenticator, type ConnectionOptions, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { silentLogger, type Logger } from '@owrl/core';
import { consume, type ConsumeHandle, type ConsumeOptions } from './consume.js';
import type { BusContext } from './context.js';
import { BusError, BusErrorCode } from './errors.js';
import { errFields } from './logger.js';
import { redactUrl, type NatsAuth } from './nats-settings.js';
import { installOutboundWritev } from './outbound-writev.js';
import { installPayloadBuffers } from './payload-buffer.js';
import { installSharedCancelError } from './request-cancel.js';
import { publishBytes, type PublishOptions, type PublishResult } from './publish.js';

export interface ConnectBusOptions {
  /** Server URL(s), e.g. nats://127.0.0.1:4222. */
  servers: string | string[];
  /** Connection name shown by the server (service and instance). */
  name: string;
  logger?: Logger;
  /** Wait between reconnect attempts; default 1000 ms. Reconnects never give up. */
  reconnectTimeWaitMs?: number;
  /** Timeout of the initial connect and of JetStream API requests; default 5000 ms. */
  timeoutMs?: number;
  /** Keep retrying the first connect instead of failing (services that may start before NATS). */
  waitOnFirstConnect?: boolean;
  /** How to authenticate (readNatsSettings reads it from the environment); default none. */
  auth?: NatsAuth;
}

/** Backlog of a consumer, for lag reporting and autoscaling. */
export interface ConsumerLag {
  /** Messages not yet delivered. */
  numPending: number;
  /** Delivered and not yet acked. */
  numAckPending: number;
  numRedelivered: number;
  /** Outstanding pull requests. */
  numWaiting: number;
}

/** The nats.js options of an authentication method. */
function authOptions(auth: NatsAuth | undefined): Partial<ConnectionOptions> {
  switch (auth?.kind) {
    case 'user-password':
      return { user: auth.user, pass: auth.password.reveal() };
    case 'token':
      return { token: auth.token.reveal() };
    case 'creds':
      return { authenticator: credsAuthenticator(new TextEncoder().encode(auth.creds.reveal())) };
    case 'nkey':
      return { authenticator: nkeyAuthenticator(new TextEncoder().encode(auth.seed.reveal())) };
    default:
      return {};
  }
}

/**
 * Connects to NATS with unlimited reconnects and opens JetStream.
 * @throws BusError BUS_AUTH_FAILED when the server refuses the credentials, BUS_CONNECT_FAILED otherwise.
 */
export async function connectBus(opts: ConnectBusOptions): Promise<Bus> {
  installPayloadBuffers();
  installOutboundWritev();
  installSharedCancelError();
  const logger = (opts.logger ?? silentLogger).child({ component: 'bus' });
  const timeout = opts.timeoutMs ?? 5000;
  const where = (Array.isArray(opts.servers) ? opts.servers : [opts.servers]).map(redactUrl).join(',');
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: opts.servers,
      name: opts.name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: opts.reconnectTimeWaitMs ?? 1000,
      timeout,
      waitOnFirstConnect: opts.waitOnFirstConnect ?? false,
      // Without it the client builds an Error (a stack trace) ahead of every request in case it
      // fails: every publish (its PubAck) and every confirmed ack, ~2 % of the learner's CPU in the
      // bus bench. Failures still carry their message and code.
      noAsyncTraces: true,
      ...authOptions(opts.auth),
    });
  } catch (e) {
    const refused = isAuthError(e);
    throw new BusError(
      refused ? BusErrorCode.AuthFailed : BusErrorCode.ConnectFailed,
      `${refused ? `NATS at ${where} refused the credentials (auth ${opts.auth?.kind ?? 'none'})` : `cannot connect to NATS at ${where}`}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc, { timeout });
  } catch (e) {
    await nc.close().catch(() => {});
    throw new BusError(BusErrorCode.ConnectFailed, `JetStream is not available at ${where}: ${(e as Error).message}`, { cause: e });
  }
  return new Bus(nc, jsm.jetstream(), jsm, logger);
}

export class Bus implements BusContext {
  /** @internal use connectBus(). */
  constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    readonly logger: Logger,
  ) {
    void this.watchStatus();
  }

  private async watchStatus(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') this.logger.warn({ server: s.server }, 'NATS disconnected');
      else if (s.type === 'reconnect') this.logger.info({ server: s.server }, 'NATS reconnected');
      else if (s.type === 'error') this.logger.error({ ...errFields(s.error) }, 'NATS error');
    }
  }

  /**
   * Encodes `msg` (schema version filled in) and publishes it with Nats-Msg-Id = `opts.msgId`.
   * @throws BusError BUS_PUBLISH_REFUSED when the stream is full (discard new), and the other
   *   publish codes (see {@link publishBytes}).
   */
  async publish<Desc extends DescMessage>(subject: string, schema: Desc, msg: MessageShape<Desc>, opts: PublishOptions): Promise<PublishResult> {
    return await publishBytes(this, subject, encode(schema, msg), opts);
  }

  /** Publishes raw bytes (already encoded) with Nats-Msg-Id dedupe. */
  async publishBytes(subject: string, data: Uint8Array, opts: PublishOptions): Promise<PublishResult> {
    return await publishBytes(this, subject, data, opts);
  }

  /** Consumes a durable pull consumer with typed, bounded handlers (see {@link ConsumeOptions}). */
  async consume<Desc extends DescMessage>(opts: ConsumeOptions<Desc>): Promise<ConsumeHandle> {
    return await consume(this, opts);
  }

  /** @throws BusError BUS_NOT_FOUND when the stream does not exist. */
  async streamInfo(stream: string): Promise<StreamInfo> {
    try {
      return await this.jsm.streams.info(stream);
    } catch (e) {
      throw infoError(`stream ${stream}`, e);
    }
  }

  /** @throws BusError BUS_NOT_FOUND when the consumer does not exist. */
  async consumerInfo(stream: string, consumer: string): Promise<ConsumerInfo> {
    try {
      return await this.jsm.consumers.info(stream, consumer);
    } catch (e) {
      throw infoError(`consumer ${stream}/${consumer}`, e);
    }
  }

  /** Pending and unacked counts of a consumer. */
  async consumerLag(stream: string, consumer: string): Promise<ConsumerLag> {
    const ci = await this.consumerInfo(stream, consumer);
    return { numPending: ci.num_pending, numAckPending: ci.num_ack_pending, numRedelivered: ci.num_redelivered, numWaiting: ci.num_waiting };
  }

  /** Flushes pending publishes and acks, then closes. */
  async drain(): Promise<void> {
    if (this.nc.isClosed()) return;
    await this.nc.drain();
  }

  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    await this.nc.close();
  }

  /** Resolves when the connection is closed. */
  async closed(): Promise<void> {
    await this.nc.closed();
  }
}

function isAuthError(e: unknown): boolean {
  for (let c: unknown = e; c instanceof Error; c = c.cause) {
    if (c.name === 'AuthorizationError' || c.name === 'UserAuthenticationExpiredError' || /authorization violation|authentication/i.test(c.message)) return true;
  }
  return false;
}

function infoError(what: string, e: unknown): BusError {
  if (e instanceof JetStreamApiError && (e.code === 10014 || e.code === 10059)) {
    return new BusError(BusErrorCode.NotFound, `${what} does not exist`, { cause: e });
  }
  return new BusError(BusErrorCode.ApiFailed, `${what}: ${(e as Error).message}`, { cause: e });
}
