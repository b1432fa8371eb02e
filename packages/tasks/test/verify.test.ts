// The shop's site-state spec: cart lines by product or by product and size, and placed orders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskError } from '../src/index.js';
import { checkShopState, parseCartSpec, type ShopOrder } from '../src/shop/index.js';
import { cartSpecJson, checkCart, checkShopOrder } from '../src/shop/shop-verify.js';

void test('cart spec parsing names what is wrong', () => {
  assert.deepEqual(parseCartSpec('{"cart":{"mug":2},"exact":true}'), { cart: { mug: 2 }, exact: true });
  assert.deepEqual(parseCartSpec('{"cart":{}}'), { cart: {}, exact: false });
  assert.deepEqual(parseCartSpec('{"cart":{"mug:Large":1}}'), { cart: { 'mug:Large': 1 }, exact: false });
  assert.deepEqual(parseCartSpec('{"order":{"items":{"mug:L":1},"delivery":"express"}}'), { cart: {}, exact: false, order: { items: { 'mug:L': 1 }, delivery: 'express' } });
  for (const [bad, re] of [
    ['nope', /not JSON/],
    ['[]', /JSON object/],
    ['{}', /spec\.cart must be an object .*or give spec\.order/],
    ['{"cart":3}', /spec\.cart must be an object/],
    ['{"cart":{"mug":0}}', /spec\.cart\["mug"\] = 0 must be a positive integer/],
    ['{"cart":{"mug":1.5}}', /positive integer/],
    ['{"cart":{"Mug Large":1}}', /spec\.cart key "Mug Large" must be "<product id>" or "<product id>:<size>"/],
    ['{"cart":{},"exact":"yes"}', /spec\.exact/],
    ['{"order":3}', /spec\.order must be an object/],
    ['{"order":{"items":{}}}', /spec\.order\.items must list at least one item/],
    ['{"order":{"items":{"mug:L":1},"delivery":"drone"}}', /spec\.order\.delivery = "drone" must be one of standard, express/],
    ['{"order":{"items":{"mug:L":1},"city":7}}', /spec\.order\.city = 7 must be a string/],
  ] as const) {
    assert.throws(() => parseCartSpec(bad), (e: unknown) => e instanceof TaskError && e.code === 'TASK_BAD_SPEC' && re.test(e.message), bad);
  }
  const spec = { cart: { 'mug:L': 2 }, exact: true, order: { items: { 'kite:M': 1 }, delivery: 'standard' as const } };
  assert.deepEqual(parseCartSpec(cartSpecJson(spec)), spec);
});

void test('checkCart: quantities must match; exact forbids extra lines', () => {
  const cart = new Map([['mug', 2], ['kite', 1]]);
  assert.equal(checkCart(cart, { cart: { mug: 2 }, exact: false }).ok, true);
  const r = checkCart(cart, { cart: { mug: 2 }, exact: true });
  assert.equal(r.ok, false);
  assert.match(r.detail, /kite: want 0, have 1/);
  assert.equal(checkCart(cart, { cart: { mug: 1 }, exact: false }).ok, false);
  assert.equal(checkCart(new Map(), { cart: { mug: 1 }, exact: true }).ok, false);
  assert.equal(checkCart(new Map(), { cart: {}, exact: true }).ok, true);
});

void test('checkCart with sizes: a bare id counts every size, an id:size key one size', () => {
  const cart = new Map([['mug:S', 1], ['mug:L', 2], ['kite:M', 1]]);
  assert.equal(checkCart(cart, { cart: { mug: 3, kite: 1 }, exact: true }).ok, true);
  assert.equal(checkCart(cart, { cart: { 'mug:L': 2, 'mug:S': 1, 'kite:M': 1 }, exact: true }).ok, true);
  const wrongSize = checkCart(cart, { cart: { 'mug:M': 2 }, exact: false });
  assert.equal(wrongSize.ok, false);
  assert.match(wrongSize.detail, /mug:M: want 2, have 0/);
  const extra = checkCart(cart, { cart: { 'mug:L': 2, kite: 1 }, exact: true });
  assert.equal(extra.ok, false);
  assert.match(extra.detail, /mug:S: want 0, have 1/);
  assert.equal(checkCart(cart, { cart: { 'mug:L': 2 }, exact: false }).ok, true);
});

const order = (o: Partial<ShopOrder>): ShopOrder => ({
  number: 'OW-123456',
  lines: [{ productId: 'mug', size: 'L', qty: 2, unitCents: 1000 }, { productId: 'kite', size: 'M', qty: 1, unitCents: 500 }],
  name: 'Ada Lovelace',
  address: '12 Elm Street',
  city: 'Springfield',
  postcode: '40213',
  delivery: 'express',
  promo: 'SPRING10',
  totals: { subtotalCents: 2500, discountCents: 250, deliveryCents: 1295, totalCents: 3545 },
  ...o,
});

void test('checkShopOrder: the latest order must have exactly the items and the listed fields', () => {
  const spec = { items: { 'mug:L': 2, 'kite:M': 1 }, name: 'ada  lovelace', address: '12 Elm Street', city: 'Springfield', postcode: '40213', delivery: 'express' as const, promo: 'spring10' };
  const ok = checkShopOrder([order({})], spec);
  assert.equal(ok.ok, true, ok.detail);
  assert.match(ok.detail, /order OW-123456 matches/);
  assert.deepEqual(checkShopOrder([], spec), { ok: false, detail: 'no order placed' });
  const cases: [Partial<ShopOrder>, RegExp][] = [
    [{ delivery: 'standard' }, /delivery: want express, have standard/],
    [{ city: 'Riverton' }, /city: want "Springfield", have "Riverton"/],
    [{ promo: '' }, /promo: want "spring10", have ""/],
    [{ lines: [{ productId: 'mug', size: 'M', qty: 2, unitCents: 1000 }, { productId: 'kite', size: 'M', qty: 1, unitCents: 500 }] }, /item mug:L: want 2, have 0; item mug:M: want 0, have 2/],
    [{ lines: [{ productId: 'mug', size: 'L', qty: 2, unitCents: 1000 }] }, /item kite:M: want 1, have 0/],
  ];
  for (const [o, re] of cases) {
    const r = checkShopOrder([order(o)], spec);
    assert.equal(r.ok, false);
    assert.match(r.detail, re);
  }
  // Only the latest order counts.
  assert.equal(checkShopOrder([order({}), order({ number: 'OW-2', delivery: 'standard' })], spec).ok, false);
  assert.equal(checkShopOrder([order({ delivery: 'standard' }), order({})], spec).ok, true);
});

void test('checkShopState: order-only specs skip the cart; combined specs need both', () => {
  const orders = [order({})];
  const items = { 'mug:L': 2, 'kite:M': 1 };
  assert.equal(checkShopState(new Map([['x:M', 1]]), orders, { cart: {}, exact: false, order: { items } }).ok, true);
  const both = checkShopState(new Map([['x:M', 1]]), orders, { cart: {}, exact: true, order: { items } });
  assert.equal(both.ok, false);
  assert.match(both.detail, /x:M: want 0, have 1/);
  assert.equal(checkShopState(new Map([['mug:L', 1]]), [], { cart: { mug: 1 }, exact: true }).ok, true);
});
