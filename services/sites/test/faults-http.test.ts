// test-run: alone (asserts bounds on injected delays)
// Every fault kind at the HTTP level (real sites server, global fetch): latency, error statuses
// with Retry-After, reset, hang (client timeout; the server still closes at once), redirect
// loops, the site going down after N requests, and the wall, captcha, slow-render and DOM-mutation
// pages.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSitesServer, type SitesServer } from '../src/index.js';

let srv: SitesServer;

before(async () => {
  srv = await startSitesServer({ port: 0, seed: 4 });
});
after(async () => {
  await srv.close();
});

async function addRule(rule: unknown): Promise<string> {
  const res = await fetch(`${srv.url}/__owrl/faults`, { method: 'POST', body: JSON.stringify(rule) });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

async function clear(): Promise<void> {
  await (await fetch(`${srv.url}/__owrl/faults`, { method: 'DELETE' })).arrayBuffer();
}

async function get(path: string): Promise<{ status: number; body: string; res: Response; ms: number }> {
  const t = performance.now();
  const res = await fetch(`${srv.url}${path}`, { redirect: 'manual' });
  const body = await res.text();
  return { status: res.status, body, res, ms: performance.now() - t };
}

/** The error (and its cause's code) a fetch of `path` fails with. */
async function failure(path: string, init: RequestInit = {}): Promise<{ name: string; message: string; cause: string }> {
  try {
    const res = await fetch(`${srv.url}${path}`, init);
    await res.arrayBuffer();
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    return { name: err.name, message: err.message, cause: err.cause?.code ?? err.cause?.message ?? '' };
  }
  assert.fail(`GET ${path} did not fail`);
}

void test('latency delays the answer by ms plus a bounded seeded jitter; the page is the real one', async () => {
  await clear();
  const plain = await get('/shop/c/kitchen');
  await addRule({ match: { path: '/shop/c/kitchen' }, fault: { kind: 'latency', ms: 250, jitter_ms: 100 } });
  const slow = await get('/shop/c/kitchen');
  assert.equal(slow.status, 200);
  assert.equal(slow.body, plain.body);
  assert.ok(slow.ms >= 250 && slow.ms < 1500, `took ${slow.ms} ms`);
  const viaParam = await get('/shop/?owrl_fault=latency:300');
  assert.ok(viaParam.ms >= 300, `took ${viaParam.ms} ms`);
  assert.equal(viaParam.status, 200);
  await clear();
});

void test('status answers every supported code with an error page, and Retry-After when asked', async () => {
  await clear();
  for (const code of [500, 502, 503, 504, 403, 429]) {
    const r = await get(`/shop/?owrl_fault=status:${code}`);
    assert.equal(r.status, code);
    assert.match(r.body, new RegExp(`<title>${code} [A-Z]`));
    assert.equal(r.res.headers.get('retry-after'), null);
  }
  await addRule({ match: { path: '/shop/cart' }, fault: { kind: 'status', code: 429, retry_after: 30 } });
  const r = await get('/shop/cart');
  assert.deepEqual([r.status, r.res.headers.get('retry-after')], [429, '30']);
  await clear();
});

void test('reset drops the connection without an answer; down resets everything after N requests', async () => {
  await clear();
  const reset = await failure('/shop/?owrl_fault=reset');
  assert.equal(reset.cause, 'ECONNRESET', JSON.stringify(reset));
  assert.equal((await get('/shop/')).status, 200, 'only that request');

  const id = await addRule({ match: { host: '127.0.0.1' }, fault: { kind: 'down' }, after_requests: 2 });
  assert.equal((await get('/shop/')).status, 200);
  assert.equal((await get('/shop/c/toys')).status, 200);
  for (const p of ['/shop/', '/shop/cart', '/']) assert.equal((await failure(p)).cause, 'ECONNRESET', p);
  const rule = srv.faults.list().find((r) => r.id === id);
  assert.deepEqual([rule?.matched, rule?.applied], [5, 3]);
  // The site comes back when the rule goes.
  await fetch(`${srv.url}/__owrl/faults/${id}`, { method: 'DELETE' });
  assert.equal((await get('/shop/')).status, 200);
});

void test('a down rule with a probability stays down once it fired', async () => {
  await clear();
  await addRule({ match: { path: '/shop/c/' }, fault: { kind: 'down' }, probability: 0.3, seed: 9 });
  const seen: string[] = [];
  for (let i = 0; i < 25; i++) {
    try {
      const r = await fetch(`${srv.url}/shop/c/audio`);
      await r.arrayBuffer();
      seen.push('ok');
    } catch {
      seen.push('down');
    }
  }
  const first = seen.indexOf('down');
  assert.ok(first >= 0, 'went down');
  assert.ok(seen.slice(first).every((s) => s === 'down'), seen.join(','));
  await clear();
});

void test('hang never answers: the client times out, and closing the server ends it at once', async () => {
  await clear();
  const hung = await failure('/shop/?owrl_fault=hang', { signal: AbortSignal.timeout(400) });
  assert.equal(hung.name, 'TimeoutError');
  const s2 = await startSitesServer({ port: 0 });
  s2.faults.add({ match: { path: '/shop/' }, fault: { kind: 'hang' } });
  const pending = fetch(`${s2.url}/shop/`).then(
    () => 'answered',
    () => 'closed',
  );
  // Close only once the server holds the request hung (the rule has fired), not after a guess.
  while (s2.faults.list()[0]?.applied !== 1) await new Promise((r) => setTimeout(r, 10));
  const t = performance.now();
  await s2.close();
  assert.equal(await pending, 'closed');
  assert.ok(performance.now() - t < 1000, 'close does not wait for the hung request');
});

void test('redirect_loop bounces between two URLs (or to itself) forever', async () => {
  await clear();
  const a = await get('/shop/c/toys?owrl_fault=redirect_loop');
  assert.equal(a.status, 302);
  const loc1 = a.res.headers.get('location') ?? '';
  assert.equal(loc1, '/shop/c/toys?owrl_fault=redirect_loop&owrl_loop=a');
  const b = await get(loc1);
  const loc2 = b.res.headers.get('location') ?? '';
  assert.equal(loc2, '/shop/c/toys?owrl_fault=redirect_loop&owrl_loop=b');
  assert.equal((await get(loc2)).res.headers.get('location'), loc1);
  const self = await get('/shop/?owrl_fault=redirect_loop:self');
  assert.equal(self.res.headers.get('location'), '/shop/?owrl_fault=redirect_loop:self');
  const followed = await failure('/shop/c/toys?owrl_fault=redirect_loop');
  assert.match(`${followed.message} ${followed.cause}`, /redirect count exceeded/);
  // A rule loops every matching request.
  await addRule({ match: { path: '/shop/cart' }, fault: { kind: 'redirect_loop', mode: 'self' } });
  const r = await get('/shop/cart');
  assert.deepEqual([r.status, r.res.headers.get('location')], [302, '/shop/cart']);
  await clear();
});

void test('bot_wall is a challenge interstitial with its markers, 503 or 403', async () => {
  const r = await get('/shop/c/toys?owrl_fault=bot_wall');
  assert.equal(r.status, 503);
  assert.equal(r.res.headers.get('cf-mitigated'), 'challenge');
  for (const marker of ['<title>Just a moment...</title>', 'id="challenge-running"', 'id="challenge-stage"', 'id="challenge-form"', 'Checking if the site connection is secure', 'Enable JavaScript and cookies to continue', 'Ray ID:']) {
    assert.ok(r.body.includes(marker), marker);
  }
  assert.ok(!r.body.includes('Owrl Goods'), 'the real page is not shown');
  assert.equal((await get('/shop/?owrl_fault=bot_wall:403')).status, 403);
});

void test('captcha is a recaptcha- or hcaptcha-like widget with a checkbox', async () => {
  const re = await get('/shop/?owrl_fault=captcha');
  assert.equal(re.status, 200);
  for (const marker of ['class="g-recaptcha" data-sitekey="', 'name="g-recaptcha-response"', 'type="checkbox"', "I&#39;m not a robot"]) {
    assert.ok(re.body.includes(marker), marker);
  }
  const h = await get('/shop/?owrl_fault=captcha:hcaptcha');
  for (const marker of ['class="h-captcha" data-sitekey="', 'name="h-captcha-response"', 'I am human']) assert.ok(h.body.includes(marker), marker);
});

void test('slow_render serves a spinner and the real body in a template rendered later', async () => {
  await clear();
  const plain = await get('/shop/c/office');
  await addRule({ match: { path: '/shop/c/office' }, fault: { kind: 'slow_render', ms: 1200 } });
  const r = await get('/shop/c/office');
  await clear();
  assert.equal(r.status, 200);
  assert.match(r.body, /<body><div id="owrl-loading" role="progressbar"/);
  const tpl = /<template id="owrl-deferred">([\s\S]*)<\/template><script>/.exec(r.body)?.[1] ?? '';
  const realBody = /<body>([\s\S]*)<\/body>/.exec(plain.body)?.[1] ?? '';
  assert.ok(realBody.length > 500);
  assert.equal(tpl, realBody, 'the template holds the real body');
  assert.match(r.body, /setTimeout\(render,1200\)/);
  const head = (doc: string): string => doc.slice(0, doc.indexOf('<body>'));
  assert.equal(head(r.body), head(plain.body), 'title and styles are the real page\'s');
  const asked = await get('/shop/?owrl_fault=slow_render');
  assert.match(asked.body, /id="owrl-loading"[\s\S]*setTimeout\(render,3000\)/, 'the parameter form defaults to 3000 ms');
});

void test('dom_mutation serves the real page plus the mutation script; other answers pass unchanged', async () => {
  await clear();
  const plain = await get('/shop/c/office');
  await addRule({ match: { site: 'shop' }, fault: { kind: 'dom_mutation', after_ms: 700 } });
  const r = await get('/shop/c/office');
  assert.equal(r.status, 200);
  const cut = plain.body.lastIndexOf('</body>');
  assert.ok(r.body.startsWith(plain.body.slice(0, cut)), 'the page up to </body> is unchanged');
  assert.match(r.body.slice(cut), /^<script>\(function\(\)\{function mutate\(\)\{[\s\S]*setTimeout\(mutate,700\)[\s\S]*<\/script><\/body><\/html>$/);
  // A redirect and a form POST answer are not rewritten.
  const redirect = await get('/shop');
  assert.deepEqual([redirect.status, redirect.body], [301, '']);
  const bad = await fetch(`${srv.url}/shop/cart/add`, { method: 'POST', body: 'id=nope&qty=1', headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
  const text = await bad.text();
  assert.ok(!text.includes('function mutate'), text.slice(0, 200));
  await clear();
});
