import { test } from 'node:test';
import assert from 'node:assert/strict';
import { make, ScoredTrajectorySchema, TaskSchema, VerdictSchema } from '@owrl/proto';
import { RoundLedger } from '../src/round-ledger.js';

const task = make(TaskSchema, { id: 't1', startUrl: 'http://127.0.0.1:1/', instruction: 'x', difficulty: 1 });

function scored(id: string, reward: number | null, excludedReason = '') {
  return make(ScoredTrajectorySchema, {
    trajectoryId: id,
    trainable: reward !== null,
    excludedReason,
    ...(reward !== null ? { verdict: make(VerdictSchema, { reward, success: reward > 0.5 }) } : {}),
  });
}

void test('a group completes when every sample is trainable, duplicates and strangers are ignored', () => {
  const l = new RoundLedger('run', 4, 3);
  const ids = l.addGroup(0, task, 3);
  assert.deepEqual(ids, ['run/4/0/0/0', 'run/4/0/1/0', 'run/4/0/2/0']);
  const r0 = l.ingest(scored(ids[0]!, 1));
  assert.equal(r0.kind, 'trainable');
  assert.equal(l.ingest(scored(ids[0]!, 1)).kind, 'duplicate');
  assert.equal(l.ingest(scored('run/3/0/0/0', 1)).kind, 'late');
  assert.equal(l.ingest(scored('other/4/0/1/0', 1)).kind, 'late');
  assert.equal(l.ingest(scored('garbage', 1)).kind, 'late');
  l.ingest(scored(ids[1]!, 0));
  assert.equal(l.inFlight(), 1);
  const last = l.ingest(scored(ids[2]!, 1));
  assert.ok(last.kind === 'trainable' && last.completed);
  assert.deepEqual(l.groups.get(0)?.rewards, [1, 0, 1]);
  assert.equal(l.completeGroups().length, 1);
});

void test('an excluded rollout is re-dispatched with the next attempt until attempts run out', () => {
  const l = new RoundLedger('run', 0, 2);
  const ids = l.addGroup(0, task, 2);
  const ex = l.ingest(scored(ids[1]!, null, 'env_error:connection_reset'));
  assert.ok(ex.kind === 'excluded');
  assert.deepEqual(ex.redispatch, { sample: 1, attempt: 1 });
  assert.equal(ex.reason, 'env_error:connection_reset');
  // The old attempt arriving again is a duplicate; a stale attempt id is late.
  assert.equal(l.ingest(scored(ids[1]!, null, 'env_error:connection_reset')).kind, 'duplicate');
  const ex2 = l.ingest(scored('run/0/0/1/1', null, 'sandbox_error:browser_crash'));
  assert.ok(ex2.kind === 'excluded' && ex2.redispatch === undefined);
  l.ingest(scored(ids[0]!, 1));
  assert.equal(l.groups.get(0)?.fate, 'abandoned');
  assert.equal(l.inFlight(), 0);
  assert.deepEqual(l.groups.get(0)?.samples[1]?.excludedReasons, ['env_error:connection_reset', 'sandbox_error:browser_crash']);
});

void test('a round timeout abandons what is still in flight', () => {
  const l = new RoundLedger('run', 0, 3);
  l.addGroup(0, task, 2);
  l.addGroup(1, task, 2);
  l.ingest(scored('run/0/0/0/0', 1));
  l.ingest(scored('run/0/0/1/0', 0));
  assert.equal(l.abandonInFlight(), 2);
  assert.equal(l.groups.get(0)?.fate, 'pending');
  assert.equal(l.groups.get(1)?.fate, 'abandoned');
  assert.throws(() => l.addGroup(1, task, 2), /group 1 of round 0 already exists/);
});
