// Classification of navigation failures and HTTP statuses into the reason codes of terminations
// and effects (dns, connection_refused, http_5xx, ...; defined in @owrl/core). Pure logic.
import type { HttpStatusReason, NetReason } from '@owrl/core';

export interface NetFailure {
  /** Reason code. */
  code: NetReason;
  /** Worth retrying at init (connection refused/reset, DNS, timeout, ...). */
  transient: boolean;
}

const NET_CODES: ReadonlyArray<[RegExp, NetReason, boolean]> = [
  [/ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED|ERR_DNS_/, 'dns', true],
  [/ERR_CONNECTION_REFUSED/, 'connection_refused', true],
  [/ERR_CONNECTION_RESET/, 'connection_reset', true],
  [/ERR_CONNECTION_CLOSED|ERR_EMPTY_RESPONSE/, 'connection_closed', true],
  [/ERR_CONNECTION_TIMED_OUT|ERR_TIMED_OUT/, 'timeout', true],
  [/ERR_HTTP2_PROTOCOL_ERROR|ERR_HTTP2_/, 'http2_protocol_error', true],
  [/ERR_QUIC_PROTOCOL_ERROR/, 'quic_protocol_error', true],
  [/ERR_SSL_|ERR_CERT_|ERR_BAD_SSL/, 'tls', false],
  [/ERR_ADDRESS_UNREACHABLE|ERR_INTERNET_DISCONNECTED|ERR_NETWORK_CHANGED|ERR_NETWORK_ACCESS_DENIED|ERR_PROXY_/, 'network', true],
  [/ERR_TOO_MANY_REDIRECTS/, 'too_many_redirects', false],
  [/ERR_BLOCKED_BY_CLIENT/, 'blocked', false],
  [/ERR_BLOCKED_BY_RESPONSE|ERR_BLOCKED_BY_ORB/, 'blocked_by_response', false],
  [/ERR_INVALID_RESPONSE|ERR_INVALID_HTTP_RESPONSE|ERR_RESPONSE_HEADERS_/, 'invalid_response', true],
  [/ERR_UNSAFE_PORT|ERR_UNKNOWN_URL_SCHEME|ERR_INVALID_URL/, 'bad_url', false],
  [/ERR_ABORTED/, 'aborted', false],
];

/** Maps a Playwright/Chromium navigation error message to a reason code. */
export function classifyNetError(message: string, isTimeout = false): NetFailure {
  if (isTimeout || /Timeout \d+ms exceeded|TimeoutError/.test(message)) return { code: 'timeout', transient: true };
  for (const [re, code, transient] of NET_CODES) if (re.test(message)) return { code, transient };
  if (/Target (page, context or browser )?(has been )?closed|Browser has been closed|browser has disconnected/i.test(message)) {
    return { code: 'target_closed', transient: false };
  }
  // Other Chromium codes (net::ERR_...) stay in the message; the reason is the generic one.
  return { code: 'navigation_failed', transient: false };
}

/** Reason code of an HTTP status of a document response ('' when it is usable). */
export function classifyHttpStatus(status: number): HttpStatusReason | '' {
  if (status >= 500) return 'http_5xx';
  if (status === 429) return 'rate_limited';
  if (status === 403) return 'http_403';
  if (status >= 400) return 'http_4xx';
  return '';
}

/** Statuses at init worth retrying (server errors, rate limiting). */
export function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}
