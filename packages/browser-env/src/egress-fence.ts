// The browser fence of a pool (docs/design.md §5 Safety): the egress check shared by all its listeners,
// the Chromium switches that leave the proxy as the only way out, and the count of refusals. Each
// Chromium gets a listener of its own for its launch-level proxy (connections no episode opened:
// the default context, the browser's own requests), and each episode's browser context gets one
// (its per-context proxy), so a refusal is told to the episode whose pages, frames or workers
// asked for the connection.
import type { Counter, Meter, Logger } from '@owrl/core';
import { EgressCheck, type HostLookup } from './egress-check.js';
import { EgressProxy, type Dial, type FenceEvent } from './egress-proxy.js';
import { BrowserEnvError, BrowserEnvErrorCode } from './errors.js';

/**
 * Switches that shut the ways out that do not pass a proxy. QUIC is off (BASE_ARGS) so HTTP/3 and
 * WebTransport cannot go around it over UDP; WebRTC may use UDP only through the proxy, which
 * has none, so no media or data channel reaches a peer directly (the full browser reads
 * --webrtc-ip-handling-policy, the headless shell only --force-webrtc-ip-handling-policy: each
 * ignores the other's, so both are given); and Chromium resolves no host
 * name itself (every name maps to "not found" but the proxy's own address), so anything that
 * bypassed the proxy by mistake would fail to resolve instead of connecting. And the error page
 * of a refused navigation does not reload itself (Chromium retries after 1 s, then backs off):
 * each retry would be a refusal the agent did not ask for.
 */
export const FENCE_ARGS = [
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
  '--disable-auto-reload',
] as const;

/**
 * Chromium bypasses a proxy for loopback hosts unless the bypass list subtracts that implicit rule:
 * with it, 127.0.0.1, [::1] and localhost go through the fence like any other host.
 */
export const PROXY_BYPASS = '<-loopback>';

export interface EgressFenceOptions {
  allowHosts: readonly string[];
  lookup?: HostLookup | undefined;
  /** How long a name's answer is reused, ms (EgressCheck's default when unset; 0: never). */
  dnsCacheMs?: number | undefined;
  dial?: Dial | undefined;
  logger: Logger;
  meter: Meter;
}

export class EgressFence {
  private readonly check: EgressCheck;
  private readonly dial: Dial | undefined;
  private readonly log: Logger;
  private readonly refusals: Counter<'reason' | 'range'>;

  constructor(o: EgressFenceOptions) {
    this.check = new EgressCheck(o.allowHosts, { lookup: o.lookup, cacheMs: o.dnsCacheMs });
    this.dial = o.dial;
    this.log = o.logger;
    this.refusals = o.meter.counter({
      name: 'owrl_fence_refusals_total',
      help: 'Connections of the browser the egress fence refused, by reason (private_address, bad_target) and address class (loopback, private, link_local, cgnat, metadata, ...)',
      labelNames: ['reason', 'range'],
    });
  }

  /**
   * A new listener; `onEvent` is told its refusals and unreachable upstreams (after they are
   * counted). Close it when its browser context or browser is gone.
   * @throws BrowserEnvError(BROWSER_ENV_FENCE_FAILED) when it cannot listen.
   */
  async open(onEvent: (e: FenceEvent) => void = () => {}): Promise<EgressProxy> {
    try {
      return await EgressProxy.start({
        check: this.check,
        ...(this.dial ? { dial: this.dial } : {}),
        log: this.log,
        onEvent: (e) => {
          if (e.outcome === 'refused') this.refusals.inc({ reason: e.reason, range: e.range || 'none' });
          onEvent(e);
        },
      });
    } catch (e) {
      throw new BrowserEnvError(BrowserEnvErrorCode.FenceFailed, `the browser fence cannot listen on 127.0.0.1: ${(e as Error)?.message ?? String(e)}`, { cause: e });
    }
  }

  /** Playwright's proxy settings for a listener: the proxy, with loopback not bypassed. */
  static proxySettings(p: EgressProxy): { server: string; bypass: string } {
    return { server: p.url, bypass: PROXY_BYPASS };
  }
}
