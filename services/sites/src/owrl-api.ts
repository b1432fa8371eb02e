// The sites' control API under /__owrl/: health, the site-state verifiers the judge calls
// (`/__owrl/verify/<site>`; plain `/__owrl/verify` is the shop's), and the task generator endpoint
// the learner fetches JSONL tasks from (`/__owrl/tasks?suite=<name>`).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatTaskFile, generateSuiteTasks, getSuite, isTaskError } from '@owrl/tasks';
import { SitesError, SitesErrorCode } from './errors.js';
import { sendJson, sendText } from './http-util.js';
import type { SessionStore } from './session-store.js';
import type { SiteModule } from './site.js';

export interface ApiContext {
  sites: readonly SiteModule[];
  sessions: SessionStore;
  /** Origin of this server as configured (used when the request has no usable Host header). */
  origin: string;
  /** Data seed of the sites; generated tasks use it. */
  seed: number;
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

function verify(url: URL, site: SiteModule, ctx: ApiContext, res: ServerResponse): void {
  const session = url.searchParams.get('session');
  if (session === null || session === '') throw bad('session is missing');
  const spec = url.searchParams.get('spec');
  if (spec === null || spec === '') throw bad('spec is missing');
  // An unknown session has the empty state; reading it must not create it.
  sendJson(res, 200, site.verify(ctx.sessions.peek(session), spec));
}

function tasks(req: IncomingMessage, url: URL, ctx: ApiContext, res: ServerResponse): void {
  const suite = url.searchParams.get('suite') ?? 'shop';
  const seed = intParam(url, 'seed', 0, -0x80000000);
  const n = intParam(url, 'n', 20, 0);
  const difficulties = listParam(url, 'difficulties').map((d) => {
    if (!/^\d+$/.test(d)) throw bad(`difficulties contains ${JSON.stringify(d)}, not a positive integer`);
    return Number(d);
  });
  const families = listParam(url, 'families');
  try {
    const def = getSuite(suite);
    if (!ctx.sites.some((s) => s.name === def.site)) throw bad(`suite ${suite} needs site ${def.site}, which this server does not host`);
    const list = generateSuiteTasks(suite, { seed, n, baseUrl: requestOrigin(req, ctx.origin), difficulties, families, dataSeed: ctx.seed });
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
      case '/__owrl/health': {
        const sites: Record<string, Record<string, number | string>> = {};
        for (const site of ctx.sites) sites[site.name] = site.health?.() ?? {};
        sendJson(res, 200, { ok: true, seed: ctx.seed, sites, sessions: ctx.sessions.size });
        return true;
      }
      case '/__owrl/verify':
        verify(url, siteNamed(ctx, 'shop'), ctx, res);
        return true;
      case '/__owrl/tasks':
        tasks(req, url, ctx, res);
        return true;
      default:
        if (url.pathname.startsWith('/__owrl/verify/')) {
          verify(url, siteNamed(ctx, url.pathname.slice('/__owrl/verify/'.length)), ctx, res);
          return true;
        }
        return false;
    }
  } catch (e) {
    if (e instanceof SitesError && url.pathname.startsWith('/__owrl/verify')) {
      // The judge reads {ok, detail} from the verifier whatever the status.
      sendJson(res, e.status, { ok: false, detail: e.message });
      return true;
    }
    throw e;
  }
}

function siteNamed(ctx: ApiContext, name: string): SiteModule {
  const site = ctx.sites.find((s) => s.name === name);
  if (site === undefined) {
    throw new SitesError(SitesErrorCode.BadRequest, `no site ${JSON.stringify(name)} here (sites: ${ctx.sites.map((s) => s.name).join(', ')})`, { status: 404 });
  }
  return site;
}
