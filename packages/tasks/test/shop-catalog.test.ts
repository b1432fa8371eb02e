// Catalog: determinism per seed, shape, uniqueness, listing and search rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildShopCatalog, formatPrice, listCategory, PRODUCTS_PER_CATEGORY, searchProducts } from '../src/index.js';

void test('same seed gives an identical catalog, a different seed a different one', () => {
  const a = buildShopCatalog(42);
  const b = buildShopCatalog(42);
  const c = buildShopCatalog(43);
  assert.deepEqual(a.products, b.products);
  assert.deepEqual(a.featured, b.featured);
  assert.notDeepEqual(
    a.products.map((p) => p.name),
    c.products.map((p) => p.name),
  );
});

void test('catalog has 5 categories × 8 products with unique ids, names and SKUs', () => {
  const cat = buildShopCatalog(7);
  assert.equal(cat.categories.length, 5);
  assert.equal(cat.products.length, 5 * PRODUCTS_PER_CATEGORY);
  assert.equal(new Set(cat.products.map((p) => p.id)).size, cat.products.length);
  assert.equal(new Set(cat.products.map((p) => p.name)).size, cat.products.length);
  assert.equal(new Set(cat.products.map((p) => p.sku)).size, cat.products.length);
  for (const p of cat.products) {
    const words = p.name.split(' ').length;
    assert.ok(words >= 2 && words <= 3, p.name);
    assert.match(p.sku, /^[A-Z]{2}-\d{4}$/);
    assert.match(p.id, /^[a-z0-9-]+$/);
    assert.ok(Number.isInteger(p.priceCents) && p.priceCents > 0);
    assert.ok(p.stock >= 5 && p.rating >= 2.5 && p.rating <= 5);
    const prefix = cat.categories.find((c) => c.slug === p.category)?.skuPrefix;
    assert.equal(p.sku.slice(0, 2), prefix);
  }
  for (const c of cat.categories) {
    const prices = listCategory(cat, c.slug).map((p) => p.priceCents);
    assert.equal(new Set(prices).size, prices.length, `prices of ${c.slug} are distinct`);
  }
  assert.equal(cat.featured.length, 4);
});

void test('listing sorts by name and by price both ways', () => {
  const cat = buildShopCatalog(3);
  const byName = listCategory(cat, 'kitchen').map((p) => p.name);
  assert.deepEqual(byName, [...byName].sort((a, b) => a.localeCompare(b, 'en')));
  const asc = listCategory(cat, 'kitchen', 'price_asc').map((p) => p.priceCents);
  assert.deepEqual(asc, [...asc].sort((a, b) => a - b));
  const desc = listCategory(cat, 'kitchen', 'price_desc').map((p) => p.priceCents);
  assert.deepEqual(desc, [...asc].reverse());
  assert.deepEqual(listCategory(cat, 'nope'), []);
});

void test('search finds a product by its full name first; empty query finds nothing', () => {
  const cat = buildShopCatalog(5);
  for (const p of cat.products) {
    const hits = searchProducts(cat, p.name.toUpperCase());
    assert.equal(hits[0]?.id, p.id);
  }
  assert.deepEqual(searchProducts(cat, '   '), []);
  assert.deepEqual(searchProducts(cat, 'zzzz'), []);
});

void test('formatPrice renders dollars with cents and thousands separators', () => {
  assert.equal(formatPrice(1250), '$12.50');
  assert.equal(formatPrice(5), '$0.05');
  assert.equal(formatPrice(124_950), '$1,249.50');
});
