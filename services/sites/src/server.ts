// The sites HTTP server (node:http only): every bundled site under /<name>/, a portal page at /,
// the control API under /__owrl/, and per-session state keyed by the `owrl_session` query
// parameter or cookie.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isValidSessionId, SESSION_COOKIE, SESSION_PARAM } from '@owrl/tasks';
import { DEFAULT_CATALOG_SEED, type ShopCatalog } from '@owrl/tasks/shop';
import { SitesError, SitesErrorCode } from './errors.js';
import { parseCookies, redirect, sendHtml, sendJson, sendText } from './http-util.js';
import { silentLogger, type Logger } from '@owrl/core';
import { handleOwrlApi } from './owrl-api.js';
import { DEFAULT_MAX_SESSIONS, SessionStore, type SessionState } from './session-store.js';
import { portalPage } from './portal.js';
import { createShopSite } from './shop/shop-site.js';
import type { SiteModule } from './site.js';
import { SITE_FACTORIES } from './sites.js';
import { addRules } from './faults/file.js';
import { createFaultHook } from './faults/hook.js';
import { FaultRegistry } from './faults/registry.js';

export interface SitesServerOptions {
  /** TCP port; 0 picks a free one. */
  port: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Catalog seed; tasks generated for this server must use the same. Default 1. */
  seed?: number;
  logger?: Logger;
  /** Sessions kept before the least recently used is dropped. Default 10 000. */
  maxSessions?: number;
  /** Fault rules active from the start (JSON as posted to `/__owrl/faults`); validated, naming `faults[i].<field>`. */
  faults?: readonly unknown[];
}

export interface SitesServer {
  /** Origin, e.g. `http://127.0.0.1:8400`. */
  url: string;
  port: number;
  catalog: ShopCatalog;
  /** The hosted sites, in portal order (the shop first). */
  sites: readonly SiteModule[];
  /** Fault rules consulted for every request; also served at `/__owrl/faults`. */
  faults: FaultRegistry;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Session of a request: `owrl_session` query param first, then the cookie, else a new one. */
function resolveSession(req: IncomingMessage, url: URL, res: ServerResponse, sessions: SessionStore): SessionState {
  const fromQuery = url.searchParams.get(SESSION_PARAM);
  const fromCookie = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
  let id: string;
  if (fromQuery !== null && isValidSessionId(fromQuery)) id = fromQuery;
  else if (fromCookie !== undefined && isValidSessionId(fromCookie)) id = fromCookie;
  else id = randomUUID();
  if (id !== fromCookie) {
    res.setHeader('Set-Cookie', `${SESSION_COOKIE}=${encodeURIComponent(id)}; Path=/; HttpOnly; SameSite=Lax`);
  }
  return sessions.get(id);
}

/**
 * Starts the sites server and resolves once it listens.
 * @throws SitesError SITES_BAD_OPTION for a bad port or seed; the listen error (EADDRINUSE...)
 *   otherwise.
 */
export async function startSitesServer(opts: SitesServerOptions): Promise<SitesServer> {
  const host = opts.host ?? '127.0.0.1';
  const seed = opts.seed ?? DEFAULT_CATALOG_SEED;
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) {
    throw new SitesError(SitesErrorCode.BadOption, `port ${String(opts.port)} must be an integer from 0 to 65535`);
  }
  if (!Number.isInteger(seed)) throw new SitesError(SitesErrorCode.BadOption, `seed ${String(seed)} must be an integer`);
  const log = opts.logger ?? silentLogger;
  const shop = createShopSite({ seed, logger: log });
  const catalog = shop.catalog;
  const sites: SiteModule[] = [shop, ...SITE_FACTORIES.map((f) => f({ seed, logger: log }))];
  const sessions = new SessionStore(opts.maxSessions ?? DEFAULT_MAX_SESSIONS);
  const faults = new FaultRegistry(seed, sites.map((s) => s.name));
  addRules(faults, opts.faults ?? [], 'faults');
  const faultHook = createFaultHook(faults, log);
  let origin = '';

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    if (await faultHook(req, res, url)) return;
    if (url.pathname.startsWith('/__owrl/')) {
      if (handleOwrlApi(req, res, url, { sites, sessions, origin, seed })) return;
      sendJson(res, 404, { ok: false, detail: `no API endpoint ${url.pathname}` });
      return;
    }
    if (url.pathname === '/' || url.pathname === '') {
      sendHtml(res, 200, portalPage(sites));
      return;
    }
    const site = sites.find((s) => url.pathname === `/${s.name}` || url.pathname.startsWith(`/${s.name}/`));
    if (site !== undefined) {
      if (url.pathname === `/${site.name}`) {
        redirect(res, 301, `/${site.name}/${url.search}`);
        return;
      }
      const state = resolveSession(req, url, res, sessions);
      if (await site.handle(req, res, url, state)) return;
      res.setHeader('Allow', 'GET, HEAD, POST');
      sendText(res, 405, `${req.method ?? '?'} is not allowed on ${url.pathname}\n`);
      return;
    }
    sendText(res, 404, `not found: ${url.pathname}\n`);
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    handle(req, res)
      .catch((e: unknown) => {
        if (e instanceof SitesError) {
          if (!res.headersSent) sendText(res, e.status, `${e.message}\n`);
          else res.destroy();
          return;
        }
        log.error({ err: e, method: req.method, url: req.url }, 'request failed');
        if (!res.headersSent) sendText(res, 500, 'internal error\n');
        else res.destroy();
      })
      .finally(() => {
        log.debug({ method: req.method, url: req.url, status: res.statusCode, ms: Math.round(performance.now() - started) }, 'request');
      });
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  origin = `http://${shownHost}:${port}`;
  log.info({ url: origin, seed, sites: sites.map((x) => x.name) }, 'sites listening');

  let closing: Promise<void> | undefined;
  return {
    url: origin,
    port,
    catalog,
    sites,
    faults,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
