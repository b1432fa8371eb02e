// The shop's cart spec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkCart, parseCartSpec, TaskError } from '../src/index.js';

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
