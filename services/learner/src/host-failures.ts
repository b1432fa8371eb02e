// Per-host failure counting for the blacklist (pure): which outcomes are the site's fault, and a
// sliding time window per host that trips once it holds `threshold` failures, naming the dominant cause.
import { REASON_HOST_BLACKLISTED } from '@owrl/core';

/** INIT_ERROR reasons that are not the site's fault (our allowlist, a malformed task URL, a skip). */
const INIT_NOT_SITE = new Set([REASON_HOST_BLACKLISTED, 'blocked_url', 'bad_url']);

/**
 * ENV_ERROR reasons that the site caused: unreachable, refusing, failing or walling. Timeouts,
 * unresponsive or crashed pages and network loss are left out: a slow policy or our own network
 * produces them as well.
 */
const ENV_SITE_REASONS = new Set([
  'bot_wall',
  'dns',
  'connection_refused',
  'connection_reset',
  'connection_closed',
  'http2_protocol_error',
  'quic_protocol_error',
  'tls',
  'invalid_response',
  'too_many_redirects',
  'http_5xx',
  'http_403',
  'rate_limited',
]);

/**
 * The cause an outcome (termination class name and reason code) counts against its host under, or
 * null when it does not count: every INIT_ERROR but skips and task/config faults
 * (`init_error:<reason>`), site-attributable ENV_ERRORs (`env_error:<reason>`), and bot walls at
 * any point (`bot_wall`). SANDBOX_ERROR (our side) and trainable outcomes never count.
 */
export function hostFailureCause(cls: string, reason: string): string | null {
  if (reason === 'bot_wall' && (cls === 'INIT_ERROR' || cls === 'ENV_ERROR')) return 'bot_wall';
  if (cls === 'INIT_ERROR') return INIT_NOT_SITE.has(reason) ? null : `init_error:${reason || 'unknown'}`;
  if (cls === 'ENV_ERROR' && ENV_SITE_REASONS.has(reason)) return `env_error:${reason}`;
  return null;
}

export interface HostFailureOptions {
  /** Failures within the window that blacklist a host (>= 1). */
  threshold: number;
  /** Length of the sliding window, ms (> 0). */
  windowMs: number;
}

/** A host that crossed the threshold: what to write to the blacklist. */
export interface HostTrip {
  host: string;
  /** The most frequent cause in the window (ties go to the cause that reached the count last). */
  reason: string;
  /** Failures in the window when it tripped. */
  failures: number;
}

/**
 * Counts failures per host in a sliding window. A host trips when its window holds `threshold`
 * failures; its window then starts afresh, so in-flight failures arriving after the trip need a
 * full new threshold to trip again. Memory is bounded by hosts × threshold.
 */
export class HostFailureWindow {
  private readonly windows = new Map<string, Array<{ atMs: number; cause: string }>>();

  constructor(private readonly o: HostFailureOptions) {
    if (!Number.isInteger(o.threshold) || o.threshold < 1) throw new RangeError(`host failure threshold=${String(o.threshold)} must be an integer >= 1`);
    if (!Number.isFinite(o.windowMs) || o.windowMs <= 0) throw new RangeError(`host failure windowMs=${String(o.windowMs)} must be > 0`);
  }

  /** Records one failure of `host` at `nowMs`; returns the trip when this failure crosses the threshold. */
  record(host: string, cause: string, nowMs: number): HostTrip | null {
    const w = this.prune(host, nowMs);
    w.push({ atMs: nowMs, cause });
    if (w.length < this.o.threshold) {
      this.windows.set(host, w);
      return null;
    }
    this.windows.delete(host);
    return { host, reason: dominant(w), failures: w.length };
  }

  private prune(host: string, nowMs: number): Array<{ atMs: number; cause: string }> {
    return (this.windows.get(host) ?? []).filter((f) => nowMs - f.atMs < this.o.windowMs);
  }
}

function dominant(w: ReadonlyArray<{ cause: string }>): string {
  const counts = new Map<string, number>();
  let best = '';
  let bestN = 0;
  for (const { cause } of w) {
    const n = (counts.get(cause) ?? 0) + 1;
    counts.set(cause, n);
    if (n >= bestN) {
      best = cause;
      bestN = n;
    }
  }
  return best;
}
