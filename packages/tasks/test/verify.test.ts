// Answer matching and the shop's cart spec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkCart, matchAnswer, normalizeAnswer, parseCartSpec, TaskError } from '../src/index.js';

const norm = (accepted: string[], contains = false) => ({ accepted, normalize: true, contains });

void test('normalisation: case, whitespace, currency, thousands separators, trailing punctuation, quotes', () => {
  assert.equal(normalizeAnswer(' $1,249.50. '), '1249.50');
  assert.equal(normalizeAnswer('"KT-4821"'), 'kt-4821');
  assert.equal(normalizeAnswer('Blue  Ceramic\tMug!'), 'blueceramicmug');
  assert.equal(normalizeAnswer('€ 12.50?!'), '12.50');
});

void test('matchAnswer accepts normalised equal answers and numerically equal prices', () => {
  const price = norm(['$12.50', '12.50']);
  for (const a of ['$12.50', '12.50', ' $12.50. ', '12.5']) {
    assert.equal(matchAnswer(a, price).ok, true, a);
  }
  for (const a of ['$12.05', '$125.0', '12', 'twelve fifty', '']) {
    assert.equal(matchAnswer(a, price).ok, false, a);
  }
  assert.equal(matchAnswer('$1,249.50', norm(['1249.50'])).ok, true);
  assert.equal(matchAnswer('kt-4821', norm(['KT-4821', 'SKU: KT-4821'])).ok, true);
  assert.equal(matchAnswer('SKU: KT-4821', norm(['KT-4821', 'SKU: KT-4821'])).ok, true);
  assert.equal(matchAnswer('KT-4812', norm(['KT-4821'])).ok, false);
});

void test('matchAnswer without normalize is exact up to surrounding whitespace', () => {
  const exact = { accepted: ['$12.50'], normalize: false, contains: false };
  assert.equal(matchAnswer(' $12.50 ', exact).ok, true);
  assert.equal(matchAnswer('12.50', exact).ok, false);
  assert.equal(matchAnswer('$12.5', exact).ok, false);
});

void test('matchAnswer contains mode and empty accepted lists', () => {
  assert.equal(matchAnswer('The SKU is KT-4821.', norm(['KT-4821'], true)).ok, true);
  assert.equal(matchAnswer('The SKU is KT-4820.', norm(['KT-4821'], true)).ok, false);
  const none = matchAnswer('x', norm([]));
  assert.equal(none.ok, false);
  assert.match(none.detail, /no accepted/);
  const miss = matchAnswer('nope', norm(['a', 'b']));
  assert.match(miss.detail, /"nope".*"a", "b"/);
});

void test('cart spec parsing names what is wrong', () => {
  assert.deepEqual(parseCartSpec('{"cart":{"mug":2},"exact":true}'), { cart: { mug: 2 }, exact: true });
  assert.deepEqual(parseCartSpec('{"cart":{}}'), { cart: {}, exact: false });
  for (const [bad, re] of [
    ['nope', /not JSON/],
    ['[]', /JSON object/],
    ['{"cart":3}', /spec\.cart must be an object/],
    ['{"cart":{"mug":0}}', /spec\.cart\["mug"\] = 0 must be a positive integer/],
    ['{"cart":{"mug":1.5}}', /positive integer/],
    ['{"cart":{},"exact":"yes"}', /spec\.exact/],
  ] as const) {
    assert.throws(() => parseCartSpec(bad), (e: unknown) => e instanceof TaskError && e.code === 'TASK_BAD_SPEC' && re.test(e.message));
  }
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
