// Task generator: determinism, every family, ids, verifiers consistent with the catalog.
import { test } from 'node:test';
import { matchAnswer } from '@owrl/judge-core';
import assert from 'node:assert/strict';
import { toJson, TaskSchema, type Task } from '@owrl/proto';
import {
  buildShopCatalog,
  formatPrice,
  generateShopTasks,
  listCategory,
  parseCartSpec,
  SHOP_FAMILIES,
  TaskError,
  validateTask,
} from '../src/index.js';

const BASE = 'http://127.0.0.1:8400';
const json = (ts: Task[]) => ts.map((t) => toJson(TaskSchema, t));

void test('same seed → identical tasks; different seed → different tasks', () => {
  const a = generateShopTasks({ seed: 11, n: 30, baseUrl: BASE });
  const b = generateShopTasks({ seed: 11, n: 30, baseUrl: BASE });
  const c = generateShopTasks({ seed: 12, n: 30, baseUrl: BASE });
  assert.deepEqual(json(a), json(b));
  assert.notDeepEqual(json(a), json(c));
  assert.equal(new Set(a.map((t) => t.id)).size, 30, 'ids are unique');
});

void test('every family is generated, valid, and its difficulty is the route length', () => {
  const all = generateShopTasks({ seed: 1, n: 64, baseUrl: `${BASE}/` });
  const cat = buildShopCatalog(1);
  for (const fam of SHOP_FAMILIES) {
    const mine = all.filter((t) => t.family === fam.name);
    assert.ok(mine.length > 0, `family ${fam.name} generated`);
    assert.equal(fam.route.length, fam.difficulty, fam.name);
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
      if (fam.per === 'product') assert.ok(t.instruction.includes(`"${product.name}"`), t.instruction);
      assert.ok(t.startUrl === `${BASE}/shop/` || t.startUrl === `${BASE}/shop/c/${product.category}`, t.startUrl);
      const v = t.verifier?.kind;
      if (fam.check === 'answer') {
        assert.equal(v?.case, 'answer');
        if (v?.case !== 'answer') continue;
        const right = fam.name === 'price' ? formatPrice(product.priceCents) : product.sku;
        assert.equal(matchAnswer(v.value, right).status, 'pass');
      } else {
        assert.equal(v?.case, 'siteState');
        if (v?.case !== 'siteState') continue;
        assert.equal(v.value.endpoint, `${BASE}/__owrl/verify`);
        const spec = parseCartSpec(v.value.specJson);
        assert.equal(spec.exact, true);
        assert.deepEqual(Object.keys(spec.cart), [product.id]);
        const qty = Number(t.metadata['qty'] ?? '1');
        assert.equal(spec.cart[product.id], qty);
        if (fam.name.includes('qty')) assert.ok(t.instruction.startsWith(`Add ${qty} of`), t.instruction);
      }
    }
  }
  const price = all.find((t) => t.family === 'price');
  assert.match(price?.instruction ?? '', /^What is the price of ".+"\?$/);
});

void test('cheapest families target the first product of the price-sorted category', () => {
  const cat = buildShopCatalog(9);
  const tasks = generateShopTasks({ seed: 2, n: 10, baseUrl: BASE, catalogSeed: 9, families: ['cheapest_in_category', 'cheapest_qty'] });
  assert.equal(tasks.length, 10);
  for (const t of tasks) {
    const slug = t.metadata['category'] ?? '';
    assert.equal(t.metadata['product'], listCategory(cat, slug, 'price_asc')[0]?.id);
    assert.equal(t.metadata['catalog_seed'], '9');
  }
});

void test('the id determines the task whatever the task seed', () => {
  const a = generateShopTasks({ seed: 100, n: 40, baseUrl: BASE, difficulties: [1] });
  const b = generateShopTasks({ seed: 200, n: 40, baseUrl: BASE, difficulties: [1] });
  const byId = new Map(b.map((t) => [t.id, t.instruction]));
  for (const t of a) assert.equal(byId.get(t.id), t.instruction);
});

void test('difficulties filter families; bad arguments are named', () => {
  const easy = generateShopTasks({ seed: 3, n: 20, baseUrl: BASE, difficulties: [1, 2] });
  assert.deepEqual([...new Set(easy.map((t) => t.family))].sort(), ['price', 'sku']);
  const bad = (opts: Parameters<typeof generateShopTasks>[0], re: RegExp) =>
    assert.throws(() => generateShopTasks(opts), (e: unknown) => e instanceof TaskError && e.code === 'TASK_BAD_ARGUMENT' && re.test(e.message));
  bad({ seed: 1, n: 5, baseUrl: BASE, difficulties: [9] }, /no shop family has difficulty in \[9\]/);
  bad({ seed: 1, n: 41, baseUrl: BASE, difficulties: [1] }, /n 41 exceeds the 40 distinct tasks/);
  bad({ seed: 1, n: -1, baseUrl: BASE }, /n -1/);
  bad({ seed: 1.5, n: 1, baseUrl: BASE }, /seed 1.5/);
  bad({ seed: 1, n: 1, baseUrl: 'ftp://x' }, /baseUrl "ftp:\/\/x" must be http\(s\)/);
  assert.deepEqual(generateShopTasks({ seed: 1, n: 0, baseUrl: BASE }), []);
});
