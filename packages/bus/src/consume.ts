// Typed consumption of a durable pull consumer: bounded in-flight handlers, protobuf decoding
// with schema-version checks, automatic working() while a handler runs, nak with backoff on
// failure, and dead-lettering of undecodable messages and of failures on the last delivery.
import { decode, isProtoError, ProtoErrorCode, type DescMessage, type MessageShape } from '@owrl/proto';
import type { JsMsg } from '@nats-io/jetstream';
import type { BusContext } from './context.js';
import { DeliveryImpl, type Delivery, type DeliveryDeps } from './delivery.js';
import { DlqReason } from './dlq.js';
import { BusError, BusErrorCode } from './errors.js';
import { errFields } from './logger.js';
import { startPullLoop } from './pull-loop.js';

export interface ConsumeOptions<Desc extends DescMessage> {
  stream: string;
  consumer: string;
  /** Message type of the payloads. */
  schema: Desc;
  /**
   * Decodes a payload instead of `decode(schema, bytes)` (e.g. decodeScoredLazy: the policy traces
   * decoded only when read). Must throw a ProtoError for bytes it cannot decode, as `decode` does.
   */
  decode?: (bytes: Uint8Array) => MessageShape<Desc>;
  /** Handlers running at once (e.g. free browser slots); messages are pulled only for free slots. */
  maxInFlight: number;
  /**
   * Works on one message. Resolving without settling acks it (unless `autoAck` is false);
   * throwing naks it with backoff, or dead-letters it on the consumer's last delivery.
   */
  handler: (d: Delivery<MessageShape<Desc>>) => Promise<void> | void;
  /**
   * Take at most this many messages, then stop once their handlers are done (`closed` resolves,
   * `stats.handled` tells how many were taken): an actor serving N episodes. Default: no limit.
   */
  maxMessages?: number;
  /** Aborting it stops the consumer like stop(). */
  signal?: AbortSignal;
  /** working() interval while a handler runs; must be below the consumer's ack_wait. Default 15 s (a third of a shorter ack_wait). */
  workingIntervalMs?: number;
  /** Ack when the handler resolves without settling. Default true; the learner sets false and acks after checkpointing. */
  autoAck?: boolean;
  /** nak delay by delivery count (1st failure → [0], …, last repeated). Default 1 s, 5 s, 15 s, 30 s. */
  nakBackoffMs?: readonly number[];
  /** Lifetime of a pull request (≥ 1000); bounds how long stop() waits. Default 5000 ms. */
  pullExpiresMs?: number;
  /** Timeout of the double ack. Default 5000 ms. */
  ackTimeoutMs?: number;
  /**
   * Whether an ack waits for the server's confirmation (a double ack: one request and its reply
   * per message). Default true. False: the ack is sent and the handler's slot (or the caller of
   * Delivery.ack) goes on at once; for consumers that dedupe what they are delivered again (every
   * owrl service: an ack lost on the way only brings the message back, and an unconfirmed ack is
   * not sent again either). stop() flushes the connection, so the acks sent reach the server
   * before it resolves.
   */
  confirmAcks?: boolean;
}

export interface ConsumeStats {
  /** Messages handed to the handler. */
  handled: number;
  /** Handler failures (naked or dead-lettered). */
  failed: number;
  /** Messages this consumer published to the DLQ. */
  deadLettered: number;
}

export interface ConsumeHandle {
  /** Stops pulling and waits for in-flight handlers (and outstanding pulls, ≤ pullExpiresMs). */
  stop(): Promise<void>;
  /** Resolves once stopped (stop(), the signal, or the connection closing). */
  readonly closed: Promise<void>;
  readonly stats: Readonly<ConsumeStats>;
}

export const DEFAULT_NAK_BACKOFF_MS: readonly number[] = [1000, 5000, 15_000, 30_000];

/** nak delay after the `deliveryCount`-th delivery failed (pure). */
export function nakDelayMs(deliveryCount: number, schedule: readonly number[] = DEFAULT_NAK_BACKOFF_MS): number {
  if (schedule.length === 0) return 0;
  const i = Math.min(Math.max(deliveryCount, 1), schedule.length) - 1;
  return schedule[i] ?? 0;
}

function intOption(field: string, v: number | undefined, def: number, min: number): number {
  if (v === undefined) return def;
  if (!Number.isInteger(v) || v < min) throw new BusError(BusErrorCode.InvalidArgument, `consume option ${field}=${String(v)} must be an integer >= ${min}`);
  return v;
}

/** True when the server accepts a reason with +TERM (nats-server 2.11+). */
function serverTakesTermReason(ctx: BusContext): boolean {
  const m = /^v?(\d+)\.(\d+)/.exec(ctx.nc.info?.version ?? '');
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 2 || (major === 2 && minor >= 11);
}

/**
 * Starts consuming `stream`/`consumer`.
 * @throws BusError BUS_NOT_FOUND (no such consumer), BUS_INVALID_ARGUMENT (bad options, or a
 *   workingIntervalMs not below the consumer's ack_wait).
 */
export async function consume<Desc extends DescMessage>(ctx: BusContext, opts: ConsumeOptions<Desc>): Promise<ConsumeHandle> {
  const maxInFlight = intOption('maxInFlight', opts.maxInFlight, 1, 1);
  const maxMessages = opts.maxMessages === undefined ? undefined : intOption('maxMessages', opts.maxMessages, 1, 1);
  const pullExpiresMs = intOption('pullExpiresMs', opts.pullExpiresMs, 5000, 1000);
  const ackTimeoutMs = intOption('ackTimeoutMs', opts.ackTimeoutMs, 5000, 100);
  const autoAck = opts.autoAck ?? true;
  const backoff = opts.nakBackoffMs ?? DEFAULT_NAK_BACKOFF_MS;
  const log = ctx.logger.child({ stream: opts.stream, consumer: opts.consumer });
  const decodeWith = opts.decode ?? ((bytes: Uint8Array) => decode(opts.schema, bytes));

  let ackWaitMs: number;
  let maxDeliver: number;
  try {
    const ci = await ctx.jsm.consumers.info(opts.stream, opts.consumer);
    ackWaitMs = (ci.config.ack_wait ?? 30e9) / 1e6;
    maxDeliver = ci.config.max_deliver ?? -1;
  } catch (e) {
    throw new BusError(BusErrorCode.NotFound, `consumer ${opts.stream}/${opts.consumer} does not exist: run ensureTopology() first (${(e as Error).message})`, {
      cause: e,
    });
  }
  // Default: every 15 s, or a third of a shorter ack_wait.
  const workingIntervalMs = intOption('workingIntervalMs', opts.workingIntervalMs, Math.max(100, Math.min(15_000, Math.floor(ackWaitMs / 3))), 100);
  if (workingIntervalMs >= ackWaitMs) {
    throw new BusError(
      BusErrorCode.InvalidArgument,
      `consume option workingIntervalMs=${workingIntervalMs} must be below the ack_wait (${ackWaitMs} ms) of ${opts.stream}/${opts.consumer}`,
    );
  }
  const confirmAcks = opts.confirmAcks ?? true;
  const deps: DeliveryDeps = { ctx, consumer: opts.consumer, termReasons: serverTakesTermReason(ctx), ackTimeoutMs, confirmAcks, workingMinGapMs: Math.floor(ackWaitMs / 10) };
  const stats: ConsumeStats = { handled: 0, failed: 0, deadLettered: 0 };

  const deadLetter = async (d: DeliveryImpl<unknown>, detail: string, reason: DlqReason): Promise<void> => {
    try {
      await d.term(detail, reason);
      stats.deadLettered++;
      log.warn({ seq: d.seq, subject: d.subject, msgId: d.msgId, reason, detail, deliveries: d.deliveryCount }, 'message dead-lettered');
    } catch (e) {
      log.error({ ...errFields(e), seq: d.seq, reason }, 'DLQ publish failed; message naked for redelivery');
    }
  };

  const onMessage = async (m: JsMsg): Promise<void> => {
    let value: MessageShape<Desc>;
    try {
      value = decodeWith(m.data);
    } catch (e) {
      const reason = isProtoError(e, ProtoErrorCode.UnsupportedSchemaVersion) ? DlqReason.UnsupportedSchemaVersion : DlqReason.Undecodable;
      await deadLetter(new DeliveryImpl<unknown>(undefined, m, deps), (e as Error).message, reason);
      return;
    }
    const d = new DeliveryImpl(value, m, deps);
    stats.handled++;
    const heartbeat = setInterval(() => d.working(), workingIntervalMs);
    let handled = false;
    try {
      await opts.handler(d);
      handled = true;
      if (!d.settled && autoAck) await d.ack();
    } catch (e) {
      if (handled) {
        log.error({ ...errFields(e), seq: d.seq, msgId: d.msgId }, 'ack failed');
      } else {
        stats.failed++;
        if (d.settled) {
          log.warn({ ...errFields(e), seq: d.seq, msgId: d.msgId }, 'handler threw after settling the message');
        } else if (maxDeliver > 0 && d.deliveryCount >= maxDeliver) {
          await deadLetter(d, (e as Error)?.message ?? String(e), DlqReason.HandlerFailed);
        } else {
          const delay = nakDelayMs(d.deliveryCount, backoff);
          log.warn({ ...errFields(e), seq: d.seq, msgId: d.msgId, deliveries: d.deliveryCount, nakDelayMs: delay }, 'handler failed; nak');
          d.nak(delay);
        }
      }
    } finally {
      clearInterval(heartbeat);
    }
  };

  const loop = await startPullLoop({
    nc: ctx.nc,
    js: ctx.js,
    stream: opts.stream,
    consumer: opts.consumer,
    maxInFlight,
    pullExpiresMs,
    overflowHeartbeatMs: Math.max(100, Math.min(workingIntervalMs, Math.floor(ackWaitMs / 3))),
    onMessage,
    logger: log,
    ...(maxMessages !== undefined ? { maxMessages } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  // Unconfirmed acks are in the connection's outbound buffer: a flush (a round trip, bounded by
  // ackTimeoutMs: a connection that is reconnecting sends them once it is back) sends them ahead of
  // whatever the caller does next (e.g. closing the connection).
  const flushAcks = async (): Promise<void> => {
    if (confirmAcks || ctx.nc.isClosed()) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([ctx.nc.flush(), new Promise<void>((resolve) => (timer = setTimeout(resolve, ackTimeoutMs)))]);
    } catch (e) {
      log.warn({ ...errFields(e) }, 'flushing the acks at stop failed; unacked messages come back and are deduplicated');
    } finally {
      clearTimeout(timer);
    }
  };
  const closed = loop.closed.then(flushAcks);
  return { stop: () => loop.stop().then(() => closed), closed, stats };
}
