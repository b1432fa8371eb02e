// Tiny node:http site for the browser-env tests: a list with links, a form, a field that
// rewrites its input, a long page, a target=_blank link, a dead button, a 500 page, a captcha-ish
// page, a Cloudflare-style challenge, a flaky and a stalling start page, cookies and all kinds of
// storage, dialogs, popups, a file input, downloads, requests to private addresses, shadow DOM and
// an iframe. Listens on 127.0.0.1, free port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FixtureServer {
  readonly origin: string;
  readonly hostPort: string;
  /** Requests seen per path. */
  readonly hits: Map<string, number>;
  /** Load attempts seen per /flaky/<key> path (Chromium's own immediate resends count once). */
  readonly attempts: Map<string, number>;
  close(): Promise<void>;
}

const page = (title: string, body: string, head = ''): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;

const PAGES: Record<string, string> = {
  '/': page(
    'Shop',
    `<h1>Mug shop</h1>
     <ul id="list">
       <li class="item"><a href="/form">Search page</a> <span>go search</span></li>
       <li class="item"><a href="/item/blue-mug">Blue mug</a> <span class="price">$12.50</span></li>
       <li class="item"><a href="/item/red-mug">Red mug</a> <span class="price">$9.99</span></li>
     </ul>
     <a href="/long">Long page</a> <a href="/captcha">Captcha</a> <a href="/private">Private</a>`,
  ),
  '/form': page(
    'Search',
    `<form action="/result" method="get">
       <label for="q">Query</label> <input id="q" name="q" type="text" placeholder="what?">
       <label>Quantity <input id="qty" name="qty" type="number"></label>
       <button type="submit">Search</button>
     </form>`,
  ),
  '/rewrite': page(
    'Rewrite',
    `<label for="r">Code</label><input id="r" type="text">
     <script>document.getElementById('r').addEventListener('input', e => { e.target.value = e.target.value.toUpperCase(); });</script>`,
  ),
  '/long': page('Long', `<h1>Top</h1><div style="height:3000px;background:linear-gradient(#fff,#ccc)">tall</div><p id="bottom">Bottom text</p>`),
  '/blank': page('Blank', `<a id="nt" href="/item/blue-mug" target="_blank">Open in new tab</a>`),
  '/noop': page('Noop', `<button id="noop" onclick="void 0">Nothing</button>`),
  '/toggle': page(
    'Toggle',
    `<button id="t" onclick="document.getElementById('menu').hidden = !document.getElementById('menu').hidden">Menu</button>
     <div id="menu" hidden><a href="/a">A</a><a href="/b">B</a></div>`,
  ),
  '/captcha': page('Security check', `<h1>Please verify you are human</h1><div class="g-recaptcha" data-sitekey="x"></div>`),
  '/cookie-set': page('Cookie set', `<p id="c">set</p><script>document.cookie = 'owrl_seen=1; path=/'; localStorage.setItem('owrl', '1');</script>`),
  '/cookie-show': page('Cookie show', `<p id="c"></p><script>document.getElementById('c').textContent = 'cookie=[' + document.cookie + '] ls=[' + (localStorage.getItem('owrl') ?? '') + ']';</script>`),
  '/dialog': page('Dialog', `<button id="d" onclick="alert('hello there'); document.title = 'after alert'">Alert</button>`),
  '/download': page('Download', `<a id="dl" href="/file.txt" download>Get file</a>`),
  '/private': page('Private', `<a id="p" href="http://10.1.2.3/secret">Internal</a>`),
  '/shadow': page(
    'Shadow',
    `<div id="host"></div><iframe id="fr" src="/frame" style="width:400px;height:200px;border:0"></iframe>
     <script>const r = document.getElementById('host').attachShadow({ mode: 'open' }); r.innerHTML = '<button id="sb">Shadow button</button>'; r.getElementById('sb').addEventListener('click', (e) => { e.target.textContent = 'Clicked in shadow'; });</script>`,
  ),
  '/frame': page('Frame', `<button id="fb" onclick="this.textContent='Clicked in frame'">Frame button</button>`),
  '/hover': page(
    'Hover',
    `<style>.sub { display: none } .menu:hover .sub { display: block }</style>
     <div class="menu" style="width:200px;height:40px">Products <div class="sub"><a href="/item/blue-mug">Mugs</a></div></div>
     <input id="rng" type="range" min="0" max="100" value="0" style="width:300px;position:absolute;left:20px;top:200px">`,
  ),
  '/fetch': page(
    'Fetch',
    `<button id="more" onclick="fetch('/api/items').then(r => r.json()).then(xs => { for (const x of xs) { const a = document.createElement('a'); a.href = '/item/' + x; a.textContent = x; document.getElementById('list').append(a); } })">Load more</button><div id="list"></div>`,
  ),
  '/hang': page('Hang', `<button id="h" onclick="const t = Date.now(); while (Date.now() - t < 4000) {}">Freeze</button>`),
  '/tiny': page('Tiny', `<a href="/tiny">Again</a>`),
  // writes every kind of per-origin state and tries to register a service worker; #out says how
  // it went, and the title turns to "ready" when it is done
  '/iso-write': page(
    'Isolation write',
    `<p id="out">pending</p><script>
     (async () => {
       document.cookie = 'iso=1; path=/; max-age=3600';
       localStorage.setItem('iso', 'local');
       sessionStorage.setItem('iso', 'session');
       const db = await new Promise((res, rej) => { const r = indexedDB.open('iso', 1); r.onupgradeneeded = () => r.result.createObjectStore('kv'); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
       await new Promise((res, rej) => { const tx = db.transaction('kv', 'readwrite'); tx.objectStore('kv').put('idb', 'iso'); tx.oncomplete = res; tx.onerror = () => rej(tx.error); });
       db.close();
       await (await caches.open('iso')).put('/iso-cached', new Response('cached'));
       let sw;
       try { sw = String(await navigator.serviceWorker.register('/sw.js')); } catch (e) { sw = 'refused: ' + e.message; }
       const regs = await navigator.serviceWorker.getRegistrations();
       document.getElementById('out').textContent = 'written sw=' + sw + ' registrations=' + regs.length;
     })().catch((e) => { document.getElementById('out').textContent = 'error ' + e; }).finally(() => { document.title = 'ready'; });
     </script>`,
  ),
  // reads back every kind of state; #out is JSON once the title is "ready"
  '/iso-read': page(
    'Isolation read',
    `<p id="out">pending</p><script>
     (async () => {
       const dbs = (await indexedDB.databases()).map((d) => d.name);
       const cacheKeys = await caches.keys();
       const regs = await navigator.serviceWorker.getRegistrations();
       const out = { cookie: document.cookie, local: localStorage.getItem('iso'), session: sessionStorage.getItem('iso'), idb: dbs, caches: cacheKeys, sw: regs.length, controlled: !!navigator.serviceWorker.controller };
       document.getElementById('out').textContent = JSON.stringify(out);
     })().catch((e) => { document.getElementById('out').textContent = 'error ' + e; }).finally(() => { document.title = 'ready'; });
     </script>`,
  ),
  '/dialogs': page(
    'Dialogs',
    `<button onclick="document.title = 'confirm=' + confirm('Delete it?')">Confirm</button>
     <button onclick="document.title = 'prompt=' + prompt('Your name?', 'bob')">Prompt</button>
     <button onclick="window.open('/item/red-mug', '_blank')">Popup</button>
     <a href="/tiny">Leave</a>
     <script>window.addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'unsaved'; });</script>`,
  ),
  '/upload': page('Upload', `<label for="f">Attachment</label> <input id="f" type="file">`),
};

/** Page whose buttons reach private addresses: a fetch to a loopback port and a navigation to the metadata endpoint. */
const ssrfPage = (port: string): string =>
  page(
    'Probe',
    `<p id="out">idle</p>
     <button onclick="fetch('http://127.0.0.1:${port}/secret').then(r => r.text()).then(t => { document.getElementById('out').textContent = 'got ' + t; }, e => { document.getElementById('out').textContent = 'fetch failed: ' + e.message; })">Fetch internal</button>
     <button onclick="location.href = 'http://169.254.169.254/latest/meta-data/'">Metadata</button>`,
  );

/** Cloudflare-style challenge interstitial (served with 503, like the real one). */
const CHALLENGE = page(
  'Just a moment...',
  `<div id="challenge-stage"><h1>Checking your browser before accessing the site.</h1>
   <p>This process is automatic. Your browser will redirect to your requested content shortly.</p>
   <form id="challenge-form" action="/cdn-cgi/challenge" method="POST"><input type="hidden" name="r" value="x"></form></div>`,
);

/** Requests closer together than this are one load attempt of a /flaky/ page. */
const RESEND_MS = 100;

export async function startFixtureServer(): Promise<FixtureServer> {
  const hits = new Map<string, number>();
  const attempts = new Map<string, number>();
  const lastFlaky = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const html = (status: number, body: string): void => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(body);
    };
    if (url.pathname === '/500') return html(500, page('Server error', '<h1>Internal Server Error</h1>'));
    if (url.pathname === '/403') return html(403, page('Forbidden', '<h1>Forbidden</h1>'));
    if (url.pathname === '/reset') {
      req.socket.destroy();
      return;
    }
    if (url.pathname === '/stall') return; // never answers (until close)
    if (url.pathname === '/challenge') {
      res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', server: 'cloudflare', 'cf-mitigated': 'challenge' });
      res.end(CHALLENGE);
      return;
    }
    if (url.pathname.startsWith('/flaky/')) {
      // per key: the 1st load attempt gets a TCP reset, the 2nd a 503, later ones the page.
      // Chromium may resend a request at once after a reset: a request within RESEND_MS of the
      // previous one belongs to the same attempt (the retries of the caller wait longer).
      const now = performance.now();
      const last = lastFlaky.get(url.pathname);
      lastFlaky.set(url.pathname, now);
      if (last === undefined || now - last > RESEND_MS) attempts.set(url.pathname, (attempts.get(url.pathname) ?? 0) + 1);
      const n = attempts.get(url.pathname) ?? 0;
      if (n === 1) {
        req.socket.resetAndDestroy();
        return;
      }
      if (n === 2) {
        res.writeHead(503, { 'content-type': 'text/html; charset=utf-8' });
        res.end(page('Unavailable', '<h1>Service Unavailable</h1>'));
        return;
      }
      return html(200, page('Flaky', '<h1>Up at last</h1>'));
    }
    if (url.pathname === '/ssrf') return html(200, ssrfPage(url.searchParams.get('port') ?? '9'));
    if (url.pathname === '/sw.js') {
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
      res.end("self.addEventListener('fetch', () => {});");
      return;
    }
    if (url.pathname === '/file.txt') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="file.txt"' });
      res.end('data');
      return;
    }
    if (url.pathname === '/api/items') {
      // answers after a while, like a real backend
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(['green-mug', 'black-mug', 'white-mug']));
      }, 150);
      return;
    }
    if (url.pathname === '/result') {
      const q = url.searchParams.get('q') ?? '';
      return html(200, page('Results', `<h1>Results</h1><p id="answer">You searched: ${q.replace(/[<>&]/g, '')}</p>`));
    }
    if (url.pathname.startsWith('/item/')) {
      const name = url.pathname.slice(6).replace(/[^a-z-]/g, '');
      return html(200, page(`Item ${name}`, `<h1>${name}</h1><p class="price">Price: $12.50</p><button id="add">Add to cart</button>`));
    }
    const body = PAGES[url.pathname];
    if (body) return html(200, body);
    html(404, page('Not found', 'not found'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    hits,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
