// The console web app: an HTTP server over the learner's gRPC API. It follows WatchRun and pushes
// the overview's live part to every open page as server-sent events (no reload when a round
// finishes); round, group and trajectory pages query the learner; screenshots come from the
// content-addressed store; control calls (pause/resume with the user's token, passed through to
// the learner; blacklist edits checked against the console's own control token) are JSON POSTs.
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import type { Blacklist, BlacklistEntry, ScreenshotStore } from '@owrl/bus';
import type { Logger } from '@owrl/core';
import { BlacklistInfoSchema, make, type RunEvent, type RunState } from '@owrl/proto';
import { isGrpcError, type LearnerClient } from '@owrl/learner-client';
import { HttpError, HttpErrorCode, isHttpError } from './errors.js';
import { errorPage, groupPage, overviewLive, overviewPage, roundPage, trajectoryPage } from './views.js';

export interface ConsoleAppOptions {
  learner: LearnerClient;
  shots: ScreenshotStore | null;
  blacklist: Blacklist | null;
  /** Token for blacklist edits from the console ('' = edits refused). */
  controlToken: string;
  logger: Logger;
  /** Least time between two pushes of the overview (coalesces bursts of changes). Default 300 ms. */
  pushIntervalMs?: number;
}

const MAX_BODY = 64 * 1024;
const HOST_RE = /^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/i;

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** gRPC status of a learner call → HTTP status and message. */
function fromGrpc(e: unknown): HttpError {
  if (!isGrpcError(e)) return new HttpError(HttpErrorCode.Internal, (e as Error)?.message ?? String(e));
  const map: Partial<Record<grpc.status, HttpErrorCode>> = {
    [grpc.status.UNAUTHENTICATED]: HttpErrorCode.Unauthorized,
    [grpc.status.PERMISSION_DENIED]: HttpErrorCode.Forbidden,
    [grpc.status.FAILED_PRECONDITION]: HttpErrorCode.Conflict,
    [grpc.status.NOT_FOUND]: HttpErrorCode.NotFound,
    [grpc.status.INVALID_ARGUMENT]: HttpErrorCode.BadRequest,
    [grpc.status.UNAVAILABLE]: HttpErrorCode.Unavailable,
    [grpc.status.DEADLINE_EXCEEDED]: HttpErrorCode.GatewayTimeout,
  };
  return new HttpError(map[e.code] ?? HttpErrorCode.BadGateway, `learner: ${e.details || e.message}`);
}

export class ConsoleApp {
  private readonly server: http.Server;
  private readonly clients = new Set<http.ServerResponse>();
  private state: RunState | null = null;
  private lastError: string | null = null;
  private watch: { stop(): void } | null = null;
  private pushTimer: NodeJS.Timeout | null = null;
  private lastPush = 0;
  private blacklistView: Array<BlacklistEntry & { host: string }> | null = null;
  private blacklistTimer: NodeJS.Timeout | null = null;
  /** WatchRun events received (for health and tests). */
  events = 0;
  port = 0;

  constructor(private readonly o: ConsoleAppOptions) {
    this.server = http.createServer((req, res) => void this.route(req, res));
  }

  async start(port: number, host: string): Promise<number> {
    this.watch = this.o.learner.follow({
      onEvent: (ev) => this.onEvent(ev),
      onDisconnect: (err) => {
        this.lastError = `learner ${this.o.learner.address} unreachable: ${(err as Error)?.message ?? String(err)}`;
        this.o.logger.warn({ err }, 'WatchRun stream broke; reconnecting');
      },
    });
    if (this.o.blacklist) {
      await this.refreshBlacklist();
      this.blacklistTimer = setInterval(() => void this.refreshBlacklist(), 5000);
      this.blacklistTimer.unref();
    }
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    const a = this.server.address();
    this.port = typeof a === 'object' && a ? a.port : port;
    return this.port;
  }

  /** True once the learner has sent a run state. */
  get connected(): boolean {
    return this.state !== null;
  }

  async stop(): Promise<void> {
    this.watch?.stop();
    if (this.pushTimer) clearTimeout(this.pushTimer);
    if (this.blacklistTimer) clearInterval(this.blacklistTimer);
    for (const c of this.clients) c.end();
    this.clients.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private onEvent(ev: RunEvent): void {
    if (!ev.state) return;
    this.events++;
    this.state = ev.state;
    this.lastError = null;
    this.schedulePush();
  }

  private schedulePush(): void {
    if (this.pushTimer) return;
    const wait = Math.max(0, this.lastPush + (this.o.pushIntervalMs ?? 300) - Date.now());
    this.pushTimer = setTimeout(() => {
      this.pushTimer = null;
      this.lastPush = Date.now();
      this.push();
    }, wait);
  }

  private view(): RunState | null {
    const s = this.state;
    if (!s || !this.blacklistView) return s;
    // The console reads the blacklist itself so an edit shows at once (the learner re-reads it periodically).
    return { ...s, blacklist: this.blacklistView.map((b) => make(BlacklistInfoSchema, { host: b.host, reason: b.reason, failures: b.failures, untilMs: BigInt(b.untilMs) })) };
  }

  private push(): void {
    const s = this.view();
    if (!s || this.clients.size === 0) return;
    const data = JSON.stringify({ rv: String(s.resourceVersion), round: String(s.round), html: overviewLive(s) });
    for (const c of this.clients) c.write(`event: state\ndata: ${data}\n\n`);
  }

  private async refreshBlacklist(): Promise<void> {
    try {
      this.blacklistView = await this.o.blacklist!.list();
    } catch (e) {
      this.o.logger.warn({ err: e }, 'blacklist read failed');
    }
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://console');
    const path = url.pathname;
    try {
      if (req.method === 'POST') return await this.control(path, req, res);
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(HttpErrorCode.MethodNotAllowed, `${req.method} is not served`);
      if (path === '/') return this.html(res, overviewPage(this.view(), this.lastError));
      if (path === '/events') return this.events$(req, res);
      if (path === '/healthz') return this.json(res, this.state ? 200 : 503, { learner: this.state ? 'connected' : (this.lastError ?? 'waiting') });
      if (path === '/api/state') {
        const s = this.view();
        if (!s) throw new HttpError(HttpErrorCode.Unavailable, this.lastError ?? 'no run state yet');
        return this.json(res, 200, { runId: s.runId, phase: s.phase, round: String(s.round), resourceVersion: String(s.resourceVersion), policyVersion: String(s.policyVersion) });
      }
      let m = /^\/rounds\/(\d+)$/.exec(path);
      if (m) {
        const round = Number(m[1]);
        const groups = await this.o.learner.listGroups(round).catch((e: unknown) => Promise.reject(fromGrpc(e)));
        return this.html(res, roundPage(this.state?.runId ?? '', round, groups.groups));
      }
      m = /^\/rounds\/(\d+)\/groups\/(\d+)$/.exec(path);
      if (m) {
        const round = Number(m[1]);
        const gi = Number(m[2]);
        const groups = await this.o.learner.listGroups(round).catch((e: unknown) => Promise.reject(fromGrpc(e)));
        const g = groups.groups.find((x) => x.group === gi);
        if (!g) throw new HttpError(HttpErrorCode.NotFound, `round ${round} has no group ${gi} (the learner keeps recent rounds only)`);
        const trajs = await Promise.all(
          g.trajectoryIds.map(async (id) => {
            try {
              return { id, t: await this.o.learner.getTrajectory(id) };
            } catch (e) {
              return { id, t: null, error: fromGrpc(e).message };
            }
          }),
        );
        return this.html(res, groupPage(round, g, trajs));
      }
      if (path === '/trajectory') {
        const id = url.searchParams.get('id') ?? '';
        if (id === '') throw new HttpError(HttpErrorCode.BadRequest, 'query parameter id (a trajectory id) is missing');
        const step = Number(url.searchParams.get('step') ?? '0');
        const t = await this.o.learner.getTrajectory(id).catch((e: unknown) => Promise.reject(fromGrpc(e)));
        return this.html(res, trajectoryPage(id, t, Number.isInteger(step) ? step : 0));
      }
      m = /^\/shots\/([0-9a-f]{64})$/.exec(path);
      if (m) return await this.shot(m[1] ?? '', res);
      throw new HttpError(HttpErrorCode.NotFound, `no page at ${path}`);
    } catch (e) {
      const err = isHttpError(e) ? e : new HttpError(HttpErrorCode.Internal, (e as Error)?.message ?? String(e));
      if (err.status >= 500) this.o.logger.warn({ err: e, path }, 'console request failed');
      if (res.headersSent) return void res.end();
      if (path.startsWith('/api/')) return this.json(res, err.status, { error: err.message });
      res.writeHead(err.status, { 'content-type': 'text/html; charset=utf-8' }).end(errorPage(err.status, err.message));
    }
  }

  private html(res: http.ServerResponse, body: string): void {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }).end(body);
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  }

  private events$(req: http.IncomingMessage, res: http.ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(': owrl console\n\n');
    this.clients.add(res);
    const s = this.view();
    if (s) res.write(`event: state\ndata: ${JSON.stringify({ rv: String(s.resourceVersion), round: String(s.round), html: overviewLive(s) })}\n\n`);
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    ping.unref();
    req.on('close', () => {
      clearInterval(ping);
      this.clients.delete(res);
    });
  }

  private async shot(sha: string, res: http.ServerResponse): Promise<void> {
    if (!this.o.shots) throw new HttpError(HttpErrorCode.NotFound, 'this console has no screenshot store');
    const img = await this.o.shots.get(sha);
    if (!img) throw new HttpError(HttpErrorCode.NotFound, `screenshot ${sha} is not in the store (never stored, or past its retention)`);
    res.writeHead(200, { 'content-type': img.mime, 'content-length': img.bytes.length, 'cache-control': 'public, max-age=31536000, immutable' }).end(img.bytes);
  }

  private async body(req: http.IncomingMessage): Promise<Record<string, unknown>> {
    // JSON only: a cross-site form cannot send it without the browser asking first (CSRF guard).
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) throw new HttpError(HttpErrorCode.UnsupportedMediaType, 'control calls take a JSON body (content-type application/json)');
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of req) {
      n += (c as Buffer).length;
      if (n > MAX_BODY) throw new HttpError(HttpErrorCode.BodyTooLarge, 'request body too large');
      chunks.push(c as Buffer);
    }
    try {
      const v: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
      return v as Record<string, unknown>;
    } catch (e) {
      throw new HttpError(HttpErrorCode.BadRequest, `request body is not a JSON object: ${(e as Error).message}`);
    }
  }

  private async control(path: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const b = await this.body(req);
    const token = typeof b['token'] === 'string' ? b['token'] : '';
    if (path === '/api/pause' || path === '/api/resume') {
      const reason = typeof b['reason'] === 'string' ? b['reason'].slice(0, 500) : 'paused from the console';
      try {
        const s = path === '/api/pause' ? await this.o.learner.pauseRun(reason, token) : await this.o.learner.resumeRun(token);
        this.o.logger.info({ action: path.slice(5) }, 'run control from the console');
        this.state = s.resourceVersion >= (this.state?.resourceVersion ?? 0n) ? s : this.state;
        this.schedulePush();
        return this.json(res, 200, { phase: s.phase, message: path === '/api/pause' ? 'paused' : 'resumed' });
      } catch (e) {
        throw fromGrpc(e);
      }
    }
    if (path === '/api/blacklist') {
      if (!this.o.blacklist) throw new HttpError(HttpErrorCode.Unavailable, 'this console has no NATS connection for the blacklist');
      if (!this.o.controlToken) throw new HttpError(HttpErrorCode.Conflict, 'blacklist edits are disabled: start the console with OWRL_CONTROL_TOKEN set');
      if (!sameToken(token, this.o.controlToken)) throw new HttpError(HttpErrorCode.Unauthorized, 'missing or wrong control token');
      const host = typeof b['host'] === 'string' ? b['host'].trim().toLowerCase() : '';
      if (!HOST_RE.test(host)) throw new HttpError(HttpErrorCode.BadRequest, `host ${JSON.stringify(b['host'])} is not a host or host:port`);
      const action = b['action'];
      if (action === 'remove') {
        const removed = await this.o.blacklist.remove(host);
        await this.refreshBlacklist();
        this.schedulePush();
        if (!removed) throw new HttpError(HttpErrorCode.NotFound, `${host} is not blacklisted`);
        this.o.logger.info({ host }, 'blacklist entry removed from the console');
        return this.json(res, 200, { message: `removed ${host}` });
      }
      if (action === 'add') {
        const ttl = Number(b['ttlMinutes'] ?? 30);
        if (!Number.isFinite(ttl) || ttl <= 0 || ttl > 60 * 24 * 30) throw new HttpError(HttpErrorCode.BadRequest, `ttlMinutes ${JSON.stringify(b['ttlMinutes'])} must be a number of minutes in (0, 43200]`);
        const reason = typeof b['reason'] === 'string' && b['reason'].trim() !== '' ? b['reason'].trim().slice(0, 200) : 'manual';
        await this.o.blacklist.add(host, { reason, failures: 0, untilMs: Date.now() + Math.round(ttl * 60_000) });
        await this.refreshBlacklist();
        this.schedulePush();
        this.o.logger.info({ host, reason, ttlMinutes: ttl }, 'host blacklisted from the console');
        return this.json(res, 200, { message: `blacklisted ${host}` });
      }
      throw new HttpError(HttpErrorCode.BadRequest, `action ${JSON.stringify(action)} must be "add" or "remove"`);
    }
    throw new HttpError(HttpErrorCode.NotFound, `no control call at ${path}`);
  }
}
