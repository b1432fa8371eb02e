// The request guard of an episode's browser context (DESIGN §5 Safety): every request and every
// WebSocket goes through the URL verdict of net-policy.ts, plus a DNS check (cached) that catches
// public names resolving to private addresses. It fails closed: a DNS answer that cannot be had
// (timeout, server failure) or a verdict that throws blocks the request; only a name that does not
// exist (NXDOMAIN) passes, so Chromium reports the `dns` failure itself. Refused requests are
// aborted as "blocked by client" (WebSockets closed with 1008, never connected) and reported to the
// episode, which turns refused navigations into `blocked` effects.
import dns from 'node:dns';
import net from 'node:net';
import type { BrowserContext, Page, Route, WebSocketRoute } from 'playwright-core';
import { checkUrl, isAllowed, isPrivateAddress } from './net-policy.js';

export interface BlockedRequest {
  url: string;
  reason: string;
  navigation: boolean;
  page: Page | null;
}

const DNS_TTL_MS = 60_000;
const DNS_TIMEOUT_MS = 2_000;

/** Resolves a host name to all its addresses (dns.promises.lookup by default; tests inject names). */
export type HostLookup = (hostname: string) => Promise<Array<{ address: string }>>;

const defaultLookup: HostLookup = (h) => dns.promises.lookup(h, { all: true });

/** Lookup errors that mean "no such name": the request may go on and fail in Chromium as `dns`. */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME']);

/**
 * Host → verdict on its DNS answers, shared by the episodes of a pool: `private_address` when any
 * address is private, `dns_unverified` when the answer could not be had (fail closed), '' otherwise.
 */
export class DnsVerdicts {
  private readonly cache = new Map<string, { verdict: string; at: number }>();

  constructor(
    private readonly lookup: HostLookup = defaultLookup,
    private readonly timeoutMs = DNS_TIMEOUT_MS,
  ) {}

  async verdict(hostname: string): Promise<string> {
    const h = hostname.toLowerCase();
    if (net.isIP(h.replace(/^\[|\]$/g, ''))) return ''; // literals are judged by checkUrl
    const hit = this.cache.get(h);
    if (hit && Date.now() - hit.at < DNS_TTL_MS) return hit.verdict;
    let timer: NodeJS.Timeout | undefined;
    const answer = this.lookup(h).then(
      (addrs) => (addrs.some((a) => isPrivateAddress(a.address)) ? 'private_address' : ''),
      (e: unknown) => (NO_SUCH_NAME.has((e as NodeJS.ErrnoException)?.code ?? '') ? '' : 'dns_unverified'),
    );
    const verdict = await Promise.race([answer, new Promise<string>((r) => (timer = setTimeout(() => r('dns_unverified'), this.timeoutMs)))]);
    clearTimeout(timer);
    // A failed look-up is not cached: the next request asks again.
    if (verdict !== 'dns_unverified') this.cache.set(h, { verdict, at: Date.now() });
    if (this.cache.size > 5000) this.cache.clear();
    return verdict;
  }

  /** True when the name resolves to a private address (or cannot be verified). */
  async resolvesPrivate(hostname: string): Promise<boolean> {
    return (await this.verdict(hostname)) !== '';
  }
}

/** Verdict for one URL: '' when allowed, else the reason code. */
export async function requestVerdict(url: string, allowHosts: readonly string[], dnsVerdicts: DnsVerdicts, schemes: readonly string[]): Promise<string> {
  const v = checkUrl(url, allowHosts, schemes);
  if (!v.ok) return v.reason === 'bad_url' ? 'bad_url' : v.reason;
  const u = new URL(url);
  if (isAllowed(u, allowHosts)) return '';
  return await dnsVerdicts.verdict(u.hostname);
}

/** requestVerdict that never throws: an error in the check blocks the request (fail closed). */
async function safeVerdict(url: string, allowHosts: readonly string[], dnsVerdicts: DnsVerdicts, schemes: readonly string[]): Promise<string> {
  try {
    return await requestVerdict(url, allowHosts, dnsVerdicts, schemes);
  } catch {
    return 'guard_error';
  }
}

export async function installGuard(
  context: BrowserContext,
  allowHosts: readonly string[],
  dnsVerdicts: DnsVerdicts,
  onBlocked: (b: BlockedRequest) => void,
): Promise<void> {
  await context.route('**/*', async (route: Route) => {
    const req = route.request();
    const reason = await safeVerdict(req.url(), allowHosts, dnsVerdicts, ['http:', 'https:']);
    if (!reason) {
      await route.fallback().catch(() => {});
      return;
    }
    let page: Page | null = null;
    let navigation = false;
    try {
      navigation = req.isNavigationRequest();
      const f = req.frame();
      page = f.page();
      navigation = navigation && f === page.mainFrame();
    } catch {
      /* service worker or detached frame */
    }
    onBlocked({ url: req.url(), reason, navigation, page });
    await route.abort('blockedbyclient').catch(() => {});
  });
  // Every WebSocket: the same verdict as a request (scheme, literal, allowlist, DNS answers); an
  // allowed one is connected to its server, a refused one is closed without ever connecting.
  await context.routeWebSocket(
    () => true,
    async (ws: WebSocketRoute) => {
      const reason = await safeVerdict(ws.url(), allowHosts, dnsVerdicts, ['ws:', 'wss:']);
      if (reason === '') {
        ws.connectToServer();
        return;
      }
      onBlocked({ url: ws.url(), reason, navigation: false, page: null });
      await ws.close({ code: 1008, reason: 'blocked' }).catch(() => {});
    },
  );
}
