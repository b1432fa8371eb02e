// HTTP-level tests of the shop's newer parts: filters and sorts as GET parameters, sizes with their
// own SKU, price and stock, the cookie banner, checkout with promo codes and delivery, orders and
// the order verifier, all per session.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatPrice, type ShopProduct } from '@owrl/tasks/shop';
import { oracleListing, oracleTotalCents } from '@owrl/testkit';
import { startSitesServer, type SitesServer } from '../src/index.js';

let srv: SitesServer;

before(async () => {
  srv = await startSitesServer({ port: 0, seed: 4 });
});
after(async () => {
  await srv.close();
});

async function page(path: string, session: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${srv.url}${path}`, { headers: { cookie: `owrl_session=${session}` } });
  return { status: res.status, body: await res.text() };
}

async function post(session: string, path: string, form: Record<string, string>): Promise<Response> {
  return await fetch(`${srv.url}${path}`, {
    method: 'POST',
    headers: { cookie: `owrl_session=${session}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
}

async function verify(session: string, spec: unknown): Promise<{ ok: boolean; detail: string }> {
  const res = await fetch(`${srv.url}/__owrl/verify?session=${encodeURIComponent(session)}&spec=${encodeURIComponent(JSON.stringify(spec))}`);
  return (await res.json()) as { ok: boolean; detail: string };
}

const cardIds = (body: string): string[] => [...body.matchAll(/<li class="card"><a href="\/shop\/p\/([^"?]+)/g)].map((m) => m[1] ?? '');
const clothing = (): ShopProduct[] => srv.catalog.products.filter((p) => p.category === 'clothing');
/** A product with a second size in stock, and that size. */
function sized(): { p: ShopProduct; size: string } {
  for (const p of srv.catalog.products) {
    const v = p.variants.find((x) => x.code !== p.size && x.stock >= 3);
    if (v !== undefined) return { p, size: v.code };
  }
  throw new Error('no product with a second size');
}

void test('category filters and sorts are GET parameters; the listing follows the shared rules', async () => {
  const all = await page('/shop/c/clothing', 'f-1');
  for (const label of ['Any size', 'Colour', 'Minimum rating', 'Min price', 'Max price', 'Apply filters', 'Top rated']) assert.ok(all.body.includes(`>${label}<`), label);
  assert.match(all.body, /<label for="f-size-M">M<\/label>/);
  assert.equal(all.body.includes('Clear filters'), false, 'nothing to clear yet');

  const q = '/shop/c/clothing?size=M&rating=3&sort=price_asc';
  const { body } = await page(q, 'f-1');
  const want = oracleListing(clothing(), { size: 'M', minRating: 3 }, 'price_asc');
  assert.ok(want.length >= 2, 'the listing has something to sort');
  assert.deepEqual(cardIds(body), want.map((x) => x.id));
  for (const it of want) assert.ok(body.includes(`<a href="/shop/p/${it.id}?size=M">${srv.catalog.byId.get(it.id)?.name ?? '?'}</a><span class="price">${formatPrice(it.priceCents)}</span>`));
  assert.match(body, /<input type="radio" id="f-size-M" name="size" value="M" checked>/);
  assert.match(body, /<option value="3" selected>3\.0 &amp; up<\/option>/);
  assert.match(body, /<input type="hidden" name="sort" value="price_asc">/, 'the filter form keeps the sort');
  assert.ok(body.includes('href="/shop/c/clothing?sort=rating&amp;size=M&amp;rating=3">Top rated</a>'), 'sort links keep the filters');
  assert.ok(body.includes('>Clear filters</a>'));
  assert.match(body, /Showing \d+ of 8 products · prices for size M/);

  const wp = await page('/shop/c/clothing?waterproof=1&max=%24150', 'f-1');
  assert.deepEqual(cardIds(wp.body), oracleListing(clothing(), { waterproof: true, maxPriceCents: 15000 }, 'name').map((x) => x.id));
  assert.match(wp.body, /id="f-max" name="max" inputmode="decimal" value="150"/);
  const brand = clothing()[0]?.brand ?? '';
  const br = await page(`/shop/c/clothing?brand=${brand}&sort=rating`, 'f-1');
  assert.deepEqual(cardIds(br.body), oracleListing(clothing(), { brands: [brand] }, 'rating').map((x) => x.id));
  const bad = await page('/shop/c/clothing?max=cheap&size=XXXL', 'f-1');
  assert.match(bad.body, /role="alert">Max price &quot;cheap&quot; is not a price/);
  assert.deepEqual(cardIds(bad.body).sort(), clothing().map((p) => p.id).sort(), 'unusable filters are dropped');
  const none = await page('/shop/c/clothing?colour=Blue&colour=x&min=100000', 'f-1');
  assert.match(none.body, /No products match these filters\./);
});

void test('search pages filter too, keeping the query', async () => {
  const p = clothing()[2] as ShopProduct;
  const { body } = await page(`/shop/search?q=${encodeURIComponent(p.brand)}&size=S`, 's-1');
  assert.match(body, /<input type="hidden" name="q" value="[^"]+">/);
  const want = oracleListing(srv.catalog.products.filter((x) => x.brand === p.brand), { size: 'S' }, 'name');
  assert.deepEqual(cardIds(body), want.map((x) => x.id));
});

void test('product page: size picker with price, SKU and stock per size; ?size preselects', async () => {
  const { p, size } = sized();
  const v = p.variants.find((x) => x.code === size)!;
  const plain = (await page(`/shop/p/${p.id}`, 'p-1')).body;
  assert.ok(plain.includes(`<p class="price">${formatPrice(p.priceCents)}</p><p class="sku">SKU: <span>${p.sku}</span></p>`));
  assert.match(plain, /<fieldset class="sizes"><legend>Size<\/legend>/);
  assert.ok(plain.includes(`id="size-${p.size}" name="size" value="${p.size}" data-price="${formatPrice(p.priceCents)}" data-sku="${p.sku}" data-stock="${p.stock}" checked>`));
  assert.ok(plain.includes(`<label for="size-${size}">${size}</label>`), 'the radio is named by its size alone');
  const chosen = (await page(`/shop/p/${p.id}?size=${size}`, 'p-1')).body;
  assert.ok(chosen.includes(`<p class="price">${formatPrice(v.priceCents)}</p><p class="sku">SKU: <span>${v.sku}</span></p>`));
  assert.ok(chosen.includes(`<dd id="stock">${v.stock} in stock</dd>`));
  const soldOut = srv.catalog.products.flatMap((x) => x.variants.filter((y) => y.stock === 0).map((y) => ({ x, y })))[0];
  assert.ok(soldOut);
  const so = (await page(`/shop/p/${soldOut.x.id}?size=${soldOut.y.code}`, 'p-1')).body;
  assert.ok(so.includes(`value="${soldOut.y.code}" data-price`) && so.includes(`data-stock="0" disabled>`), 'sold-out sizes are disabled');
  assert.ok(so.includes(`SKU: <span>${soldOut.x.sku}</span>`), 'a sold-out size is not preselected');
});

void test('cart lines record the size; spec keys by product or by product and size; sold out is refused', async () => {
  const { p, size } = sized();
  const res = await post('c-1', '/shop/cart/add', { id: p.id, size, qty: '2' });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), `/shop/p/${p.id}?size=${encodeURIComponent(size)}`);
  assert.match((await page(`/shop/p/${p.id}`, 'c-1')).body, new RegExp(`Added to cart: 2 × ${p.name} \\(size ${size}\\)`));
  await post('c-1', '/shop/cart/add', { id: p.id, qty: '1' });
  assert.equal((await verify('c-1', { cart: { [`${p.id}:${size}`]: 2, [`${p.id}:${p.size}`]: 1 }, exact: true })).ok, true);
  assert.equal((await verify('c-1', { cart: { [p.id]: 3 }, exact: true })).ok, true, 'a bare id counts all sizes');
  const wrong = await verify('c-1', { cart: { [`${p.id}:${size}`]: 3 }, exact: false });
  assert.equal(wrong.ok, false);
  assert.match(wrong.detail, new RegExp(`${p.id}:${size}: want 3, have 2`));
  const cart = (await page('/shop/cart', 'c-1')).body;
  assert.ok(cart.includes(`aria-label="Remove ${p.name} (${size})"`));
  assert.match(cart, /<p class="total">Subtotal: \$/);
  await post('c-1', '/shop/cart/remove', { id: p.id, size: p.size });
  assert.equal((await verify('c-1', { cart: { [`${p.id}:${size}`]: 2 }, exact: true })).ok, true, 'only that size was removed');

  const soldOut = srv.catalog.products.flatMap((x) => x.variants.filter((y) => y.stock === 0).map((y) => ({ x, y })))[0];
  assert.ok(soldOut);
  await post('c-2', '/shop/cart/add', { id: soldOut.x.id, size: soldOut.y.code, qty: '1' });
  assert.match((await page(`/shop/p/${soldOut.x.id}`, 'c-2')).body, /role="alert">Size &quot;[^&]+&quot; of .* is not available/);
  await post('c-2', '/shop/cart/add', { id: p.id, size: 'NOPE', qty: '1' });
  assert.equal((await verify('c-2', { cart: {}, exact: true })).ok, true, 'nothing was added');
});

void test('cookie banner: on every page until answered, remembered per session, safe redirect', async () => {
  for (const path of ['/shop/', '/shop/c/toys', '/shop/cart', '/shop/orders', '/shop/checkout']) {
    assert.match((await page(path, 'k-1')).body, /<section class="cookies" aria-label="Cookie consent">/, path);
  }
  const res = await post('k-1', '/shop/consent', { choice: 'reject', back: '/shop/c/toys?sort=rating' });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), '/shop/c/toys?sort=rating');
  assert.equal((await page('/shop/c/toys', 'k-1')).body.includes('aria-label="Cookie consent"'), false);
  assert.equal((await page('/shop/c/toys', 'k-2')).body.includes('aria-label="Cookie consent"'), true, 'other sessions still see it');
  for (const back of ['//evil.example/', 'https://evil.example/', '/\\evil']) {
    assert.equal((await post('k-3', '/shop/consent', { choice: 'accept', back })).headers.get('location'), '/shop/', back);
  }
  const here = (await page('/shop/c/toys?owrl_session=k-4&sort=rating', 'k-4')).body;
  assert.match(here, /name="back" value="\/shop\/c\/toys\?sort=rating"/, 'the session parameter is not echoed');
});

void test('checkout: promo codes, delivery, validation, order placed and verified per session', async () => {
  const { p, size } = sized();
  const v = p.variants.find((x) => x.code === size)!;
  assert.match((await page('/shop/checkout', 'o-1')).body, /Your cart is empty/);
  await post('o-1', '/shop/cart/add', { id: p.id, size, qty: '3' });
  const form = (await page('/shop/checkout', 'o-1')).body;
  for (const label of ['Full name', 'Address', 'City', 'Postcode', 'Standard delivery', 'Express delivery', 'Promo code']) {
    assert.ok(form.includes(`>${label}</label>`), label);
  }
  assert.match(form, /<button type="submit" name="action" value="apply">Apply code<\/button>/);
  const lines = [{ unitCents: v.priceCents, qty: 3 }];
  assert.ok(form.includes(`Total: <span id="checkout-total">${formatPrice(oracleTotalCents(lines, undefined, 'standard'))}</span>`));

  await post('o-1', '/shop/checkout', { name: 'Ada', promo: 'NOSUCHCODE', action: 'apply' });
  const refused = (await page('/shop/checkout', 'o-1')).body;
  assert.match(refused, /role="alert">Promo code &quot;NOSUCHCODE&quot; is not valid\./);
  assert.match(refused, /id="co-name" name="name" value="Ada"/, 'details are kept');
  const promo = srv.catalog.promos[0]!;
  await post('o-1', '/shop/checkout', { name: 'Ada Lovelace', promo: promo.code.toLowerCase(), delivery: 'express', action: 'apply' });
  const applied = (await page('/shop/checkout', 'o-1')).body;
  const totalCents = oracleTotalCents(lines, promo, 'express');
  const discountCents = 3 * v.priceCents + 1295 - totalCents; // express delivery is $12.95
  assert.ok(discountCents > 0, 'the code applies to this cart');
  assert.match(applied, new RegExp(`role="status">Code ${promo.code} applied`));
  assert.ok(applied.includes(`Discount (${promo.code})</td><td>−${formatPrice(discountCents)}`));
  assert.ok(applied.includes(`Total: <span id="checkout-total">${formatPrice(totalCents)}</span>`));
  assert.match(applied, /id="dl-express" name="delivery" value="express" data-fee="[^"]+" data-total="[^"]+" checked>/);

  const missing = await post('o-1', '/shop/checkout', { name: 'Ada Lovelace', address: '', city: 'Springfield', postcode: '1', promo: promo.code, delivery: 'express', action: 'place' });
  assert.equal(missing.headers.get('location'), '/shop/checkout');
  assert.match((await page('/shop/checkout', 'o-1')).body, /role="alert">Please fill in: Address\. Postcode &quot;1&quot; is not valid/);
  assert.deepEqual(await verify('o-1', { order: { items: { [p.id]: 3 } } }), { ok: false, detail: 'no order placed' });

  const placed = await post('o-1', '/shop/checkout', {
    name: 'Ada Lovelace', address: '12 Elm Street', city: 'Springfield', postcode: '40213', promo: promo.code, delivery: 'express', action: 'place',
  });
  const where = placed.headers.get('location') ?? '';
  assert.match(where, /^\/shop\/orders\/OW-\d{6}$/);
  const conf = (await page(where, 'o-1')).body;
  assert.match(conf, /<h1>Order confirmed<\/h1>/);
  assert.ok(conf.includes(`<tr data-item="${p.id}:${size}" data-qty="3">`));
  assert.ok(conf.includes(`<dd id="order-total">${formatPrice(totalCents)}</dd>`));
  assert.ok(conf.includes('<p id="order-delivery" data-delivery="express">Express delivery</p>'));
  assert.ok((await page('/shop/orders', 'o-1')).body.includes(`<a href="${where}">${where.slice('/shop/orders/'.length)}</a>`));
  assert.equal((await page(where, 'o-2')).status, 404, 'another session cannot see the order');
  assert.equal((await verify('o-1', { cart: {}, exact: true })).ok, true, 'the cart is empty after the order');

  const spec = { items: { [`${p.id}:${size}`]: 3 }, name: 'ada lovelace', address: '12 Elm Street', city: 'Springfield', postcode: '40213', delivery: 'express', promo: promo.code };
  const ok = await verify('o-1', { order: spec });
  assert.equal(ok.ok, true, ok.detail);
  const wrong = await verify('o-1', { order: { ...spec, delivery: 'standard', items: { [`${p.id}:${p.size}`]: 3 } } });
  assert.equal(wrong.ok, false);
  assert.match(wrong.detail, /item .* want 3, have 0.*delivery: want standard, have express/);
  assert.equal((await verify('o-2', { order: spec })).ok, false);
  const badSpec = await fetch(`${srv.url}/__owrl/verify?session=o-1&spec=${encodeURIComponent('{"order":{"items":{"x":1},"delivery":"drone"}}')}`);
  assert.equal(badSpec.status, 400);
  assert.match(((await badSpec.json()) as { detail: string }).detail, /spec\.order\.delivery = "drone"/);
});
