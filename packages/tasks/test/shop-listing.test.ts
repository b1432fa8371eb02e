// Filtered listings (every filter, combined, with sorts) and checkout pricing (promos, delivery).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  browseShop,
  buildShopCatalog,
  findShopPromo,
  hasShopFilters,
  priceShopOrder,
  shopFacets,
  shopPromoProblem,
  shopRatingLabel,
  type ShopPromo,
} from '../src/shop/index.js';

const cat = buildShopCatalog(4);
const clothing = cat.products.filter((p) => p.category === 'clothing');

void test('each filter keeps exactly the products that satisfy it', () => {
  const ids = (xs: { product: { id: string } }[]) => xs.map((x) => x.product.id).sort();
  const byId = (f: (p: (typeof clothing)[number]) => boolean) => clothing.filter(f).map((p) => p.id).sort();
  assert.deepEqual(ids(browseShop(clothing, {}, 'name')), byId(() => true));
  assert.deepEqual(ids(browseShop(clothing, { waterproof: true }, 'name')), byId((p) => p.waterproof));
  assert.deepEqual(ids(browseShop(clothing, { minRating: 4 }, 'name')), byId((p) => p.rating >= 4));
  const brand = clothing[0]!.brand;
  assert.deepEqual(ids(browseShop(clothing, { brands: [brand] }, 'name')), byId((p) => p.brand === brand));
  const color = clothing[1]!.color;
  assert.deepEqual(ids(browseShop(clothing, { color }, 'name')), byId((p) => p.color === color));
  for (const size of ['XS', 'S', 'M', 'L', 'XL']) {
    const list = browseShop(clothing, { size }, 'name');
    assert.deepEqual(ids(list), byId((p) => p.variants.some((v) => v.code === size && v.stock > 0)), size);
    for (const it of list) {
      assert.equal(it.variant.code, size, 'a size filter shows that size');
      assert.equal(it.priceCents, it.variant.priceCents, 'and its price');
    }
  }
  const cap = 8000;
  assert.deepEqual(ids(browseShop(clothing, { maxPriceCents: cap }, 'name')), byId((p) => p.priceCents <= cap));
  assert.deepEqual(ids(browseShop(clothing, { minPriceCents: cap }, 'name')), byId((p) => p.priceCents >= cap));
});

void test('filters combine (all must hold) and sorts order the result', () => {
  const all = browseShop(clothing, { size: 'M', minRating: 3 }, 'price_asc');
  for (const it of all) assert.ok(it.product.rating >= 3 && it.variant.code === 'M');
  const prices = all.map((x) => x.priceCents);
  assert.deepEqual(prices, [...prices].sort((a, b) => a - b));
  const desc = browseShop(clothing, { size: 'M', minRating: 3 }, 'price_desc').map((x) => x.priceCents);
  assert.deepEqual(desc, [...prices].reverse());
  const rated = browseShop(clothing, {}, 'rating').map((x) => x.product.rating);
  assert.deepEqual(rated, [...rated].sort((a, b) => b - a));
  assert.deepEqual(browseShop(clothing, { size: 'M', color: 'NoSuchColour' }, 'name'), []);
  assert.equal(hasShopFilters({}), false);
  assert.equal(hasShopFilters({ brands: [] }), false);
  assert.equal(hasShopFilters({ waterproof: true }), true);
  assert.equal(shopRatingLabel(4), '4.0 & up');
});

void test('facets list what the products offer, sizes in size order', () => {
  const f = shopFacets(cat, clothing);
  assert.deepEqual(f.sizes, ['XS', 'S', 'M', 'L', 'XL'].filter((s) => clothing.some((p) => p.variants.some((v) => v.code === s))));
  assert.deepEqual(f.brands, [...new Set(clothing.map((p) => p.brand))].sort());
  assert.deepEqual(f.colors, [...new Set(clothing.map((p) => p.color))].sort());
  assert.equal(f.waterproof, clothing.some((p) => p.waterproof));
  assert.equal(shopFacets(cat, cat.products.filter((p) => p.category === 'kitchen')).waterproof, false);
});

void test('order totals: promo kinds and minimums, delivery fees and free standard delivery', () => {
  const pct: ShopPromo = { code: 'P10', kind: 'percent', value: 10, minSubtotalCents: 0 };
  const min: ShopPromo = { code: 'P15', kind: 'percent', value: 15, minSubtotalCents: 6000 };
  const amt: ShopPromo = { code: 'A5', kind: 'amount', value: 500, minSubtotalCents: 2500 };
  const lines = [{ unitCents: 1999, qty: 2 }, { unitCents: 550, qty: 1 }];
  assert.deepEqual(priceShopOrder(lines, undefined, 'standard'), { subtotalCents: 4548, discountCents: 0, deliveryCents: 495, totalCents: 5043 });
  assert.deepEqual(priceShopOrder(lines, pct, 'express'), { subtotalCents: 4548, discountCents: 454, deliveryCents: 1295, totalCents: 5389 });
  assert.equal(priceShopOrder(lines, min, 'standard').discountCents, 0, 'below the minimum the code is ignored');
  assert.match(shopPromoProblem(min, 4548) ?? '', /needs a subtotal of at least \$60\.00/);
  assert.equal(shopPromoProblem(amt, 4548), undefined);
  assert.equal(priceShopOrder(lines, amt, 'standard').totalCents, 4548 - 500 + 495);
  const big = [{ unitCents: 10_500, qty: 1 }];
  assert.equal(priceShopOrder(big, undefined, 'standard').deliveryCents, 0, 'standard is free from $100');
  assert.equal(priceShopOrder(big, pct, 'standard').deliveryCents, 495, 'after the discount it is under $100 again');
  assert.equal(priceShopOrder(big, undefined, 'express').deliveryCents, 1295);
  const code = cat.promos[0]!.code;
  assert.equal(findShopPromo(cat, ` ${code.toLowerCase()} `)?.code, code);
  assert.equal(findShopPromo(cat, 'NOPE'), undefined);
});
