// Tiny node:http site for the browser-env tests: a list with links, a form, a field that
// rewrites its input, a long page, a target=_blank link, a dead button, a 500 page, a captcha-ish
// page, cookies, dialogs, downloads, shadow DOM and an iframe. Listens on 127.0.0.1, free port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FixtureServer {
  readonly origin: string;
  readonly hostPort: string;
  /** Requests seen per path. */
  readonly hits: Map<string, number>;
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
     <script>const r = document.getElementById('host').attachShadow({ mode: 'open' }); r.innerHTML = '<button id="sb">Shadow button</button>';</script>`,
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
};

export async function startFixtureServer(): Promise<FixtureServer> {
  const hits = new Map<string, number>();
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
