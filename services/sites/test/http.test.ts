// HTTP-level tests of the sites server and the shop's original pages (real server on a free port,
// global fetch). Filters, sizes, checkout and the cookie banner are in shop-http.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { toJson, TaskSchema } from '@owrl/proto';
import { parseTaskFile } from '@owrl/tasks';
import { formatPrice, listCategory, type ShopProduct } from '@owrl/tasks/shop';
import { startSitesServer, type SitesServer } from '../src/index.js';

let srv: SitesServer;

before(async () => {
  srv = await startSitesServer({ port: 0, seed: 5 });
});
after(async () => {
  await srv.close();
});

async function page(path: string, session?: string): Promise<{ status: number; body: string; res: Response }> {
  const res = await fetch(`${srv.url}${path}`, session ? { headers: { cookie: `owrl_session=${session}` } } : {});
  return { status: res.status, body: await res.text(), res };
}

async function addToCart(session: string, id: string, qty: string | number): Promise<Response> {
  return await fetch(`${srv.url}/shop/cart/add`, {
    method: 'POST',
    headers: { cookie: `owrl_session=${session}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ id, qty: String(qty) }).toString(),
    redirect: 'manual',
  });
}

async function verify(session: string, spec: unknown): Promise<{ status: number; body: { ok: boolean; detail: string } }> {
  const res = await fetch(`${srv.url}/__owrl/verify?session=${encodeURIComponent(session)}&spec=${encodeURIComponent(JSON.stringify(spec))}`);
  return { status: res.status, body: (await res.json()) as { ok: boolean; detail: string } };
}

function interactiveCount(body: string): number {
  return (body.match(/<a |<button|<input(?![^>]*type="hidden")/g) ?? []).length;
}

const product = (i: number): ShopProduct => srv.catalog.products[i] as ShopProduct;

void test('health answers 200 with the catalog seed', async () => {
  const res = await fetch(`${srv.url}/__owrl/health`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { ok: boolean; seed: number; sites: Record<string, { catalogSeed?: number; products?: number }> };
  assert.deepEqual([body.ok, body.seed, body.sites['shop']?.catalogSeed, body.sites['shop']?.products], [true, 5, 5, 48]);
});

void test('home page: labelled search box, category links, featured products', async () => {
  const { status, body } = await page('/shop/');
  assert.equal(status, 200);
  assert.match(body, /<label for="q">Search products<\/label><input id="q" type="search" name="q"/);
  for (const c of srv.catalog.categories) assert.ok(body.includes(`<a href="/shop/c/${c.slug}">${c.name}</a>`), c.slug);
  for (const id of srv.catalog.featured) assert.ok(body.includes(`href="/shop/p/${id}"`), id);
  const n = interactiveCount(body);
  assert.ok(n >= 10 && n <= 25, `interactive elements ${n}`);
  assert.match(body, /<button type="submit" name="choice" value="accept">Accept<\/button><button type="submit" name="choice" value="reject">Reject<\/button>/);
  const root = await fetch(`${srv.url}/`, { redirect: 'manual' });
  assert.equal(root.status, 200);
  const portal = await root.text();
  for (const site of srv.sites) assert.ok(portal.includes(`<a href="/${site.name}/">`), site.name);
});

void test('category page lists product cards with prices and sorts by price', async () => {
  const { status, body } = await page('/shop/c/kitchen');
  assert.equal(status, 200);
  const items = listCategory(srv.catalog, 'kitchen');
  assert.equal(items.length, 8);
  for (const p of items) {
    assert.ok(body.includes(`<a href="/shop/p/${p.id}">${p.name}</a><span class="price">${formatPrice(p.priceCents)}</span>`), p.name);
  }
  assert.ok(body.includes('>Price: low to high</a>') && body.includes('>Price: high to low</a>'));
  // Cards come before the filter panel in the document, so they are never cut from an observation.
  assert.ok(body.indexOf('class="cards"') < body.indexOf('aria-label="Filters"'));
  const n = interactiveCount(body);
  assert.ok(n >= 20 && n <= 40, `interactive elements ${n}`);
  const sorted = (await page('/shop/c/kitchen?sort=price_asc')).body;
  const order = [...sorted.matchAll(/<li class="card"><a href="\/shop\/p\/([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(order, listCategory(srv.catalog, 'kitchen', 'price_asc').map((p) => p.id));
  assert.equal((await page('/shop/c/garden')).status, 404);
});

void test('product page shows name, price, SKU line, quantity field and Add to cart', async () => {
  const p = product(3);
  const { status, body } = await page(`/shop/p/${p.id}`);
  assert.equal(status, 200);
  assert.ok(body.includes(`<h1>${p.name}</h1>`));
  assert.ok(body.includes(`<p class="price">${formatPrice(p.priceCents)}</p>`));
  assert.ok(body.includes(`SKU: <span>${p.sku}</span>`));
  assert.match(body, /<label for="qty">Quantity<\/label><input id="qty" type="number" name="qty" value="1"/);
  assert.match(body, /<button type="submit">Add to cart<\/button>/);
  assert.equal((await page('/shop/p/no-such-thing')).status, 404);
});

void test('search finds a product by name and escapes the query', async () => {
  const p = product(12);
  const { body } = await page(`/shop/search?q=${encodeURIComponent(p.name.toLowerCase())}`);
  assert.ok(body.includes(`<li class="card"><a href="/shop/p/${p.id}">`));
  const evil = await page(`/shop/search?q=${encodeURIComponent('<script>x</script>')}`);
  assert.ok(!evil.body.includes('<script>x</script>'));
  assert.ok(evil.body.includes('&lt;script&gt;x&lt;/script&gt;'));
});

void test('owrl_session query param sets the cookie; without one a fresh session is issued', async () => {
  const res = await fetch(`${srv.url}/shop/?owrl_session=run%2F1%2F2`);
  assert.match(res.headers.get('set-cookie') ?? '', /^owrl_session=run%2F1%2F2; Path=\//);
  const again = await fetch(`${srv.url}/shop/`, { headers: { cookie: 'owrl_session=run%2F1%2F2' } });
  assert.equal(again.headers.get('set-cookie'), null, 'a known cookie is not re-set');
  const a = (await fetch(`${srv.url}/shop/`)).headers.get('set-cookie') ?? '';
  const b = (await fetch(`${srv.url}/shop/`)).headers.get('set-cookie') ?? '';
  assert.match(a, /^owrl_session=[0-9a-f-]{36};/);
  assert.notEqual(a, b);
});

void test('add to cart changes only that session; verify endpoint reports ok / not ok', async () => {
  const p = product(7);
  const q = product(20);
  const res = await addToCart('sess-A', p.id, 2);
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), `/shop/p/${p.id}`);
  const shown = await page(`/shop/p/${p.id}`, 'sess-A');
  assert.ok(shown.body.includes(`Added to cart: 2 × ${p.name}`));
  assert.ok(!(await page(`/shop/p/${p.id}`, 'sess-A')).body.includes('Added to cart'), 'notice is shown once');
  assert.ok((await page('/shop/cart', 'sess-A')).body.includes(`<td><a href="/shop/p/${p.id}">${p.name}</a></td><td>${p.size}</td><td>2</td>`));
  assert.ok((await page('/shop/cart', 'sess-B')).body.includes('Your cart is empty.'));

  assert.deepEqual((await verify('sess-A', { cart: { [p.id]: 2 }, exact: true })).body.ok, true);
  assert.deepEqual((await verify('sess-A', { cart: { [p.id]: 1 }, exact: true })).body.ok, false);
  assert.deepEqual((await verify('sess-B', { cart: { [p.id]: 2 }, exact: true })).body.ok, false);
  const unknown = await verify('never-seen', { cart: { [p.id]: 1 }, exact: true });
  assert.equal(unknown.status, 200);
  assert.equal(unknown.body.ok, false);
  assert.match(unknown.body.detail, /unknown session/);
  assert.equal((await verify('never-seen', { cart: {}, exact: true })).body.ok, true);

  await addToCart('sess-A', q.id, 1);
  assert.equal((await verify('sess-A', { cart: { [p.id]: 2 }, exact: true })).body.ok, false, 'exact rejects an extra line');
  assert.equal((await verify('sess-A', { cart: { [p.id]: 2 }, exact: false })).body.ok, true);
  const removed = await fetch(`${srv.url}/shop/cart/remove`, {
    method: 'POST',
    headers: { cookie: 'owrl_session=sess-A', 'content-type': 'application/x-www-form-urlencoded' },
    body: `id=${q.id}`,
    redirect: 'manual',
  });
  assert.equal(removed.status, 303);
  assert.equal((await verify('sess-A', { cart: { [p.id]: 2 }, exact: true })).body.ok, true);
});

void test('bad quantities are refused with a visible message and leave the cart alone', async () => {
  const p = product(30);
  for (const qty of ['0', '-1', 'abc', '1.5', String(p.stock + 1)]) {
    assert.equal((await addToCart('sess-C', p.id, qty)).status, 303);
    const body = (await page(`/shop/p/${p.id}`, 'sess-C')).body;
    assert.match(body, /role="alert"/, qty);
  }
  assert.equal((await verify('sess-C', { cart: {}, exact: true })).body.ok, true);
  assert.equal((await addToCart('sess-C', 'nope', 1)).status, 404);
  assert.equal((await fetch(`${srv.url}/shop/cart/add`)).status, 405);
});

void test('verify rejects missing session and malformed specs with {ok:false}', async () => {
  const noSession = await fetch(`${srv.url}/__owrl/verify?spec=${encodeURIComponent('{"cart":{}}')}`);
  assert.equal(noSession.status, 400);
  assert.deepEqual(await noSession.json(), { ok: false, detail: 'session is missing' });
  const badSpec = await verify('x', { cart: { a: 0 } });
  assert.equal(badSpec.status, 400);
  assert.equal(badSpec.body.ok, false);
  assert.match(badSpec.body.detail, /positive integer/);
});

void test('tasks endpoint: JSONL that parses, is deterministic, points at this server', async () => {
  const get = async (qs: string) => {
    const res = await fetch(`${srv.url}/__owrl/tasks?${qs}`);
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };
  const a = await get('suite=shop&seed=9&n=12&difficulties=1,2,3');
  const b = await get('suite=shop&seed=9&n=12&difficulties=1,2,3');
  const long = parseTaskFile((await get('suite=shop&seed=9&n=6&families=checkout_constrained,checkout_confirm')).text);
  assert.deepEqual(new Set(long.map((t) => t.family)), new Set(['checkout_constrained', 'checkout_confirm']));
  assert.equal(a.status, 200);
  assert.match(a.type, /application\/x-ndjson/);
  assert.equal(a.text, b.text);
  const tasks = parseTaskFile(a.text);
  assert.equal(tasks.length, 12);
  for (const t of tasks) {
    assert.ok([1, 2, 3].includes(t.difficulty));
    assert.ok(t.startUrl.startsWith(`${srv.url}/shop/`), t.startUrl);
    assert.equal(t.metadata['catalog_seed'], '5', 'tasks use the server catalog');
    assert.ok(srv.catalog.byId.has(t.metadata['product'] ?? ''));
  }
  const c = parseTaskFile((await get('seed=10&n=12&difficulties=1,2,3')).text);
  assert.notDeepEqual(c.map((t) => toJson(TaskSchema, t)), tasks.map((t) => toJson(TaskSchema, t)));
  assert.equal((await get('suite=webvoyager')).status, 400);
  const bad = await get('n=-3');
  assert.equal(bad.status, 400);
  assert.match(bad.text, /n="-3" must be an integer >= 0/);
  assert.match((await get('difficulties=7')).text, /no shop family/);
});
