import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RlError, groupAdvantages, groupFate } from '../src/index.js';

void describe('groupAdvantages', () => {
  void it('is (r - mean) / (population std + 1e-6)', () => {
    const a = groupAdvantages([1, 0, 0, 0, 1]);
    const std = Math.sqrt(0.24); // mean 0.4
    assert.deepEqual(a.map((x) => +x.toFixed(9)), [0.6, -0.4, -0.4, -0.4, 0.6].map((d) => +(d / (std + 1e-6)).toFixed(9)));
    assert.ok(Math.abs(a.reduce((s, x) => s + x, 0)) < 1e-12);
  });
  void it('is zero for equal rewards and rejects bad input', () => {
    assert.deepEqual(groupAdvantages([1, 1, 1]), [0, 0, 0]);
    assert.throws(() => groupAdvantages([]), RlError);
    assert.throws(() => groupAdvantages([0, NaN]), /rewards\[1\] is NaN/);
  });
});

void describe('groupFate', () => {
  void it('keeps mixed groups and drops all-0 / all-1 groups', () => {
    assert.equal(groupFate([0, 1, 0, 0, 0]), 'kept');
    assert.equal(groupFate([0, 0, 0, 0, 0]), 'dropped_all_zero');
    assert.equal(groupFate([1, 1, 1, 1, 1]), 'dropped_all_one');
    assert.equal(groupFate([0.5, 0.5]), 'dropped_all_equal');
    assert.equal(groupFate([0.5, 0.25]), 'kept');
  });
});
