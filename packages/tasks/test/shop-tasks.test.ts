// Task generator: determinism, every family, ids, verifiers consistent with the catalog and the
// listing rules the site uses.
import { test } from 'node:test';
import { matchAnswer } from '@owrl/judge-core';
import assert from 'node:assert/strict';
import { toJson, TaskSchema, type AnswerMatch, type Task } from '@owrl/proto';
import {
  TaskError,
  validateTask,
} from '../src/index.js';
import {
  buildShopCatalog,
  findShopPromo,
  formatPrice,
  generateShopTasks,
  parseCartSpec,
  priceShopOrder,
  SHOP_FAMILIES,
  SHOP_RATING_STEPS,
  shopRatingLabel,
  type ShopCatalog,
  type ShopFilters,
  type ShopPromo,
} from '../src/shop/index.js';
import {
  shopFamilySize,
} from '../src/shop/shop-tasks.js';
import { oracleDollars, oracleListing, oracleTotalCents } from '@owrl/testkit';

const BASE = 'http://127.0.0.1:8400';
const json = (ts: Task[]) => ts.map((t) => toJson(TaskSchema, t));
const ORIGINAL = ['price', 'sku', 'add_to_cart', 'search_sku', 'add_qty', 'search_add', 'cheapest_in_category', 'cheapest_qty'];

function answerOf(t: Task): AnswerMatch {
  const v = t.verifier?.kind;
  if (v?.case !== 'answer') throw new Error(`${t.id} has no answer verifier`);
  return v.value;
}

function specOf(t: Task): ReturnType<typeof parseCartSpec> {
  const v = t.verifier?.kind;
  if (v?.case !== 'siteState') throw new Error(`${t.id} has no site-state verifier`);
  assert.equal(v.value.endpoint, `${BASE}/__owrl/verify`);
  return parseCartSpec(v.value.specJson);
}

/** The filters a task's metadata names (suffix '' or '_b'), as the site would apply them. */
function filtersOf(t: Task, suffix: string): ShopFilters {
  const m = t.metadata;
  const value = m[`filter_value${suffix}`] ?? '';
  const f: ShopFilters = { size: m[`size${suffix}`] };
  switch (m[`filter${suffix}`]) {
    case 'waterproof':
      f.waterproof = true;
      break;
    case 'brand':
      f.brands = [value];
      break;
    case 'color':
      f.color = value;
      break;
    case 'rating':
      f.minRating = SHOP_RATING_STEPS.find((r) => shopRatingLabel(r) === value);
      break;
    default:
      throw new Error(`${t.id}: unknown filter ${m[`filter${suffix}`]}`);
  }
  if (m['max_price'] !== undefined && suffix === '') f.maxPriceCents = Number(m['max_price']) * 100;
  return f;
}

function categoryProducts(cat: ShopCatalog, slug: string) {
  return cat.products.filter((p) => p.category === slug);
}

void test('same seed → identical tasks; different seed → different tasks', () => {
  const a = generateShopTasks({ seed: 11, n: 60, baseUrl: BASE });
  const b = generateShopTasks({ seed: 11, n: 60, baseUrl: BASE });
  const c = generateShopTasks({ seed: 12, n: 60, baseUrl: BASE });
  assert.deepEqual(json(a), json(b));
  assert.notDeepEqual(json(a), json(c));
  assert.equal(new Set(a.map((t) => t.id)).size, 60, 'ids are unique');
  const other = generateShopTasks({ seed: 11, n: 60, baseUrl: BASE, catalogSeed: 2 });
  assert.notDeepEqual(json(a), json(other), 'another catalog seed gives other tasks');
});

void test('the original eight families are unchanged in shape, and new families are added', () => {
  assert.deepEqual(SHOP_FAMILIES.slice(0, 8).map((f) => [f.name, f.difficulty, f.check, f.start]), [
    ['price', 1, 'answer', 'category'],
    ['sku', 2, 'answer', 'category'],
    ['add_to_cart', 3, 'cart', 'category'],
    ['search_sku', 3, 'answer', 'home'],
    ['add_qty', 4, 'cart', 'category'],
    ['search_add', 4, 'cart', 'home'],
    ['cheapest_in_category', 5, 'cart', 'home'],
    ['cheapest_qty', 6, 'cart', 'home'],
  ]);
  assert.deepEqual(SHOP_FAMILIES.map((f) => f.name).slice(0, 8), ORIGINAL);
  assert.ok(SHOP_FAMILIES.some((f) => f.difficulty >= 15), 'a family of 15+ steps');
  assert.ok(SHOP_FAMILIES.some((f) => f.check === 'page'), 'a page-expression family');
  assert.ok(SHOP_FAMILIES.some((f) => f.check === 'order'), 'an order family');
  for (const f of SHOP_FAMILIES) assert.equal(f.route.length, f.difficulty, `${f.name}: the route has one entry per step`);
});

void test('every family is generated and valid; original families keep their instructions and cart specs', () => {
  const all = generateShopTasks({ seed: 1, n: 150, baseUrl: `${BASE}/` });
  const cat = buildShopCatalog(1);
  for (const fam of SHOP_FAMILIES) {
    const mine = all.filter((t) => t.family === fam.name);
    assert.ok(mine.length > 0, `family ${fam.name} generated`);
    for (const t of mine) {
      assert.deepEqual(validateTask(t), []);
      assert.equal(t.schemaVersion, 1);
      assert.equal(t.suite, 'shop');
      assert.equal(t.site, 'shop');
      assert.equal(t.difficulty, fam.difficulty);
      assert.match(t.id, new RegExp(`^shop/${fam.name}/\\d{4}$`));
      assert.equal(t.metadata['family'], fam.name);
      assert.equal(t.metadata['seed'], '1');
      const product = cat.byId.get(t.metadata['product'] ?? '');
      assert.ok(product, 'metadata names a catalog product');
      assert.ok(t.startUrl === `${BASE}/shop/` || t.startUrl === `${BASE}/shop/c/${t.metadata['category'] ?? ''}`, t.startUrl);
      assert.equal(t.startUrl === `${BASE}/shop/`, fam.start === 'home');
      if (!ORIGINAL.includes(fam.name)) continue;
      if (fam.per === 'product') assert.ok(t.instruction.includes(`"${product.name}"`), t.instruction);
      if (fam.check === 'answer') {
        const right = fam.name === 'price' ? formatPrice(product.priceCents) : product.sku;
        assert.equal(matchAnswer(answerOf(t), right).status, 'pass');
      } else {
        const spec = specOf(t);
        assert.equal(spec.exact, true);
        assert.deepEqual(Object.keys(spec.cart), [product.id], 'a bare product id: any size, as before');
        const qty = Number(t.metadata['qty'] ?? '1');
        assert.equal(spec.cart[product.id], qty);
        if (fam.name.includes('qty')) assert.ok(t.instruction.startsWith(`Add ${qty} of`), t.instruction);
      }
    }
  }
  const price = all.find((t) => t.family === 'price');
  assert.match(price?.instruction ?? '', /^What is the price of ".+"\?$/);
});

void test('order totals: hand-computed cases (the oracle and the shop agree on each)', () => {
  const pct15from40: ShopPromo = { code: 'P15', kind: 'percent', value: 15, minSubtotalCents: 4000 };
  const off10: ShopPromo = { code: 'TEN', kind: 'amount', value: 1000, minSubtotalCents: 0 };
  const pct10: ShopPromo = { code: 'P10', kind: 'percent', value: 10, minSubtotalCents: 0 };
  const cases: [string, { unitCents: number; qty: number }[], ShopPromo | undefined, 'standard' | 'express', number][] = [
    ['2 x $25.00, 15% off from $40: 5000 - 750 + 495', [{ unitCents: 2500, qty: 2 }], pct15from40, 'standard', 4745],
    ['$30.00 is under the 15% minimum: 3000 + 495', [{ unitCents: 3000, qty: 1 }], pct15from40, 'standard', 3495],
    ['$33.33, 15% rounds down: 3333 - 499 + 495', [{ unitCents: 3333, qty: 1 }], { ...pct15from40, minSubtotalCents: 0 }, 'standard', 3329],
    ['$99.99, $10 off: 8999 + 495', [{ unitCents: 9999, qty: 1 }], off10, 'standard', 9494],
    ['$120.00, standard is free from $100', [{ unitCents: 12000, qty: 1 }], undefined, 'standard', 12000],
    ['$101.00, 10% off drops below free delivery: 9090 + 495', [{ unitCents: 10100, qty: 1 }], pct10, 'standard', 9585],
    ['$5.00, $10 off takes at most the subtotal; express $12.95', [{ unitCents: 500, qty: 1 }], off10, 'express', 1295],
    ['$120.00 express is never free', [{ unitCents: 12000, qty: 1 }], undefined, 'express', 13295],
  ];
  for (const [what, lines, promo, delivery, want] of cases) {
    assert.equal(oracleTotalCents(lines, promo, delivery), want, `oracle: ${what}`);
    assert.equal(priceShopOrder(lines, promo, delivery).totalCents, want, `shop: ${what}`);
  }
  assert.deepEqual([1295, 100, 5, 123456].map(oracleDollars), ['$12.95', '$1.00', '$0.05', '$1,234.56']);
  assert.deepEqual([1295, 100, 5, 123456].map(formatPrice), ['$12.95', '$1.00', '$0.05', '$1,234.56']);
});

void test('cheapest families target the first product of the price-sorted category', () => {
  const cat = buildShopCatalog(9);
  const tasks = generateShopTasks({ seed: 2, n: 12, baseUrl: BASE, catalogSeed: 9, families: ['cheapest_in_category', 'cheapest_qty'] });
  assert.equal(tasks.length, 12);
  for (const t of tasks) {
    const slug = t.metadata['category'] ?? '';
    const inCategory = categoryProducts(cat, slug);
    const cheapest = Math.min(...inCategory.map((p) => p.priceCents));
    const target = cat.byId.get(t.metadata['product'] ?? '');
    assert.equal(target?.category, slug);
    assert.equal(target?.priceCents, cheapest, `${t.id}: no product of ${slug} is cheaper`);
    assert.equal(t.metadata['product'], oracleListing(inCategory, {}, 'price_asc')[0]?.id, `${t.id}: ties go by name`);
    assert.equal(t.metadata['catalog_seed'], '9');
  }
});

void test('compare and promo answers follow the catalog and the checkout rules', () => {
  const cat = buildShopCatalog(2);
  const tasks = generateShopTasks({ seed: 3, n: 30, baseUrl: BASE, catalogSeed: 2, families: ['compare_rating', 'promo_total'] });
  for (const t of tasks) {
    const a = cat.byId.get(t.metadata['product'] ?? '');
    assert.ok(a);
    if (t.family === 'compare_rating') {
      const b = cat.byId.get(t.metadata['product_b'] ?? '');
      assert.ok(b && a.category !== b.category && a.rating !== b.rating);
      assert.ok(!cat.featured.includes(a.id) && !cat.featured.includes(b.id), 'neither is on the home page');
      const best = a.rating > b.rating ? a : b;
      const worst = best === a ? b : a;
      assert.equal(matchAnswer(answerOf(t), best.name).status, 'pass');
      assert.notEqual(matchAnswer(answerOf(t), worst.name).status, 'pass');
      assert.ok(t.instruction.includes(`"${a.name}"`) && t.instruction.includes(`"${b.name}"`));
    } else {
      const promo = findShopPromo(cat, t.metadata['promo'] ?? '');
      assert.ok(promo && t.instruction.includes(`"${promo.code}"`));
      assert.ok(a.priceCents >= promo.minSubtotalCents, 'the code applies');
      const total = oracleTotalCents([{ unitCents: a.priceCents, qty: 1 }], promo, 'standard');
      assert.ok(total < oracleTotalCents([{ unitCents: a.priceCents, qty: 1 }], undefined, 'standard'), 'the code lowers the total');
      assert.equal(matchAnswer(answerOf(t), oracleDollars(total)).status, 'pass');
      assert.notEqual(matchAnswer(answerOf(t), oracleDollars(a.priceCents)).status, 'pass', 'the undiscounted price is wrong');
    }
  }
});

void test('filter families target the first item of the filtered, sorted listing in the named size', () => {
  for (const seed of [1, 5]) {
    const cat = buildShopCatalog(seed);
    const tasks = generateShopTasks({ seed: 4, n: 20, baseUrl: BASE, catalogSeed: seed, families: ['filter_cheapest', 'multi_constraint'] });
    assert.ok(tasks.some((t) => t.family === 'multi_constraint'));
    for (const t of tasks) {
      const f = filtersOf(t, '');
      const sort = t.family === 'filter_cheapest' ? 'price_asc' : 'rating';
      const list = oracleListing(categoryProducts(cat, t.metadata['category'] ?? ''), f, sort);
      assert.ok(list.length >= 2, `${t.id}: the sort matters`);
      assert.equal(list[0]?.id, t.metadata['product'], t.id);
      const unfiltered = oracleListing(categoryProducts(cat, t.metadata['category'] ?? ''), {}, sort);
      assert.notEqual(unfiltered[0]?.id, t.metadata['product'], `${t.id}: the filters matter`);
      const spec = specOf(t);
      assert.deepEqual(spec.cart, { [`${t.metadata['product'] ?? ''}:${f.size ?? ''}`]: Number(t.metadata['qty'] ?? '1') });
      assert.equal(spec.exact, true);
      assert.ok(t.instruction.includes(`size "${f.size ?? ''}"`), t.instruction);
      if (t.family === 'multi_constraint') assert.ok(t.instruction.includes(`$${t.metadata['max_price'] ?? ''}`), t.instruction);
    }
  }
});

void test('checkout families: order specs name items, sizes, address, delivery; the page expression names the total', () => {
  const cat = buildShopCatalog(6);
  const tasks = generateShopTasks({ seed: 5, n: 15, baseUrl: BASE, catalogSeed: 6, families: ['checkout_confirm', 'checkout_two_items', 'checkout_constrained'] });
  for (const t of tasks) {
    const m = t.metadata;
    for (const k of ['name', 'address', 'city', 'postcode']) assert.ok(t.instruction.includes(`"${m[k] ?? '?'}"`), `${t.id} quotes ${k}`);
    if (t.family === 'checkout_confirm') {
      const v = t.verifier?.kind;
      assert.equal(v?.case, 'pageExpression');
      if (v?.case !== 'pageExpression') continue;
      const p = cat.byId.get(m['product'] ?? '');
      const variant = p?.variants.find((x) => x.code === m['size']);
      assert.ok(p && variant && variant.code !== p.size && variant.stock > 0, `${t.id}: a second size in stock`);
      const total = oracleDollars(variant.priceCents + 1295); // express delivery is $12.95 whatever the subtotal
      assert.equal(m['total'], total);
      for (const s of [total, `${p.id}:${variant.code}*1`, m['postcode'] ?? '?', 'express', 'Order confirmed']) assert.ok(v.value.expression.includes(JSON.stringify(s).slice(1, -1)), `${t.id}: ${s}`);
      continue;
    }
    const spec = specOf(t);
    assert.deepEqual(spec.cart, {});
    assert.ok(spec.order);
    const o = spec.order;
    assert.deepEqual([o.name, o.address, o.city, o.postcode], [m['name'], m['address'], m['city'], m['postcode']]);
    assert.equal(o.delivery, m['delivery']);
    assert.deepEqual(o.items, { [`${m['product'] ?? ''}:${m['size'] ?? ''}`]: 2, [`${m['product_b'] ?? ''}:${m['size_b'] ?? ''}`]: 1 });
    if (t.family === 'checkout_constrained') {
      assert.equal(o.promo, m['promo']);
      for (const suffix of ['', '_b']) {
        const list = oracleListing(categoryProducts(cat, m[`category${suffix}`] ?? ''), filtersOf(t, suffix), 'price_asc');
        assert.equal(list[0]?.id, m[`product${suffix}`], `${t.id} item${suffix}`);
      }
      assert.notEqual(m['category'], m['category_b']);
    } else {
      assert.equal(o.delivery, 'express');
      assert.equal(o.promo, undefined);
    }
  }
});

void test('the id determines the task whatever the task seed', () => {
  const a = generateShopTasks({ seed: 100, n: 40, baseUrl: BASE, difficulties: [1, 24] });
  const b = generateShopTasks({ seed: 200, n: 40, baseUrl: BASE, difficulties: [1, 24] });
  const byId = new Map(b.map((t) => [t.id, toJson(TaskSchema, t)]));
  let same = 0;
  for (const t of a) {
    const other = byId.get(t.id);
    if (other === undefined) continue;
    same++;
    const strip = (j: unknown) => {
      const o = j as { metadata: Record<string, string> };
      return { ...o, metadata: { ...o.metadata, seed: '' } };
    };
    assert.deepEqual(strip(toJson(TaskSchema, t)), strip(other), t.id);
  }
  assert.ok(same > 5);
});

void test('every family is reachable through the families and difficulties filters; bad arguments are named', () => {
  const cat = buildShopCatalog(1);
  for (const f of SHOP_FAMILIES) {
    const size = shopFamilySize(f, cat);
    assert.ok(size >= 1, `${f.name} has tasks`);
    const one = generateShopTasks({ seed: 1, n: Math.min(3, size), baseUrl: BASE, families: [f.name] });
    assert.ok(one.every((t) => t.family === f.name));
    const byDiff = generateShopTasks({ seed: 1, n: 1, baseUrl: BASE, difficulties: [f.difficulty], families: [f.name] });
    assert.equal(byDiff[0]?.family, f.name);
  }
  const easy = generateShopTasks({ seed: 3, n: 20, baseUrl: BASE, difficulties: [1, 2] });
  assert.deepEqual([...new Set(easy.map((t) => t.family))].sort(), ['price', 'sku']);
  const demo = generateShopTasks({ seed: 3, n: 40, baseUrl: BASE, difficulties: [1, 2, 3] });
  assert.deepEqual([...new Set(demo.map((t) => t.family))].sort(), ['add_to_cart', 'price', 'search_sku', 'sku'], 'the demo levels hold only original families');
  const bad = (opts: Parameters<typeof generateShopTasks>[0], re: RegExp) =>
    assert.throws(() => generateShopTasks(opts), (e: unknown) => e instanceof TaskError && e.code === 'TASK_BAD_ARGUMENT' && re.test(e.message));
  bad({ seed: 1, n: 5, baseUrl: BASE, difficulties: [7] }, /no shop family has difficulty in \[7\]/);
  bad({ seed: 1, n: 49, baseUrl: BASE, difficulties: [1] }, /n 49 exceeds the 48 distinct tasks/);
  bad({ seed: 1, n: -1, baseUrl: BASE }, /n -1/);
  bad({ seed: 1.5, n: 1, baseUrl: BASE }, /seed 1.5/);
  bad({ seed: 1, n: 1, baseUrl: 'ftp://x' }, /baseUrl "ftp:\/\/x" must be http\(s\)/);
  bad({ seed: 1, n: 1, baseUrl: BASE, families: ['nope' as never] }, /family "nope" is not a shop family/);
  assert.deepEqual(generateShopTasks({ seed: 1, n: 0, baseUrl: BASE }), []);
});
