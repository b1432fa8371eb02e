// How an episode tells what the fence did from what Chromium says. Chromium only sees a proxy
// that closed the connection (ERR_EMPTY_RESPONSE) or refused a tunnel (ERR_TUNNEL_CONNECTION_FAILED),
// for a refusal as for an upstream the fence could not reach; the fence's own event for the same
// request says which it was. A plain request is matched by its URL, a tunnel by its host:port
// (all a CONNECT shows). Pure logic.
import type { NetReason } from '@owrl/core';
import { authorityOf, parseAuthority } from './egress-check.js';
import type { FenceEvent } from './egress-proxy.js';
import type { NetFailure } from './net-errors.js';

/** Chromium's errors for a request the proxy did not carry out. */
const FENCE_SHAPED = /ERR_EMPTY_RESPONSE|ERR_TUNNEL_CONNECTION_FAILED/;

/** How long an event is kept for a failure reported after it, ms. */
const KEEP_MS = 30_000;
const KEEP_MAX = 256;

/** True when Chromium's error text is one the fence causes (and so may have an event). */
export function isFenceShaped(errorText: string): boolean {
  return FENCE_SHAPED.test(errorText);
}

/** What a request URL is known by to the fence: the URL for plain http (no fragment), host:port for the rest. */
export function fenceKey(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol === 'http:') {
    u.hash = '';
    return u.href;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'ws:' && u.protocol !== 'wss:') return null;
  const port = u.port || (u.protocol === 'ws:' ? '80' : '443');
  const t = parseAuthority(`${u.hostname}:${port}`);
  return t ? authorityOf(t) : null;
}

/** A failure the fence explains: what it saw, in its words. */
export type FencedFailure = NetFailure & { detail: string };

/** The failure a fence event means for the request it stopped: `blocked`, or the upstream's reason (transient, as Chromium's own). */
export function fenceFailure(e: FenceEvent): FencedFailure {
  if (e.outcome === 'refused') return { code: 'blocked', transient: false, detail: `the fence refused ${e.url}: ${e.detail}` };
  return { code: e.reason as NetReason, transient: true, detail: `the fence could not reach ${e.url}: ${e.detail}` };
}

/** The latest events of one listener by fenceKey, for failures Chromium reports after the fact. */
export class RecentFenceEvents {
  private readonly byKey = new Map<string, { e: FenceEvent; at: number }>();

  add(e: FenceEvent): void {
    const key = e.via === 'connect' ? e.url : fenceKey(e.url);
    if (key === null) return;
    this.byKey.delete(key);
    this.byKey.set(key, { e, at: performance.now() });
    if (this.byKey.size > KEEP_MAX) {
      const oldest = this.byKey.keys().next().value;
      if (oldest !== undefined) this.byKey.delete(oldest);
    }
  }

  /** The event behind a failed request to `url` that failed with `errorText`, if the fence caused it. */
  explain(url: string, errorText: string): FenceEvent | undefined {
    if (!isFenceShaped(errorText)) return undefined;
    const key = fenceKey(url);
    const hit = key === null ? undefined : this.byKey.get(key);
    return hit && performance.now() - hit.at < KEEP_MS ? hit.e : undefined;
  }
}
