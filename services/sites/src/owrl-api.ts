// The sites' control API under /__owrl/: health, the site-state verifier the judge calls, and the
// task generator endpoint the learner fetches JSONL tasks from.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  checkCart,
  formatTaskFile,
  generateShopTasks,
  isTaskError,
  parseCartSpec,
  SHOP_SUITE,
  type ShopCatalog,
  type ShopFamilyName,
} from '@owrl/tasks';
import { SitesError, SitesErrorCode } from './errors.js';
import { sendJson, sendText } from './http-util.js';
import type { SessionStore } from './session-store.js';

export interface ApiContext {
  catalog: ShopCatalog;
  sessions: SessionStore;
  /** Origin of this server as configured (used when the request has no usable Host header). */
  origin: string;
}

function bad(message: string): SitesError {
  return new SitesError(SitesErrorCode.BadRequest, message);
}

function intParam(url: URL, name: string, def: number, min: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return def;
  if (!/^-?\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
    throw bad(`${name}=${JSON.stringify(raw)} must be an integer >= ${min}`);
  }
  return Number(raw);
}

function listParam(url: URL, name: string): string[] {
  const raw = url.searchParams.get(name);
  if (raw === null) return [];
  return raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Origin the client reached us at, so generated tasks point where the caller can go. */
function requestOrigin(req: IncomingMessage, fallback: string): string {
  const host = req.headers.host;
  return host !== undefined && /^[A-Za-z0-9.\-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? `http://${host}` : fallback;
}

function verify(url: URL, ctx: ApiContext, res: ServerResponse): void {
  const session = url.searchParams.get('session');
  if (session === null || session === '') throw bad('session is missing');
  const specRaw = url.searchParams.get('spec');
  if (specRaw === null || specRaw === '') throw bad('spec is missing');
  let spec;
  try {
    spec = parseCartSpec(specRaw);
  } catch (e) {
    throw bad(isTaskError(e) ? e.message : String(e));
  }
  // An unknown session has an empty cart; reading it must not create it.
  const state = ctx.sessions.peek(session);
  const result = checkCart(state?.cart ?? new Map<string, number>(), spec);
  sendJson(res, 200, state === undefined ? { ok: result.ok, detail: `unknown session; ${result.detail}` } : result);
}

function tasks(req: IncomingMessage, url: URL, ctx: ApiContext, res: ServerResponse): void {
  const suite = url.searchParams.get('suite') ?? SHOP_SUITE;
  if (suite !== SHOP_SUITE) throw bad(`suite=${JSON.stringify(suite)} is not served here (suites: ${SHOP_SUITE})`);
  const seed = intParam(url, 'seed', 0, -0x80000000);
  const n = intParam(url, 'n', 20, 0);
  const difficulties = listParam(url, 'difficulties').map((d) => {
    if (!/^\d+$/.test(d)) throw bad(`difficulties contains ${JSON.stringify(d)}, not a positive integer`);
    return Number(d);
  });
  const families = listParam(url, 'families') as ShopFamilyName[];
  try {
    const list = generateShopTasks({
      seed,
      n,
      baseUrl: requestOrigin(req, ctx.origin),
      difficulties,
      families,
      catalogSeed: ctx.catalog.seed,
    });
    sendText(res, 200, formatTaskFile(list), 'application/x-ndjson; charset=utf-8');
  } catch (e) {
    if (isTaskError(e)) throw bad(e.message);
    throw e;
  }
}

/** Handles /__owrl/* requests; false when the path is not part of the API. */
export function handleOwrlApi(req: IncomingMessage, res: ServerResponse, url: URL, ctx: ApiContext): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw new SitesError(SitesErrorCode.BadRequest, `${req.method ?? '?'} is not allowed on ${url.pathname}`, { status: 405 });
  }
  try {
    switch (url.pathname) {
      case '/__owrl/health':
        sendJson(res, 200, { ok: true, sites: ['shop'], catalogSeed: ctx.catalog.seed, products: ctx.catalog.products.length, sessions: ctx.sessions.size });
        return true;
      case '/__owrl/verify':
        verify(url, ctx, res);
        return true;
      case '/__owrl/tasks':
        tasks(req, url, ctx, res);
        return true;
      default:
        return false;
    }
  } catch (e) {
    if (e instanceof SitesError && url.pathname === '/__owrl/verify') {
      // The judge reads {ok, detail} from the verifier whatever the status.
      sendJson(res, e.status, { ok: false, detail: e.message });
      return true;
    }
    throw e;
  }
}
