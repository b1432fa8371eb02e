import { test } from 'node:test';
import assert from 'node:assert/strict';
import { envInt, envBool, parseTrajectoryId, trajectoryId, groupKey, mulberry32, isInfrastructure } from '../src/index.js';

void test('trajectory ids round trip', () => {
  const k = { runId: 'demo-1', round: 12, group: 3, sample: 4, attempt: 1 };
  const id = trajectoryId(k);
  assert.equal(id, 'demo-1/12/3/4/1');
  assert.deepEqual(parseTrajectoryId(id), k);
  assert.equal(groupKey(k), 'demo-1/12/3');
});

void test('trajectory ids carry the incarnation, so a re-dispatch after a restart is a new id', () => {
  const k = { runId: 'demo-1', round: 4, group: 2, sample: 1, attempt: 0, incarnation: 3 };
  const id = trajectoryId(k);
  assert.equal(id, 'demo-1/4/2/1/0@3');
  assert.deepEqual(parseTrajectoryId(id), k);
  assert.notEqual(trajectoryId({ ...k, incarnation: 4 }), id);
  assert.throws(() => parseTrajectoryId('demo-1/4/2/1/0@x'), /"demo-1\/4\/2\/1\/0@x" is not run/);
  assert.throws(() => trajectoryId({ ...k, incarnation: -1 }), /incarnation -1/);
});

void test('bad ids and run ids are refused with the value named', () => {
  assert.throws(() => parseTrajectoryId('a/1/2/3'), /"a\/1\/2\/3" is not run\/round\/group\/sample\/attempt/);
  assert.throws(() => parseTrajectoryId('a/1/x/3/0'), /not run\/round/);
  assert.throws(() => trajectoryId({ runId: 'has space', round: 0, group: 0, sample: 0, attempt: 0 }), /run id "has space"/);
});

void test('env readers name the variable on bad input', () => {
  assert.equal(envInt('X', 5, {}), 5);
  assert.equal(envInt('X', 5, { X: '7' }), 7);
  assert.throws(() => envInt('OWRL_SLOTS', 5, { OWRL_SLOTS: 'four' }), /OWRL_SLOTS="four" is not an integer/);
  assert.throws(() => envBool('OWRL_RESUME', false, { OWRL_RESUME: 'maybe' }), /OWRL_RESUME="maybe" is not a boolean/);
});

void test('seeded rng is reproducible and infrastructure classes are excluded', () => {
  const a = mulberry32(42);
  const b = mulberry32(42);
  const xs = [a(), a(), a()];
  assert.deepEqual(xs, [b(), b(), b()]);
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.equal(isInfrastructure('ENV_ERROR'), true);
  assert.equal(isInfrastructure('STEP_BUDGET_EXHAUSTED'), false);
});
