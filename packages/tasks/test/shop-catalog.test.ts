// Catalog: determinism per seed, shape, uniqueness, variants, promo codes, listing and search rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildShopCatalog,
  formatPrice,
  listCategory,
  parseShopLineKey,
  searchProducts,
  shopDefaultVariant,
  shopLineKey,
} from '../src/shop/index.js';
import {
  CLOTHING_SIZES,
  PRODUCTS_PER_CATEGORY,
} from '../src/shop/shop-catalog.js';

void test('same seed gives an identical catalog, a different seed a different one', () => {
  const a = buildShopCatalog(42);
  const b = buildShopCatalog(42);
  const c = buildShopCatalog(43);
  assert.deepEqual(a.products, b.products);
  assert.deepEqual(a.featured, b.featured);
  assert.deepEqual(a.promos, b.promos);
  assert.notDeepEqual(
    a.products.map((p) => p.name),
    c.products.map((p) => p.name),
  );
  assert.notDeepEqual(
    a.products.map((p) => [p.brand, p.variants]),
    c.products.map((p) => [p.brand, p.variants]),
  );
});

void test('catalog has 6 categories × 8 products with unique ids, names and SKUs', () => {
  const cat = buildShopCatalog(7);
  assert.deepEqual(cat.categories.map((c) => c.slug), ['kitchen', 'outdoor', 'office', 'toys', 'audio', 'clothing']);
  assert.equal(cat.products.length, 6 * PRODUCTS_PER_CATEGORY);
  assert.equal(new Set(cat.products.map((p) => p.id)).size, cat.products.length);
  assert.equal(new Set(cat.products.map((p) => p.name)).size, cat.products.length);
  const skus = cat.products.flatMap((p) => p.variants.map((v) => v.sku));
  assert.equal(new Set(skus).size, skus.length, 'variant SKUs are unique in the catalog');
  for (const p of cat.products) {
    const words = p.name.split(' ').length;
    assert.ok(words >= 2 && words <= 3, p.name);
    assert.match(p.sku, /^[A-Z]{2}-\d{4}$/);
    assert.match(p.id, /^[a-z0-9-]+$/);
    assert.ok(Number.isInteger(p.priceCents) && p.priceCents > 0);
    assert.ok(p.stock >= 5 && p.rating >= 2.5 && p.rating <= 5);
    assert.ok(p.brand !== '' && p.reviews >= 3);
    const prefix = cat.categories.find((c) => c.slug === p.category)?.skuPrefix;
    assert.equal(p.sku.slice(0, 2), prefix);
  }
  for (const c of cat.categories) {
    const prices = listCategory(cat, c.slug).map((p) => p.priceCents);
    assert.equal(new Set(prices).size, prices.length, `prices of ${c.slug} are distinct`);
  }
  assert.equal(cat.featured.length, 4);
});

void test('variants: the default is in stock, cheapest and carries the product SKU, price and stock', () => {
  for (const seed of [1, 2, 3]) {
    const cat = buildShopCatalog(seed);
    let soldOut = 0;
    for (const p of cat.products) {
      const d = shopDefaultVariant(p);
      assert.equal(d.code, p.size, p.id);
      assert.deepEqual([d.sku, d.priceCents, d.stock], [p.sku, p.priceCents, p.stock], p.id);
      assert.equal(new Set(p.variants.map((v) => v.code)).size, p.variants.length, `${p.id} sizes are distinct`);
      for (const v of p.variants) {
        assert.ok(v.priceCents >= p.priceCents, `${p.id} ${v.code} is not cheaper than the default`);
        if (v !== d) assert.equal(v.sku, `${p.sku}-${v.code.toUpperCase().slice(0, 3)}`);
        if (v.stock === 0) soldOut++;
      }
      const order = p.variants.map((v) => cat.sizeOrder.indexOf(v.code));
      assert.deepEqual(order, [...order].sort((a, b) => a - b), `${p.id} sizes in size order`);
      if (p.category === 'clothing') {
        assert.equal(p.size, 'M');
        assert.ok(p.variants.every((v) => CLOTHING_SIZES.includes(v.code) && (v.code === 'XL' || v.priceCents === p.priceCents)));
      }
    }
    assert.ok(soldOut > 0, 'some sizes are sold out');
    assert.ok(cat.products.some((p) => p.waterproof) && cat.products.some((p) => !p.waterproof));
  }
});

void test('promo codes are seeded: a percentage, one with a minimum, and a fixed amount', () => {
  const cat = buildShopCatalog(1);
  assert.equal(cat.promos.length, 3);
  assert.deepEqual(cat.promos.map((p) => [p.kind, p.value, p.minSubtotalCents]), [['percent', 10, 0], ['percent', 15, 6000], ['amount', 500, 2500]]);
  for (const p of cat.promos) assert.match(p.code, /^[A-Z]+\d+$/);
  assert.equal(new Set(cat.promos.map((p) => p.code)).size, 3);
});

void test('listing sorts by name, by price both ways and by rating', () => {
  const cat = buildShopCatalog(3);
  const byName = listCategory(cat, 'kitchen').map((p) => p.name);
  assert.deepEqual(byName, [...byName].sort((a, b) => a.localeCompare(b, 'en')));
  const asc = listCategory(cat, 'kitchen', 'price_asc').map((p) => p.priceCents);
  assert.deepEqual(asc, [...asc].sort((a, b) => a - b));
  const desc = listCategory(cat, 'kitchen', 'price_desc').map((p) => p.priceCents);
  assert.deepEqual(desc, [...asc].reverse());
  const rated = listCategory(cat, 'clothing', 'rating');
  for (let i = 1; i < rated.length; i++) {
    const a = rated[i - 1]!;
    const b = rated[i]!;
    assert.ok(a.rating > b.rating || (a.rating === b.rating && a.priceCents <= b.priceCents), `${a.id} before ${b.id}`);
  }
  assert.deepEqual(listCategory(cat, 'nope'), []);
});

void test('search finds a product by its full name first, and by brand; empty query finds nothing', () => {
  const cat = buildShopCatalog(5);
  for (const p of cat.products) {
    const hits = searchProducts(cat, p.name.toUpperCase());
    assert.equal(hits[0]?.id, p.id);
  }
  const brand = cat.products[0]!.brand;
  assert.deepEqual(
    searchProducts(cat, brand).map((p) => p.id).sort(),
    cat.products.filter((p) => p.brand === brand).map((p) => p.id).sort(),
  );
  assert.deepEqual(searchProducts(cat, '   '), []);
  assert.deepEqual(searchProducts(cat, 'zzzz'), []);
});

void test('line keys join and split product id and size', () => {
  assert.equal(shopLineKey('blue-mug', 'Large'), 'blue-mug:Large');
  assert.deepEqual(parseShopLineKey('blue-mug:Large'), { id: 'blue-mug', code: 'Large' });
  assert.deepEqual(parseShopLineKey('blue-mug'), { id: 'blue-mug', code: '' });
});

void test('formatPrice renders dollars with cents and thousands separators', () => {
  assert.equal(formatPrice(1250), '$12.50');
  assert.equal(formatPrice(5), '$0.05');
  assert.equal(formatPrice(124_950), '$1,249.50');
});
