import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SettledIds } from '../src/settled-ids.js';

void test('a round end\'s settled ids stay settled through the next round end, then are forgotten', () => {
  const s = new SettledIds();
  assert.deepEqual(s.roundEnd(['a', 'b']).sort(), ['a', 'b']);
  assert.deepEqual(s.roundEnd(['c']).sort(), ['a', 'b', 'c'], 'round 0 ids kept through round 1\'s end');
  assert.ok(s.has('a') && s.has('c'));
  assert.deepEqual(s.roundEnd(['d']).sort(), ['c', 'd'], 'round 0 ids forgotten at round 2\'s end');
  assert.ok(!s.has('a') && s.has('c') && s.has('d'));
  assert.deepEqual(s.toJSON().sort(), ['c', 'd']);
});

void test('ids restored from a checkpoint stay settled through the next round end (a short last round)', () => {
  const s = new SettledIds(['r0-a', 'r0-b']);
  assert.ok(s.has('r0-a'));
  s.roundEnd(['r1-a']);
  assert.ok(s.has('r0-a') && s.has('r0-b') && s.has('r1-a'), 'a redelivery of round 0 after round 1 ended is still a duplicate');
  s.roundEnd([]);
  assert.ok(!s.has('r0-a') && s.has('r1-a'));
});
