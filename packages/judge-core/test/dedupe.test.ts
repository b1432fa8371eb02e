import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JudgeError, LruSet } from '@owrl/judge-core';

void test('LruSet evicts the least recently used id beyond capacity', () => {
  const s = new LruSet(3);
  s.add('a');
  s.add('b');
  s.add('c');
  assert.equal(s.size, 3);
  assert.equal(s.has('a'), true); // a becomes most recent: order b, c, a
  s.add('d'); // evicts b
  assert.equal(s.size, 3);
  assert.equal(s.has('b'), false);
  assert.equal(s.has('c'), true);
  assert.equal(s.has('a'), true);
  assert.equal(s.has('d'), true);
  s.add('e'); // order after the has() calls: c, a, d -> evicts c
  assert.equal(s.has('c'), false);
  assert.deepEqual(['a', 'd', 'e'].map((x) => s.has(x)), [true, true, true]);
});

void test('LruSet re-adding an id does not grow it; delete removes', () => {
  const s = new LruSet(2);
  s.add('x');
  s.add('x');
  assert.equal(s.size, 1);
  assert.equal(s.delete('x'), true);
  assert.equal(s.delete('x'), false);
  assert.equal(s.has('x'), false);
});

void test('LruSet keeps exactly capacity ids under churn', () => {
  const s = new LruSet(100);
  for (let i = 0; i < 1000; i++) s.add(`id-${i}`);
  assert.equal(s.size, 100);
  assert.equal(s.has('id-899'), false);
  assert.equal(s.has('id-900'), true);
  assert.equal(s.has('id-999'), true);
});

void test('LruSet rejects a bad capacity naming the value', () => {
  assert.throws(() => new LruSet(0), (e: unknown) => e instanceof JudgeError && e.code === 'JUDGE_INVALID_CONFIG' && /got 0/.test(e.message));
  assert.throws(() => new LruSet(1.5), JudgeError);
});
