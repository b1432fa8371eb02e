import { test } from 'node:test';
import assert from 'node:assert/strict';
import { make, RolloutRequestSchema, TaskSchema, TrajectorySchema } from '@owrl/proto';
import { applyLedgerDelta, type RoundLedgerDelta, type RoundLedgerJson } from '../src/ledger-json.js';
import { RoundLedger } from '../src/round-ledger.js';
import { buildScored } from '@owrl/testkit';

const task = make(TaskSchema, { id: 't1', startUrl: 'http://127.0.0.1:1/', instruction: 'x', difficulty: 1 });

function scored(id: string, reward: number | null, excludedReason = '') {
  return buildScored({ id, reward, excludedReason });
}

function scoredFor(id: string, taskId: string, reward: number | null, excludedReason = '') {
  const st = scored(id, reward, excludedReason);
  st.trajectory = make(TrajectorySchema, { trajectoryId: id, request: make(RolloutRequestSchema, { trajectoryId: id, task: make(TaskSchema, { id: taskId }) }) });
  return st;
}

void test('the ledger survives a restart: re-dispatch under the new incarnation, nothing used twice, no result attached to another task', () => {
  const other = make(TaskSchema, { id: 't2', startUrl: 'http://127.0.0.1:2/', instruction: 'y', difficulty: 1 });
  const l = new RoundLedger('run', 3, 3, 1);
  const a = l.addGroup(0, task, 3);
  const b = l.addGroup(1, other, 2);
  assert.deepEqual(a, ['run/3/0/0/0@1', 'run/3/0/1/0@1', 'run/3/0/2/0@1']);
  assert.equal(l.ingest(scoredFor(a[0]!, 't1', 1)).kind, 'trainable');
  const ex = l.ingest(scoredFor(a[1]!, 't1', null, 'env_error:dns'));
  assert.ok(ex.kind === 'excluded' && ex.redispatch?.attempt === 1);
  assert.equal(l.ingest(scoredFor(b[0]!, 't2', 0)).kind, 'trainable');

  // Crash: only the JSON survives; the next start is incarnation 2.
  const r = RoundLedger.restore(JSON.parse(JSON.stringify(l.toJSON())) as ReturnType<RoundLedger['toJSON']>, 2);
  assert.equal(r.awaitingPayload(), 2, 'results ingested before the crash wait for their payload');
  const again = r.redispatchMissing();
  assert.deepEqual(again.map((x) => x.trajectoryId).sort(), ['run/3/0/1/1@2', 'run/3/0/2/0@2', 'run/3/1/1/0@2']);
  assert.deepEqual(r.redispatchMissing(), [], 'asking twice re-dispatches nothing more');
  // The held payloads come back: attached, not counted as new results.
  assert.equal(r.ingest(scoredFor(a[0]!, 't1', 1)).kind, 'restored');
  assert.equal(r.ingest(scoredFor(b[0]!, 't2', 0)).kind, 'restored');
  assert.equal(r.ingest(scoredFor(a[0]!, 't1', 1)).kind, 'duplicate');
  // The excluded result consumed before the crash comes back: a duplicate, never counted twice.
  assert.equal(r.ingest(scoredFor(a[1]!, 't1', null, 'env_error:dns')).kind, 'duplicate');
  // A pre-crash dispatch the ledger never recorded, for another task: refused.
  assert.deepEqual(r.ingest(scoredFor('run/3/0/2/5@1', 't2', 1)), { kind: 'late', cause: 'task_mismatch' });
  // The pre-crash attempt of sample 2 and its re-dispatch both come back: the first wins, the other is superseded.
  assert.equal(r.ingest(scoredFor('run/3/0/2/0@1', 't1', 0)).kind, 'trainable');
  assert.deepEqual(r.ingest(scoredFor('run/3/0/2/0@2', 't1', 1)), { kind: 'late', cause: 'superseded' });
  assert.equal(r.ingest(scoredFor('run/3/0/1/1@2', 't1', 1)).kind, 'trainable');
  const done = r.ingest(scoredFor('run/3/1/1/0@2', 't2', 1));
  assert.ok(done.kind === 'trainable' && done.completed);
  assert.deepEqual(r.groups.get(0)?.rewards, [1, 1, 0]);
  assert.equal(r.groups.get(0)?.fate, 'kept');
  assert.equal(r.groups.get(1)?.fate, 'kept');
  assert.equal(r.inFlight(), 0);
  assert.deepEqual(r.ingest(scoredFor('run/2/0/0/0@1', 't1', 1)), { kind: 'late', cause: 'other_round' });
});

void test('a late result counted and saved, whose ack a crash lost, comes back as a duplicate (whole save and delta)', () => {
  const l = new RoundLedger('run', 3, 3, 1);
  l.addGroup(0, task, 2);
  l.markSaved();
  assert.deepEqual(l.ingest(scoredFor('run/2/0/0/0@1', 't1', 1)), { kind: 'late', cause: 'other_round' });
  assert.deepEqual(l.ingest(scoredFor('run/3/0/1/5@1', 't2', 1)), { kind: 'late', cause: 'task_mismatch' });
  assert.equal(l.ingest(scoredFor('run/2/0/0/0@1', 't1', 1)).kind, 'duplicate', 'the same ledger');
  const whole = JSON.parse(JSON.stringify(l.toJSON())) as RoundLedgerJson;
  const delta = l.takeDelta();
  assert.deepEqual(delta.late, ['run/2/0/0/0@1', 'run/3/0/1/5@1']);
  for (const [how, saved] of [
    ['whole', whole],
    ['delta', applyLedgerDelta({ ...whole, late: [] }, delta)],
  ] as const) {
    const r = RoundLedger.restore(saved, 2);
    assert.equal(r.ingest(scoredFor('run/2/0/0/0@1', 't1', 1)).kind, 'duplicate', how);
    assert.equal(r.ingest(scoredFor('run/3/0/1/5@1', 't2', 1)).kind, 'duplicate', how);
    assert.deepEqual(r.lateIds(), ['run/2/0/0/0@1', 'run/3/0/1/5@1'], how);
  }
  assert.equal(l.takeDelta().late, undefined, 'a delta carries only what is new');
});

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
  assert.equal(l.groups.get(0)?.fate, 'kept', 'fate and advantages are decided once, when the group completes');
  assert.deepEqual(l.groups.get(0)?.advantages.map((a) => Math.round(a * 1000) / 1000), [1, -1]);
  assert.equal(l.abandonInFlight(), 2);
  assert.equal(l.groups.get(0)?.fate, 'kept');
  assert.equal(l.groups.get(1)?.fate, 'abandoned');
  assert.throws(() => l.addGroup(1, task, 2), /group 1 of round 0 already exists/);
});

function scoredAt(id: string, taskId: string, reward: number, policyVersion: number) {
  const st = scoredFor(id, taskId, reward);
  st.trajectory!.policyVersion = BigInt(policyVersion);
  return st;
}

void test('async: a stale result is refused and its slot re-dispatched; a fresh one is taken', () => {
  const l = new RoundLedger('run', 5, 3, 0);
  const ids = l.addGroup(0, task, 2);
  const st = l.ingest(scoredAt(ids[0]!, 't1', 1, 1), 2);
  assert.ok(st.kind === 'excluded' && st.reason === 'stale' && st.redispatch?.attempt === 1, JSON.stringify(st));
  assert.equal(l.ingest(scoredAt(ids[0]!, 't1', 1, 1), 2).kind, 'duplicate', 'the stale result is consumed once');
  assert.equal(l.ingest(scoredAt('run/5/0/0/1@0', 't1', 1, 2), 2).kind, 'trainable');
  const done = l.ingest(scoredAt(ids[1]!, 't1', 0, 3), 2);
  assert.ok(done.kind === 'trainable' && done.completed);
  assert.deepEqual(l.groups.get(0)?.samples[0]?.excludedReasons, ['stale']);
});

void test('async: groups in flight at an update carry over with their ids, results and dedupe; decided ones stay', () => {
  const other = make(TaskSchema, { id: 't2', startUrl: 'http://127.0.0.1:2/', instruction: 'y', difficulty: 1 });
  const l = new RoundLedger('run', 4, 3, 1);
  const a = l.addGroup(0, task, 2);
  const b = l.addGroup(1, other, 2);
  l.ingest(scoredAt(a[0]!, 't1', 1, 0));
  l.ingest(scoredAt(a[1]!, 't1', 0, 0));
  assert.equal(l.groups.get(0)?.fate, 'kept');
  l.ingest(scoredAt(b[0]!, 't2', 1, 0));
  const ex = l.ingest(scoredFor(b[1]!, 't2', null, 'dns'));
  assert.equal(ex.kind, 'excluded');
  assert.equal(l.holds(b[0]!), true, 'a pending group holds its result');
  assert.equal(l.holds(a[0]!), false, 'a decided group holds nothing');

  const n = l.carryOver(5);
  assert.deepEqual([...l.groups.keys()], [0], 'the decided group stays in its round');
  assert.deepEqual([...n.groups.keys()], [1]);
  assert.equal(n.groups.get(1)?.round, 4, 'a carried group keeps the round it was dispatched in');
  assert.equal(n.nextGroup, 2, 'group numbers never repeat along the chain');
  assert.deepEqual(n.addGroup(n.nextGroup, task, 2), ['run/5/2/0/0@1', 'run/5/2/1/0@1']);
  assert.equal(n.ingest(scoredFor(b[1]!, 't2', null, 'dns')).kind, 'duplicate', 'consumed ids carry over');
  assert.equal(n.ingest(scoredAt(b[0]!, 't2', 1, 0)).kind, 'duplicate', 'seen ids carry over');
  assert.deepEqual(n.ingest(scoredAt('run/5/1/0/0@1', 't2', 1, 0)), { kind: 'late', cause: 'unknown_group' }, 'an id naming the wrong round for a group is refused');
  assert.deepEqual(n.ingest(scoredAt('run/3/0/0/0@1', 't1', 1, 0)), { kind: 'late', cause: 'other_round' });

  // The update moved the policy on: the carried result went stale and its slot is dispatched again.
  const { redispatch, expired } = n.expireStale(3);
  assert.deepEqual(expired, [b[0]]);
  assert.deepEqual(redispatch.map((r) => r.trajectoryId), ['run/4/1/0/1@1']);
  assert.equal(n.holds(b[0]!), false);
  assert.equal(n.ingest(scoredAt(b[0]!, 't2', 1, 0)).kind, 'duplicate');

  // The carried ledger survives a crash like any other.
  const r = RoundLedger.restore(JSON.parse(JSON.stringify(n.toJSON())) as ReturnType<RoundLedger['toJSON']>, 2);
  assert.equal(r.groups.get(1)?.round, 4);
  assert.equal(r.nextGroup, 3);
  const again = r.redispatchMissing().map((x) => x.trajectoryId).sort();
  assert.deepEqual(again, ['run/4/1/0/1@2', 'run/4/1/1/1@2', 'run/5/2/0/0@2', 'run/5/2/1/0@2']);
  assert.equal(r.ingest(scoredAt('run/4/1/0/1@1', 't2', 0, 3)).kind, 'trainable', 'the pre-crash attempt still counts');
});

void test('the saved deltas add up to the whole ledger: every kind of change is in the delta that follows it', () => {
  const other = make(TaskSchema, { id: 't2', startUrl: 'http://127.0.0.1:2/', instruction: 'y', difficulty: 1 });
  const l = new RoundLedger('run', 6, 2, 1);
  const a = l.addGroup(0, task, 2);
  let saved = JSON.parse(JSON.stringify(l.toJSON())) as RoundLedgerJson;
  l.markSaved();
  const fold = () => {
    const d = JSON.parse(JSON.stringify(l.takeDelta())) as RoundLedgerDelta;
    saved = applyLedgerDelta(saved, d);
    assert.deepEqual(saved, JSON.parse(JSON.stringify(l.toJSON())));
    return d;
  };
  assert.deepEqual(fold(), { nextGroup: 1, consumed: [], groups: [] }, 'nothing changed: an empty delta');
  const b = l.addGroup(1, other, 2);
  const d1 = fold();
  assert.equal(d1.groups.length, 1);
  assert.ok(d1.groups[0]?.task !== undefined, 'a new group brings its task');
  l.ingest(scoredFor(a[0]!, 't1', 1));
  const d2 = fold();
  assert.deepEqual(d2.groups.map((g) => g.group), [0], 'only the group touched');
  assert.equal(d2.groups[0]?.task, undefined, 'a known group leaves its task out');
  l.ingest(scoredFor(b[0]!, 't2', null, 'dns')); // excluded, re-dispatched
  assert.deepEqual(fold().consumed, [b[0]]);
  l.ingest(scoredFor('run/6/1/0/1@1', 't2', null, 'dns')); // attempts exhausted: abandoned
  l.ingest(scoredFor('run/6/0/0/0@9', 't1', 1)); // late (superseded): its outstanding list changes
  fold();
  assert.deepEqual(l.expireStale(5).expired, [a[0]]);
  assert.deepEqual(fold().consumed, [a[0]], 'an expired result is consumed');
  l.abandonInFlight();
  fold();
  assert.equal(saved.groups.find((g) => g.group === 1)?.fate, 'abandoned');
  assert.throws(() => applyLedgerDelta(saved, { nextGroup: 9, consumed: [], groups: [{ group: 8, fate: 'pending', samples: [] }] }), /group 8 is new but carries no task/);
});

void test('the pending, in-flight and kept counts kept up to date at each change equal a count from scratch', () => {
  const other = make(TaskSchema, { id: 't2', startUrl: 'http://127.0.0.1:2/', instruction: 'y', difficulty: 1 });
  const l = new RoundLedger('run', 2, 2, 0);
  const check = (ledger: RoundLedger, what: string) => {
    const fresh = RoundLedger.restore(ledger.toJSON(), 0);
    let kept = 0;
    for (const g of ledger.groups.values()) if (g.fate === 'kept') kept++;
    let pending = 0;
    let inFlight = 0;
    for (const g of ledger.groups.values()) {
      if (g.fate === 'pending') pending++;
      for (const s of g.samples) if (s.status === 'in_flight') inFlight++;
    }
    assert.deepEqual([ledger.pendingGroups(), ledger.inFlight(), ledger.keptGroups()], [pending, inFlight, kept], what);
    assert.equal(fresh.inFlight(), inFlight, `${what}: restored`);
  };
  check(l, 'empty');
  const a = l.addGroup(0, task, 2);
  const b = l.addGroup(1, other, 2);
  const c = l.addGroup(2, task, 2);
  check(l, 'added');
  l.ingest(scoredAt(a[0]!, 't1', 1, 0));
  l.ingest(scoredAt(a[1]!, 't1', 0, 0));
  check(l, 'a kept');
  const ex = l.ingest(scoredFor(b[0]!, 't2', null, 'dns'));
  assert.ok(ex.kind === 'excluded' && ex.redispatch);
  check(l, 'b re-dispatched');
  l.cancelRedispatch(1, 0);
  check(l, 'b cancelled');
  l.ingest(scoredAt(c[0]!, 't1', 1, 0));
  assert.equal(l.expireStale(3).expired.length, 1);
  check(l, 'c expired');
  const n = l.carryOver(3);
  check(l, 'after carry-over');
  check(n, 'carried');
  n.addGroup(n.nextGroup, task, 2);
  n.abandonInFlight();
  check(n, 'abandoned');
});
