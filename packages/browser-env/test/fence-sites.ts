// Servers for the fence tests, all on loopback: the allowlisted site whose pages try to get out
// (redirect hops, meta refresh and script navigations, fetches from the page and from dedicated,
// shared and service workers, WebSockets), the internal listener they aim at (never allowlisted:
// it counts every TCP connection it accepts, so "zero hits" means nothing got through, not
// merely that no request was parsed), and a stand-in for a public site, which the tests reach
// through the fence's dialer under a public-looking address.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface TestServer {
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly hostPort: string;
  readonly origin: string;
  /** TCP connections accepted. */
  connections: number;
  /** `METHOD path` of each request, `WS path` of each WebSocket upgrade. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Runs `probe(fetchUrl, wsUrl)` in any global scope (page or worker) and resolves with what each did. */
const PROBE = `async function probe(fetchUrl, wsUrl) {
  const out = {};
  if (fetchUrl) {
    try { const r = await fetch(fetchUrl); out.fetch = 'status ' + r.status; } catch (e) { out.fetch = 'failed'; }
  }
  if (wsUrl) {
    out.ws = await new Promise((resolve) => {
      let s;
      try { s = new WebSocket(wsUrl); } catch (e) { return resolve('throw'); }
      const t = setTimeout(() => resolve('timeout'), 5000);
      s.onopen = () => { clearTimeout(t); s.close(); resolve('open'); };
      s.onerror = () => { clearTimeout(t); resolve('error'); };
    });
  }
  return out;
}`;

const html = (title: string, body: string): string => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const attr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const js = (s: string): string => JSON.stringify(s).replace(/</g, '\\u003c');

/** The page script that starts a probe of `kind` when "Run" is clicked and shows its result as JSON in #out (title "ready" when done). */
function probePage(kind: string, fetchUrl: string, wsUrl: string): string {
  const q = `fetch=${encodeURIComponent(fetchUrl)}&ws=${encodeURIComponent(wsUrl)}`;
  const start: Record<string, string> = {
    page: `probe(${js(fetchUrl)}, ${js(wsUrl)})`,
    worker: `new Promise((res) => { const w = new Worker('/probe.js?${q}'); w.onmessage = (m) => res(m.data); })`,
    shared: `new Promise((res) => { const w = new SharedWorker('/probe.js?shared=1&${q}'); w.port.onmessage = (m) => res(m.data); w.port.start(); })`,
    service: `navigator.serviceWorker.register('/probe.js?service=1&${q}').then(() => navigator.serviceWorker.ready).then((reg) => new Promise((res) => { navigator.serviceWorker.onmessage = (m) => res(m.data); reg.active.postMessage('go'); }))`,
  };
  return html(
    'Probe',
    `<p id="out">idle</p><button id="run">Run</button><script>${PROBE}
     document.getElementById('run').onclick = () => {
       (${start[kind] ?? 'Promise.reject(new Error("unknown kind"))'}).then(
         (r) => { document.getElementById('out').textContent = JSON.stringify(r); },
         (e) => { document.getElementById('out').textContent = 'error ' + e.message; },
       ).finally(() => { document.title = 'ready'; });
     };</script>`,
  );
}

/** The worker script of probePage: a dedicated, shared or service worker running the probe. */
function probeScript(u: URL): string {
  const args = `${js(u.searchParams.get('fetch') ?? '')}, ${js(u.searchParams.get('ws') ?? '')}`;
  if (u.searchParams.has('shared')) return `${PROBE}\nonconnect = (e) => { const p = e.ports[0]; probe(${args}).then((r) => p.postMessage(r)); };`;
  if (u.searchParams.has('service')) {
    return `${PROBE}
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(clients.claim()));
self.addEventListener('message', (e) => { probe(${args}).then((r) => e.source.postMessage(r)); });`;
  }
  return `${PROBE}\nprobe(${args}).then((r) => postMessage(r));`;
}

/** Page fetching each of `urls` when "Run" is clicked; #out shows `{url: outcome}` as JSON. */
function fetchAllPage(urls: string[]): string {
  return html(
    'Fetch all',
    `<p id="out">idle</p><button id="run">Run</button><script>
     document.getElementById('run').onclick = async () => {
       const out = {};
       await Promise.all(${JSON.stringify(urls).replace(/</g, '\\u003c')}.map(async (u) => {
         try { const r = await fetch(u); out[u] = 'status ' + r.status; } catch (e) { out[u] = 'failed'; }
       }));
       document.getElementById('out').textContent = JSON.stringify(out);
       document.title = 'ready';
     };</script>`,
  );
}

/** Page gathering ICE candidates for `iceServers` when "Run" is clicked; #out lists the candidates as JSON. */
function webrtcPage(iceServers: unknown): string {
  return html(
    'WebRTC',
    `<p id="out">idle</p><button id="run">Run</button><script>
     document.getElementById('run').onclick = async () => {
       const cands = [];
       const finish = () => { document.getElementById('out').textContent = JSON.stringify(cands); document.title = 'ready'; };
       try {
         const pc = new RTCPeerConnection({ iceServers: ${JSON.stringify(iceServers).replace(/</g, '\\u003c')} });
         pc.createDataChannel('x');
         const t = setTimeout(finish, 4000);
         pc.onicecandidate = (e) => { if (e.candidate) cands.push(e.candidate.candidate); else { clearTimeout(t); finish(); } };
         await pc.setLocalDescription(await pc.createOffer());
       } catch (e) { cands.push('error ' + e.message); finish(); }
     };</script>`,
  );
}

/** A page of links and buttons that leave for `to` by each kind of navigation. */
function leavePage(to: string): string {
  const t = encodeURIComponent(to);
  return html(
    'Leave',
    `<p id="out">idle</p>
     <a href="/hop?code=302&to=${t}">Redirect 302</a>
     <a href="/hop?code=307&to=${t}">Redirect 307</a>
     <a href="/hop?code=302&to=${encodeURIComponent(`/hop?code=307&to=${t}`)}">Redirect chain</a>
     <a href="/meta?to=${t}">Meta refresh</a>
     <a href="/jsnav?to=${t}">Script location</a>
     <button id="fetch" onclick="fetch('/hop?code=307&to=${t}').then((r) => r.text()).then((x) => { document.getElementById('out').textContent = 'got ' + x; }, () => { document.getElementById('out').textContent = 'fetch failed'; })">Fetch through redirect</button>`,
  );
}

function track(server: http.Server, s: TestServer): void {
  const sockets = new Set<Socket>();
  server.on('connection', (sock: Socket) => {
    s.connections++;
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  });
  server.on('upgrade', (req: http.IncomingMessage, sock: Socket) => {
    s.requests.push(`WS ${req.url ?? ''}`);
    const accept = crypto.createHash('sha1').update(`${String(req.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    sock.on('error', () => {});
    sock.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  });
  const close = s.close;
  Object.assign(s, {
    close: async () => {
      for (const x of sockets) x.destroy();
      await close();
    },
  });
}

async function listen(handler: http.RequestListener, host = '127.0.0.1'): Promise<TestServer> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const port = (server.address() as AddressInfo).port;
  const s: TestServer = {
    port,
    hostPort: `${host}:${port}`,
    origin: `http://${host}:${port}`,
    connections: 0,
    requests: [],
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  track(server, s);
  return s;
}

/** The listener the pages aim at: answers anything (so a hit would show as success), counts every connection. */
export async function startInternal(): Promise<TestServer> {
  let s: TestServer | null = null;
  s = await listen((req, res) => {
    s?.requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('internal secret');
  });
  return s;
}

/** The allowlisted site: pages that try to leave by every route (see the module header). */
export async function startFenceSite(): Promise<TestServer> {
  let s: TestServer | null = null;
  s = await listen((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    s?.requests.push(`${req.method ?? ''} ${u.pathname}`);
    const to = u.searchParams.get('to') ?? '';
    const page = (body: string): void => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
    };
    switch (u.pathname) {
      case '/hop':
        res.writeHead(Number(u.searchParams.get('code') ?? '302'), { location: to, 'cache-control': 'no-store' }).end();
        return;
      case '/leave':
        return page(leavePage(to));
      case '/meta':
        return page(html('Meta', `<meta http-equiv="refresh" content="0;url=${attr(to)}"><p>moving on</p>`));
      case '/jsnav':
        return page(html('Script', `<p>moving on</p><script>location = ${js(to)};</script>`));
      case '/probe':
        return page(probePage(u.searchParams.get('kind') ?? 'page', u.searchParams.get('fetch') ?? '', u.searchParams.get('ws') ?? ''));
      case '/probe.js':
        res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(probeScript(u));
        return;
      case '/fetch-all':
        return page(fetchAllPage(JSON.parse(u.searchParams.get('urls') ?? '[]') as string[]));
      case '/webrtc':
        return page(webrtcPage(JSON.parse(u.searchParams.get('ice') ?? '[]')));
      case '/data':
        res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('site data');
        return;
      default:
        return page(html('Fence site', '<h1>Fence site</h1>'));
    }
  });
  return s;
}

/**
 * The stand-in for a public site: a page with a button that fetches `/data` from its own origin
 * (whatever name the page was loaded under) and shows the outcome in #out.
 */
export async function startPublicSite(): Promise<TestServer> {
  let s: TestServer | null = null;
  s = await listen((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    s?.requests.push(`${req.method ?? ''} ${u.pathname} ${req.headers.host ?? ''}`);
    if (u.pathname === '/data') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('public data');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(
      html(
        'Public page',
        `<p id="out">idle</p><button onclick="fetch('/data').then((r) => r.text()).then((t) => { document.getElementById('out').textContent = 'got ' + t; }, () => { document.getElementById('out').textContent = 'fetch failed'; }).finally(() => { document.title = 'ready'; })">Fetch data</button>`,
      ),
    );
  });
  return s;
}
