// Publishing bytes to a stream with Nats-Msg-Id deduplication: bounded retries with the same id
// (safe: the stream drops the duplicate) and errors mapped to stable BusError codes, so a full
// stream (`discard: new`) surfaces as BUS_PUBLISH_REFUSED instead of vanishing.
import { JetStreamApiError } from '@nats-io/jetstream';
import { ClosedConnectionError, headers as natsHeaders, RequestError, TimeoutError } from '@nats-io/nats-core';
import { BusError, BusErrorCode, isRetryableBusError } from './errors.js';
import type { BusContext } from './context.js';

export interface PublishOptions {
  /** Nats-Msg-Id: the dedupe key (trajectory_id for rollouts and trajectories). Required. */
  msgId: string;
  /** Extra headers. */
  headers?: Record<string, string>;
  /** PubAck timeout per attempt; default 5000 ms. */
  timeoutMs?: number;
  /** Attempts on timeout / no responders, with the same msgId; default 3. */
  attempts?: number;
}

export interface PublishResult {
  stream: string;
  /** Stream sequence of the stored message (of the original when `duplicate`). */
  seq: number;
  /** True when the stream already had a message with this msgId within its duplicate window. */
  duplicate: boolean;
}

// JetStream API error codes of a stream refusing a message.
const REFUSED = new Set([10077 /* max msgs */, 10078 /* max bytes */, 10047 /* insufficient resources */, 10175 /* max msgs per subject */]);
const TOO_LARGE = new Set([10054 /* message size exceeds maximum allowed */]);

/** Maps a publish failure to a BusError with a stable code (pure). */
export function publishError(subject: string, e: unknown): BusError {
  if (e instanceof BusError) return e;
  if (e instanceof JetStreamApiError) {
    const desc = e.message;
    if (REFUSED.has(e.code) || /maximum (messages|bytes)|insufficient resources/i.test(desc)) {
      return new BusError(BusErrorCode.PublishRefused, `stream refused message on ${subject}: ${desc} (stream full, discard=new)`, { cause: e });
    }
    if (TOO_LARGE.has(e.code)) return new BusError(BusErrorCode.PayloadTooLarge, `message on ${subject} too large: ${desc}`, { cause: e });
    return new BusError(BusErrorCode.PublishFailed, `publish to ${subject} failed: ${desc} (err_code ${e.code})`, { cause: e });
  }
  if ((e as Error)?.name === 'JetStreamNotEnabled' || (e instanceof RequestError && e.isNoResponders())) {
    return new BusError(BusErrorCode.NoStream, `no stream answered for ${subject}: no stream captures it, or JetStream is unavailable`, { cause: e });
  }
  if (e instanceof TimeoutError) return new BusError(BusErrorCode.PublishTimeout, `no PubAck for ${subject} within the timeout`, { cause: e });
  if (e instanceof ClosedConnectionError) return new BusError(BusErrorCode.Closed, `publish to ${subject}: connection closed`, { cause: e });
  return new BusError(BusErrorCode.PublishFailed, `publish to ${subject} failed: ${(e as Error)?.message ?? String(e)}`, { cause: e });
}

/**
 * Publishes `data` to `subject` with Nats-Msg-Id = `opts.msgId`.
 * @throws BusError BUS_PUBLISH_REFUSED (stream full), BUS_PAYLOAD_TOO_LARGE, BUS_NO_STREAM,
 *   BUS_PUBLISH_TIMEOUT (after all attempts), BUS_CLOSED, BUS_PUBLISH_FAILED, BUS_INVALID_ARGUMENT.
 */
export async function publishBytes(ctx: BusContext, subject: string, data: Uint8Array, opts: PublishOptions): Promise<PublishResult> {
  if (typeof opts.msgId !== 'string' || opts.msgId.length === 0) {
    throw new BusError(BusErrorCode.InvalidArgument, `publish to ${subject}: msgId ${JSON.stringify(opts.msgId)} must be a non-empty string`);
  }
  const attempts = opts.attempts ?? 3;
  if (!Number.isInteger(attempts) || attempts < 1) throw new BusError(BusErrorCode.InvalidArgument, `publish attempts=${String(attempts)} must be an integer >= 1`);
  const maxPayload = ctx.nc.info?.max_payload;
  if (maxPayload !== undefined && maxPayload > 0 && data.length > maxPayload) {
    throw new BusError(BusErrorCode.PayloadTooLarge, `message on ${subject} is ${data.length} bytes, over the server's max_payload ${maxPayload}`);
  }
  const h = natsHeaders();
  for (const [k, v] of Object.entries(opts.headers ?? {})) h.set(k, v);
  for (let attempt = 1; ; attempt++) {
    try {
      const pa = await ctx.js.publish(subject, data, { msgID: opts.msgId, headers: h, timeout: opts.timeoutMs ?? 5000 });
      return { stream: pa.stream, seq: pa.seq, duplicate: pa.duplicate };
    } catch (e) {
      const err = publishError(subject, e);
      if (!isRetryableBusError(err) || attempt >= attempts) throw err;
      ctx.logger.warn({ subject, msgId: opts.msgId, attempt, code: err.code }, 'publish retry');
      await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** (attempt - 1), 2000)));
    }
  }
}
