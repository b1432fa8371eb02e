// Dead-letter queue: the raw bytes of a message that will never be processed, published to
// `owrl.dlq.<kind>` with the reason and its origin in headers. Two paths feed it: the consumer
// itself (undecodable payloads, unknown schema versions, handler failures on the last delivery,
// explicit term()), and the DLQ mover, which reads the server's max-deliveries advisories
// (captured durably in OWRL_ADVISORIES) and copies the original message by stream sequence.
import { type JsMsg, RetentionPolicy } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';
import type { BusContext } from './context.js';
import { BusError, BusErrorCode } from './errors.js';
import { ensureConsumer } from './jsm-ensure.js';
import { errFields } from './logger.js';
import { publishBytes, type PublishResult } from './publish.js';
import { startPullLoop, type PullLoopHandle } from './pull-loop.js';
import { dlqKindForStream, dlqMoverConsumer, dlqSubject, STREAM_ADVISORIES } from './topology.js';

export const DlqHeader = {
  Reason: 'Owrl-Dlq-Reason',
  Detail: 'Owrl-Dlq-Detail',
  Stream: 'Owrl-Dlq-Stream',
  Consumer: 'Owrl-Dlq-Consumer',
  Subject: 'Owrl-Dlq-Subject',
  Seq: 'Owrl-Dlq-Seq',
  Deliveries: 'Owrl-Dlq-Deliveries',
  MsgId: 'Owrl-Dlq-Msg-Id',
} as const;

/** Why a message was dead-lettered (value of the Owrl-Dlq-Reason header). */
export const DlqReason = {
  /** The payload is not a valid protobuf message of the expected type. */
  Undecodable: 'undecodable',
  /** The message carries a schema major version this build does not understand. */
  UnsupportedSchemaVersion: 'unsupported_schema_version',
  /** The handler threw on the last allowed delivery. */
  HandlerFailed: 'handler_failed',
  /** The handler terminated it as poison (Delivery.term). */
  Terminated: 'terminated',
  /** max_deliver exhausted without an ack (ack_wait expiries: crashed or stuck workers). */
  MaxDeliveries: 'max_deliveries',
} as const;
export type DlqReason = (typeof DlqReason)[keyof typeof DlqReason];

export interface DeadLetter {
  reason: DlqReason;
  /** Human-readable detail (error message); one line, truncated. */
  detail: string;
  stream: string;
  consumer: string;
  subject: string;
  seq: number;
  deliveries: number;
  data: Uint8Array;
  /** Headers of the original message; its Nats-* headers are not copied (Nats-Msg-Id is kept as Owrl-Dlq-Msg-Id). */
  headers?: MsgHdrs | undefined;
}

function headerValue(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').slice(0, 1024);
}

/** Headers of a dead letter (pure). */
export function deadLetterHeaders(dl: DeadLetter): Record<string, string> {
  const out: Record<string, string> = {};
  if (dl.headers) {
    for (const k of dl.headers.keys()) {
      if (!/^nats-/i.test(k)) out[k] = dl.headers.get(k);
    }
  }
  const msgId = dl.headers?.get('Nats-Msg-Id') ?? '';
  if (msgId !== '') out[DlqHeader.MsgId] = headerValue(msgId);
  out[DlqHeader.Reason] = dl.reason;
  out[DlqHeader.Detail] = headerValue(dl.detail);
  out[DlqHeader.Stream] = dl.stream;
  out[DlqHeader.Consumer] = dl.consumer;
  out[DlqHeader.Subject] = dl.subject;
  out[DlqHeader.Seq] = String(dl.seq);
  out[DlqHeader.Deliveries] = String(dl.deliveries);
  return out;
}

/** Nats-Msg-Id of a dead letter: both DLQ paths use it, so one message is dead-lettered once. */
export function deadLetterMsgId(stream: string, seq: number): string {
  return `dlq/${stream}/${seq}`;
}

/** Publishes a dead letter to `owrl.dlq.<kind of its stream>`. @throws BusError as publish does. */
export async function publishDeadLetter(ctx: BusContext, dl: DeadLetter): Promise<PublishResult> {
  return await publishBytes(ctx, dlqSubject(dlqKindForStream(dl.stream)), dl.data, {
    msgId: deadLetterMsgId(dl.stream, dl.seq),
    headers: deadLetterHeaders(dl),
  });
}

/** Dead letter of a delivered message. */
export function deadLetterOf(m: JsMsg, consumer: string, reason: DlqReason, detail: string): DeadLetter {
  return {
    reason,
    detail,
    stream: m.info.stream,
    consumer,
    subject: m.subject,
    seq: m.seq,
    deliveries: m.info.deliveryCount,
    data: m.data,
    headers: m.headers,
  };
}

interface MaxDeliveriesAdvisory {
  stream: string;
  consumer: string;
  stream_seq: number;
  deliveries: number;
}

function parseAdvisory(m: JsMsg): MaxDeliveriesAdvisory | null {
  try {
    const a = m.json<Partial<MaxDeliveriesAdvisory>>();
    if (typeof a.stream === 'string' && typeof a.consumer === 'string' && typeof a.stream_seq === 'number') {
      return { stream: a.stream, consumer: a.consumer, stream_seq: a.stream_seq, deliveries: typeof a.deliveries === 'number' ? a.deliveries : 0 };
    }
  } catch {
    // fall through
  }
  return null;
}

export interface DlqMoverOptions {
  stream: string;
  consumer: string;
  /** Advisories handled at once; default 4. */
  concurrency?: number;
  /** Pull request lifetime (bounds stop()); default 5000 ms. */
  pullExpiresMs?: number;
  signal?: AbortSignal;
}

export interface DlqMoverHandle extends PullLoopHandle {
  /** Messages copied to the DLQ so far by this mover. */
  readonly moved: number;
}

/**
 * Moves messages of `stream`/`consumer` that exhausted max_deliver into the DLQ with reason
 * `max_deliveries`: for each advisory (kept in OWRL_ADVISORIES, so none is missed while no mover
 * runs) it fetches the original by stream sequence, publishes it to the DLQ (deduplicated by
 * stream/seq), and, on a work-queue stream, deletes the original so it stops taking capacity.
 * The advisory is acked only after that, so a crash in between repeats the move, never loses it.
 */
export async function startDlqMover(bus: BusContext, opts: DlqMoverOptions): Promise<DlqMoverHandle> {
  const log = bus.logger.child({ component: 'dlq-mover', stream: opts.stream, consumer: opts.consumer });
  const spec = dlqMoverConsumer(opts.stream, opts.consumer);
  await ensureConsumer(bus.jsm, spec.stream, spec.config, log);
  let workQueue: boolean | null = null;
  let moved = 0;

  const onMessage = async (m: JsMsg): Promise<void> => {
    const adv = parseAdvisory(m);
    if (adv === null || adv.stream !== opts.stream || adv.consumer !== opts.consumer) {
      log.warn({ subject: m.subject }, 'ignoring unexpected advisory');
      m.term();
      return;
    }
    try {
      const orig = await bus.jsm.streams.getMessage(adv.stream, { seq: adv.stream_seq });
      if (orig === null) {
        // Already acked, deleted or aged out: there is nothing left to move.
        log.info({ seq: adv.stream_seq }, 'exhausted message no longer in stream');
      } else {
        await publishDeadLetter(bus, {
          reason: DlqReason.MaxDeliveries,
          detail: `not acked after ${adv.deliveries} deliveries to ${adv.consumer}`,
          stream: adv.stream,
          consumer: adv.consumer,
          subject: orig.subject,
          seq: orig.seq,
          deliveries: adv.deliveries,
          data: orig.data,
          headers: orig.header,
        });
        moved++;
        workQueue ??= (await bus.jsm.streams.info(adv.stream)).config.retention === RetentionPolicy.Workqueue;
        if (workQueue) await bus.jsm.streams.deleteMessage(adv.stream, orig.seq, false);
        log.warn({ seq: orig.seq, subject: orig.subject, deliveries: adv.deliveries }, 'moved exhausted message to DLQ');
      }
      await m.ackAck();
    } catch (e) {
      log.error({ ...errFields(e), seq: adv.stream_seq }, 'DLQ move failed; will retry');
      m.nak(Math.min(1000 * m.info.deliveryCount, 30_000));
    }
  };

  const concurrency = opts.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new BusError(BusErrorCode.InvalidArgument, `DLQ mover concurrency=${String(opts.concurrency)} must be an integer >= 1`);
  }
  const loop = await startPullLoop({
    nc: bus.nc,
    js: bus.js,
    stream: STREAM_ADVISORIES,
    consumer: spec.config.durable_name,
    maxInFlight: concurrency,
    pullExpiresMs: opts.pullExpiresMs ?? 5000,
    overflowHeartbeatMs: 10_000,
    onMessage,
    logger: log,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return {
    stop: () => loop.stop(),
    closed: loop.closed,
    get moved() {
      return moved;
    },
  };
}
