// One request to a task's start URL through the actors' browser fence (an EgressFence listener,
// the proxy every page connection of an actor goes through): a plain request for http:, a CONNECT
// tunnel and TLS for https:. What the fence refused or could not reach is told by its events.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { EgressFence, type FenceEvent } from '@owrl/browser-env';
import { noopMeter, silentLogger } from '@owrl/core';

export interface FenceAnswer {
  /** The HTTP status of the page (0 when none came). */
  status: number;
  /** Why no page came: the fence's refusal or the upstream failure it saw, or the client error. */
  problem: string;
  /** The fence refused the connection (a private address not in the allowlist). */
  refused: boolean;
}

/** A fence with one listener, for the preflight's requests; close() when done. */
export class PreflightFence {
  private readonly events: FenceEvent[] = [];
  private constructor(private readonly proxy: { url: string; close(): Promise<void> }) {}

  static async open(allowHosts: readonly string[]): Promise<PreflightFence> {
    const fence = new EgressFence({ allowHosts, logger: silentLogger, meter: noopMeter });
    let self: PreflightFence | null = null;
    const proxy = await fence.open((e) => self?.events.push(e));
    self = new PreflightFence(proxy);
    return self;
  }

  async close(): Promise<void> {
    await this.proxy.close();
  }

  /** GET `url` through the fence. Never throws. */
  async get(url: string, timeoutMs: number): Promise<FenceAnswer> {
    const before = this.events.length;
    let status = 0;
    let problem = '';
    try {
      status = await (new URL(url).protocol === 'https:' ? this.#tunnel(url, timeoutMs) : this.#plain(url, timeoutMs));
    } catch (e) {
      problem = (e as Error).message;
    }
    const ev = this.events.slice(before).find((e) => e.outcome === 'refused') ?? this.events.slice(before)[0];
    if (ev) return { status: 0, problem: `${ev.outcome === 'refused' ? 'refused by the fence' : `unreachable (${ev.reason})`}: ${ev.detail}`, refused: ev.outcome === 'refused' };
    return { status, problem, refused: false };
  }

  #proxyParts(): { host: string; port: number } {
    const u = new URL(this.proxy.url);
    return { host: u.hostname, port: Number(u.port) };
  }

  #plain(url: string, timeoutMs: number): Promise<number> {
    const p = this.#proxyParts();
    return new Promise((resolve, reject) => {
      const req = http.request({ host: p.host, port: p.port, method: 'GET', path: url, headers: { host: new URL(url).host }, timeout: timeoutMs }, (res) => {
        res.resume();
        if (res.headers['x-owrl-fence'] !== undefined) reject(new Error(`refused by the fence (${String(res.headers['x-owrl-fence'])})`));
        else resolve(res.statusCode ?? 0);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end();
    });
  }

  #tunnel(url: string, timeoutMs: number): Promise<number> {
    const p = this.#proxyParts();
    const u = new URL(url);
    const authority = `${u.hostname}:${u.port || 443}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        connect.destroy();
        reject(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const fail = (e: Error): void => {
        clearTimeout(timer);
        reject(e);
      };
      const connect = http.request({ host: p.host, port: p.port, method: 'CONNECT', path: authority, headers: { host: authority } });
      connect.on('error', fail);
      connect.on('connect', (res, socket) => {
        if (res.statusCode !== 200) {
          socket.destroy();
          return fail(new Error(`the fence answered the tunnel with HTTP ${res.statusCode ?? 0}`));
        }
        const secure = tls.connect({ socket, servername: u.hostname });
        const req = https.request({ host: u.hostname, method: 'GET', path: `${u.pathname}${u.search}`, createConnection: () => secure, headers: { host: u.host } }, (r) => {
          r.resume();
          clearTimeout(timer);
          secure.destroy();
          resolve(r.statusCode ?? 0);
        });
        req.on('error', fail);
        req.end();
      });
      connect.end();
    });
  }
}
