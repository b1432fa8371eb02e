// Errors of the JetStream layer: one class with a stable `code`, `cause` chaining, and small
// predicates so callers branch on meaning (refused, not found) rather than on server strings.
import { OwrlError } from '@owrl/core';

export const BusErrorCode = {
  /** A caller passed a bad value (subject token, option, key); the message names it. */
  InvalidArgument: 'BUS_INVALID_ARGUMENT',
  /** Could not connect to any server. */
  ConnectFailed: 'BUS_CONNECT_FAILED',
  /** The server refused the credentials (user/password, token, creds or nkey). */
  AuthFailed: 'BUS_AUTH_FAILED',
  /** The connection is closed. */
  Closed: 'BUS_CLOSED',
  /** The stream refused the message: full with `discard: new`, or out of resources. */
  PublishRefused: 'BUS_PUBLISH_REFUSED',
  /** The message is larger than the server's max_payload or the stream's max_msg_size. */
  PayloadTooLarge: 'BUS_PAYLOAD_TOO_LARGE',
  /** No stream captures the subject, or JetStream is not available. */
  NoStream: 'BUS_NO_STREAM',
  /** No PubAck within the timeout after all attempts. */
  PublishTimeout: 'BUS_PUBLISH_TIMEOUT',
  /** Any other publish failure. */
  PublishFailed: 'BUS_PUBLISH_FAILED',
  /** The server did not confirm an ack (the message may be redelivered). */
  AckFailed: 'BUS_ACK_FAILED',
  /** A stream, consumer or KV bucket does not exist. */
  NotFound: 'BUS_NOT_FOUND',
  /** An existing stream or consumer has a setting that cannot be updated (retention, storage, ack policy). */
  TopologyConflict: 'BUS_TOPOLOGY_CONFLICT',
  /** A JetStream API request failed. */
  ApiFailed: 'BUS_API_FAILED',
  /** Stored bytes (KV value, message) could not be decoded. */
  Undecodable: 'BUS_UNDECODABLE',
} as const;
export type BusErrorCode = (typeof BusErrorCode)[keyof typeof BusErrorCode];

export class BusError extends OwrlError<BusErrorCode> {
  override readonly name = 'BusError';
}

export function isBusError(e: unknown, code?: BusErrorCode): e is BusError {
  return e instanceof BusError && (code === undefined || e.code === code);
}

/** True when a publish failed because the stream is full (`discard: new`) or out of resources. */
export function isPublishRefused(e: unknown): e is BusError {
  return isBusError(e, BusErrorCode.PublishRefused);
}

export function isNotFound(e: unknown): e is BusError {
  return isBusError(e, BusErrorCode.NotFound);
}

/** Errors worth retrying with the same Nats-Msg-Id (deduplicated by the stream). */
export function isRetryableBusError(e: unknown): e is BusError {
  return isBusError(e) && (e.code === BusErrorCode.PublishTimeout || e.code === BusErrorCode.NoStream);
}

/** Failures that waiting does not cure, whatever their cause says (a full stream answers 503 too). */
const SETTLED_CODES = new Set<string>([BusErrorCode.AuthFailed, BusErrorCode.InvalidArgument, BusErrorCode.TopologyConflict, BusErrorCode.PublishRefused, BusErrorCode.PayloadTooLarge]);
/** Names of the NATS client's errors that mean "the server is not there or not answering yet". */
const UNAVAILABLE_NAMES = new Set(['TimeoutError', 'NoRespondersError', 'ConnectionError', 'JetStreamNotEnabled']);
/** JetStream API codes of a server that is starting or recovering: 10008 JetStream temporarily unavailable, 10039 JetStream not enabled for account. */
const UNAVAILABLE_API_CODES = new Set([10008, 10039]);

/**
 * True when `e` (or an error in its `cause` chain) says the broker is down, restarting or not
 * ready (JetStream still recovering): a timeout, no responders, a lost connection, JetStream not
 * enabled or temporarily unavailable, a 503 pull status. False for everything else, such as bad
 * settings, refused credentials, a topology conflict or a full stream, which waiting does not cure.
 */
export function isBrokerUnavailable(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x instanceof Error && depth < 8; x = x.cause, depth++) {
    if (x instanceof BusError && SETTLED_CODES.has(x.code)) return false;
    if (isBusError(x, BusErrorCode.NoStream) || isBusError(x, BusErrorCode.PublishTimeout)) return true;
    if (UNAVAILABLE_NAMES.has(x.name)) return true;
    const withCode = x as Error & { code?: unknown; isNoResponders?: () => boolean };
    if (typeof withCode.isNoResponders === 'function' && withCode.isNoResponders()) return true;
    // A 503 status on a pull (no responders), or one of the API's "not ready" codes.
    if (x.name === 'JetStreamStatusError' && withCode.code === 503) return true;
    if (x.name === 'JetStreamApiError' && typeof withCode.code === 'number' && UNAVAILABLE_API_CODES.has(withCode.code)) return true;
  }
  return false;
}
