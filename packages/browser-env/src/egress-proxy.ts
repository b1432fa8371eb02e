// One listener of the fence: an HTTP proxy on a loopback port that Chromium is pointed at
// (--proxy-server, loopback not bypassed), for one browser context or for the browser itself.
// Plain http:// requests arrive in absolute form and are forwarded; everything else (https, ws,
// wss) arrives as CONNECT and is tunnelled. Each request or tunnel passes the egress check and is
// then connected to the very address the check approved. What the fence refuses, and upstreams
// it cannot reach, are told to the listener's owner as they happen.
//
// How a refusal looks to Chromium: a CONNECT gets a 403 (Chromium fails the request with
// ERR_TUNNEL_CONNECTION_FAILED); a plain request gets its connection closed without an answer
// (ERR_EMPTY_RESPONSE), so the page sees a network error as with any unreachable host, never a
// response it could mistake for the site's. Chromium resends a request once when a kept-alive
// proxy connection closes without an answer; that second refusal of the same request is not
// told again.
import http from 'node:http';
import net from 'node:net';
import type { Logger } from '@owrl/core';
import { authorityOf, parseAuthority, parseHttpTarget, type EgressCheck, type EgressTarget, type UpstreamCode } from './egress-check.js';

/** Opens a TCP connection to an address the check approved (net.connect by default; tests map addresses). */
export type Dial = (to: { address: string; port: number }) => net.Socket;

const defaultDial: Dial = ({ address, port }) => net.connect({ host: address, port });

/** A connection the fence did not make: refused by the check, or allowed but unreachable. */
export interface FenceEvent {
  /** The URL of a plain request; `host:port` of a tunnel (its path is inside TLS or the WebSocket). */
  url: string;
  via: 'http' | 'connect';
  outcome: 'refused' | 'unreachable';
  /** refused: a FenceReason (private_address, bad_target); unreachable: an UpstreamCode (dns, connection_refused, ...). */
  reason: string;
  /** The class of the address that was refused ('' when none). */
  range: string;
  detail: string;
}

export interface EgressProxyOptions {
  check: EgressCheck;
  dial?: Dial;
  /** Told every refusal and unreachable upstream; must not throw. */
  onEvent(e: FenceEvent): void;
  log: Logger;
}

/** How long connecting to an approved address may take, ms. */
const CONNECT_TIMEOUT_MS = 15_000;
/** Headers as large as Chromium sends and accepts (Node's default of 16 KiB is short of big cookies). */
const MAX_HEADER_BYTES = 256 * 1024;
/** Within this, the same request refused again is Chromium's resend, ms. */
const RESEND_MS = 1000;

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The raw header list without hop-by-hop headers, nor those the Connection header names. */
function endToEnd(raw: readonly string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === 'connection') for (const t of (raw[i + 1] ?? '').split(',')) named.add(t.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = raw[i] ?? '';
    const lk = k.toLowerCase();
    if (!HOP_BY_HOP.has(lk) && !named.has(lk)) out.push(k, raw[i + 1] ?? '');
  }
  return out;
}

/** The reason Chromium would have given for the same failure of a direct connection. */
function upstreamCode(e: unknown): UpstreamCode {
  const err = e as NodeJS.ErrnoException;
  switch (err?.code) {
    case 'ECONNREFUSED':
      return 'connection_refused';
    case 'ECONNRESET':
    case 'EPIPE':
      // Node's name for a server that closed without answering (Chromium: ERR_EMPTY_RESPONSE)
      return err.message === 'socket hang up' ? 'connection_closed' : 'connection_reset';
    case 'ETIMEDOUT':
      return 'timeout';
    default:
      return 'network';
  }
}

export class EgressProxy {
  private readonly server: http.Server;
  private readonly check: EgressCheck;
  private readonly dial: Dial;
  private readonly onEvent: (e: FenceEvent) => void;
  private readonly log: Logger;
  /** Sockets of both sides, destroyed on close. */
  private readonly sockets = new Set<net.Socket>();
  /** Upstream connections of plain requests, kept alive per approved address like Chromium's own pool. */
  private readonly agent: http.Agent;
  /** `url reason` → when it was last told, to tell Chromium's resend apart (see the header). */
  private readonly lastTold = new Map<string, number>();
  private closed = false;

  private constructor(o: EgressProxyOptions) {
    this.check = o.check;
    this.dial = o.dial ?? defaultDial;
    this.onEvent = o.onEvent;
    this.log = o.log;
    const agent = new http.Agent({ keepAlive: true, scheduling: 'lifo' });
    // Plain requests name the approved address as their host; the dialer connects to it (a dialer
    // that throws fails the request, as a failed connect would).
    agent.createConnection = (opts, done) => {
      try {
        return this.track(this.dial({ address: String(opts.host), port: Number(opts.port) }));
      } catch (e) {
        done?.(e as Error, undefined as never);
        return undefined;
      }
    };
    this.agent = agent;
    // Whatever goes wrong with one request or tunnel ends that one only, never the actor.
    this.server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
      this.forward(req, res).catch((e: unknown) => this.failed('http', req.url ?? '', req.socket, e));
    });
    this.server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      this.tunnel(req, socket, head).catch((e: unknown) => this.failed('connect', req.url ?? '', socket, e));
    });
    this.server.on('connection', (s: net.Socket) => this.track(s));
    this.server.on('clientError', (_e, s: net.Socket) => s.destroy());
  }

  /** Listens on 127.0.0.1 on a free port. */
  static async start(o: EgressProxyOptions): Promise<EgressProxy> {
    const p = new EgressProxy(o);
    await new Promise<void>((resolve, reject) => {
      p.server.once('error', reject);
      p.server.listen(0, '127.0.0.1', () => {
        p.server.off('error', reject);
        resolve();
      });
    });
    return p;
  }

  get port(): number {
    const a = this.server.address();
    return typeof a === 'object' && a ? a.port : 0;
  }

  /** The proxy as Chromium is given it: `http://127.0.0.1:<port>`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Stops listening and destroys every connection of both sides. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const done = new Promise<void>((r) => this.server.close(() => r()));
    for (const s of this.sockets) s.destroy();
    this.agent.destroy();
    await done;
  }

  private track(s: net.Socket): net.Socket {
    this.sockets.add(s);
    s.once('close', () => this.sockets.delete(s));
    if (this.closed) s.destroy();
    return s;
  }

  private tell(e: FenceEvent): void {
    if (e.via === 'http') {
      // only plain requests are resent (a tunnel's 403 is final)
      const key = `${e.url} ${e.reason}`;
      const now = performance.now();
      const last = this.lastTold.get(key);
      if (this.lastTold.size > 1000) this.lastTold.clear();
      this.lastTold.set(key, now);
      if (last !== undefined && now - last < RESEND_MS) return;
    }
    this.log.debug({ url: e.url, via: e.via, outcome: e.outcome, reason: e.reason, range: e.range }, e.outcome === 'refused' ? 'fence refused a connection' : 'fence could not reach an upstream');
    try {
      this.onEvent(e);
    } catch (err) {
      this.log.warn({ err: (err as Error)?.message }, 'fence event handler failed');
    }
  }

  /** A request or tunnel the proxy itself failed on: closed, and logged (no page asked for this). */
  private failed(via: FenceEvent['via'], url: string, socket: net.Socket, e: unknown): void {
    this.log.warn({ via, url: url.slice(0, 500), err: (e as Error)?.message ?? String(e) }, 'fence proxy failed on a connection');
    socket.destroy();
  }

  // ---- plain http:// requests

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // a page that goes away mid-request ends both sides; its stream errors are no one's failure
    req.on('error', () => res.destroy());
    res.on('error', () => {});
    const url = req.url ?? '';
    const target = parseHttpTarget(url);
    if (!target) {
      this.tell({ url: url.slice(0, 500), via: 'http', outcome: 'refused', reason: 'bad_target', range: '', detail: 'not an absolute http:// URL' });
      req.socket.destroy();
      return;
    }
    const v = await this.check.check(target);
    if (!v.ok) {
      this.tell(v.refused ? { url, via: 'http', outcome: 'refused', reason: v.reason, range: v.range, detail: v.detail } : { url, via: 'http', outcome: 'unreachable', reason: v.code, range: '', detail: v.detail });
      req.socket.destroy();
      return;
    }
    // Chromium gave up on the request while it was checked (a navigation away, a closed tab)
    if (req.socket.destroyed) return;
    const u = new URL(url);
    const up = http.request({
      agent: this.agent,
      host: v.address,
      port: target.port,
      method: req.method ?? 'GET',
      path: u.pathname + u.search,
      headers: endToEnd(req.rawHeaders),
      setHost: false,
      // real sites send what browsers tolerate; the fence judges addresses, not HTTP hygiene
      insecureHTTPParser: true,
      maxHeaderSize: MAX_HEADER_BYTES,
      timeout: CONNECT_TIMEOUT_MS,
    });
    up.on('socket', (s: net.Socket) => {
      // the timeout covers connecting only: a slow answer is the page's business
      if (s.connecting) s.once('connect', () => up.setTimeout(0));
      else up.setTimeout(0);
    });
    up.on('timeout', () => up.destroy(Object.assign(new Error(`connecting to ${v.address}:${target.port} timed out`), { code: 'ETIMEDOUT' })));
    up.on('response', (r: http.IncomingMessage) => {
      try {
        res.writeHead(r.statusCode ?? 502, r.statusMessage, endToEnd(r.rawHeaders));
      } catch (e) {
        // a status line or header Node will not write (characters the lenient parser let in)
        this.tell({ url, via: 'http', outcome: 'unreachable', reason: 'invalid_response', range: '', detail: `the answer of ${target.host} cannot be relayed: ${(e as Error).message}` });
        r.destroy();
        req.socket.destroy();
        return;
      }
      r.pipe(res);
      r.on('error', () => res.destroy());
    });
    let clientGone = false;
    up.on('error', (e) => {
      if (clientGone) return;
      if (!res.headersSent) {
        this.tell({ url, via: 'http', outcome: 'unreachable', reason: upstreamCode(e), range: '', detail: `${authorityOf({ host: v.address, port: target.port })}: ${e.message}` });
        req.socket.destroy();
      } else {
        res.destroy();
      }
    });
    res.on('close', () => {
      if (res.writableFinished) return;
      // the page went away first: what the upstream says about it now is nobody's failure
      clientGone = true;
      up.destroy();
    });
    req.pipe(up);
  }

  // ---- CONNECT tunnels (https, ws, wss)

  private async tunnel(req: http.IncomingMessage, socket: net.Socket, head: Buffer): Promise<void> {
    socket.on('error', () => {});
    const authority = req.url ?? '';
    const target = parseAuthority(authority);
    if (!target) {
      this.tell({ url: authority.slice(0, 500), via: 'connect', outcome: 'refused', reason: 'bad_target', range: '', detail: 'not a host:port authority' });
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const url = authorityOf(target);
    const v = await this.check.check(target);
    if (!v.ok) {
      if (v.refused) {
        this.tell({ url, via: 'connect', outcome: 'refused', reason: v.reason, range: v.range, detail: v.detail });
        socket.end(`HTTP/1.1 403 Forbidden\r\nX-Owrl-Fence: ${v.reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      } else {
        this.tell({ url, via: 'connect', outcome: 'unreachable', reason: v.code, range: '', detail: v.detail });
        socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      }
      return;
    }
    if (socket.destroyed) return;
    this.splice(socket, head, target, v.address, url);
  }

  private splice(socket: net.Socket, head: Buffer, target: EgressTarget, address: string, url: string): void {
    let up: net.Socket;
    try {
      up = this.track(this.dial({ address, port: target.port }));
    } catch (e) {
      this.tell({ url, via: 'connect', outcome: 'unreachable', reason: upstreamCode(e), range: '', detail: (e as Error)?.message ?? String(e) });
      socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    let connected = false;
    const timer = setTimeout(() => up.destroy(Object.assign(new Error(`connecting to ${address}:${target.port} timed out`), { code: 'ETIMEDOUT' })), CONNECT_TIMEOUT_MS);
    up.once('connect', () => {
      connected = true;
      clearTimeout(timer);
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) up.write(head);
      socket.pipe(up);
      up.pipe(socket);
    });
    up.on('error', (e) => {
      clearTimeout(timer);
      if (connected) {
        socket.destroy();
        return;
      }
      this.tell({ url, via: 'connect', outcome: 'unreachable', reason: upstreamCode(e), range: '', detail: `${authorityOf({ host: address, port: target.port })}: ${e.message}` });
      socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    up.on('close', () => socket.destroy());
    socket.on('close', () => up.destroy());
  }
}
