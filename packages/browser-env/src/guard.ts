// The request guard of an episode's browser context (DESIGN §5 Safety): every request and
// WebSocket goes through the URL verdict of net-policy.ts, plus a DNS check (cached) that catches
// public names resolving to private addresses. Refused requests are aborted as "blocked by client"
// and reported to the episode, which turns refused navigations into `blocked` effects.
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

/** Host → "resolves to a private address", shared by the episodes of a pool. */
export class DnsVerdicts {
  private readonly cache = new Map<string, { priv: boolean; at: number }>();

  async resolvesPrivate(hostname: string): Promise<boolean> {
    const h = hostname.toLowerCase();
    if (net.isIP(h.replace(/^\[|\]$/g, ''))) return false; // literals are judged by checkUrl
    const hit = this.cache.get(h);
    if (hit && Date.now() - hit.at < DNS_TTL_MS) return hit.priv;
    let timer: NodeJS.Timeout | undefined;
    const lookup = dns.promises.lookup(h, { all: true }).then(
      (addrs) => addrs.some((a) => isPrivateAddress(a.address)),
      () => false, // unresolvable: Chromium reports the DNS failure itself
    );
    const priv = await Promise.race([lookup, new Promise<boolean>((r) => (timer = setTimeout(() => r(false), DNS_TIMEOUT_MS)))]);
    clearTimeout(timer);
    this.cache.set(h, { priv, at: Date.now() });
    if (this.cache.size > 5000) this.cache.clear();
    return priv;
  }
}

/** Verdict for one URL: '' when allowed, else the reason code. */
export async function requestVerdict(url: string, allowHosts: readonly string[], dnsVerdicts: DnsVerdicts, schemes: readonly string[]): Promise<string> {
  const v = checkUrl(url, allowHosts, schemes);
  if (!v.ok) return v.reason === 'bad_url' ? 'bad_url' : v.reason;
  const u = new URL(url);
  if (isAllowed(u, allowHosts)) return '';
  return (await dnsVerdicts.resolvesPrivate(u.hostname)) ? 'private_address' : '';
}

export async function installGuard(
  context: BrowserContext,
  allowHosts: readonly string[],
  dnsVerdicts: DnsVerdicts,
  onBlocked: (b: BlockedRequest) => void,
): Promise<void> {
  await context.route('**/*', async (route: Route) => {
    const req = route.request();
    const reason = await requestVerdict(req.url(), allowHosts, dnsVerdicts, ['http:', 'https:']);
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
  await context.routeWebSocket(
    (u: URL) => checkUrl(u.href, allowHosts, ['ws:', 'wss:']).ok === false,
    (ws: WebSocketRoute) => {
      onBlocked({ url: ws.url(), reason: 'private_address', navigation: false, page: null });
      void ws.close({ code: 1008, reason: 'blocked' }).catch(() => {});
    },
  );
}
