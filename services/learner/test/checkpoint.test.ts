import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BusError, BusErrorCode } from '@owrl/bus';
import { silentLogger } from '@owrl/core';
import { initialModel } from '@owrl/policy';
import { make, RunCountersSchema, ScoredTrajectorySchema, TaskSchema } from '@owrl/proto';
import { Adam } from '@owrl/rl';
import { CheckpointStore } from '../src/checkpoint.js';
import { CrashPoints, parseCrashAt } from '../src/crash-point.js';
import { CheckpointError, FatalRunError } from '../src/errors.js';
import { withRetry } from '../src/failure-policy.js';
import { HostFailureWindow } from '../src/host-failures.js';
import { RoundLedger } from '../src/round-ledger.js';
import { jsonPathAt } from '../src/saved-json.js';
import { TaskScheduler } from '../src/scheduler.js';

const tasks = Array.from({ length: 12 }, (_, i) =>
  make(TaskSchema, { id: `t${i}`, startUrl: `http://h${i % 3}.test/`, instruction: 'x', difficulty: 1 + (i % 2), suite: i % 2 ? 'a' : 'b' }),
);

void test('checkpoint round trip: weights, optimizer, counters and the loop state (scheduler, RNG, host windows) resume where they were', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-ckpt-'));
  try {
    const store = new CheckpointStore(dir);
    assert.equal(store.nextIncarnation(), 1);
    assert.equal(store.nextIncarnation(), 2, 'the start count is bumped and persisted at each start');
    assert.equal(new CheckpointStore(dir).nextIncarnation(), 3);

    const sched = new TaskScheduler(tasks, { seed: 5 });
    for (const t of sched.pick(4)) sched.record(t.id, 1);
    const windows = new HostFailureWindow({ threshold: 3, windowMs: 60_000 });
    windows.record('h1.test', 'init_error:dns', 1000);
    windows.record('h1.test', 'env_error:bot_wall', 2000);
    const model = initialModel({ dim: 64 });
    model.weights[3] = 0.25;
    const counters = make(RunCountersSchema, { dispatched: 20n, trainable: 18n, excluded: 2n });
    store.save({
      nextRound: 4,
      policyVersion: 3,
      model,
      optimizer: new Adam(64),
      counters,
      rounds: [],
      loop: {
        scheduler: sched.snapshot(),
        rng: 12345,
        hostWindows: windows.snapshot(),
        curriculumStage: 1,
        settledIds: ['r/3/0/0/0@1'],
        terminations: { completed: '18' },
        excluded: { 'init_error:dns': '2' },
      },
    });
    const back = store.load(64);
    assert.ok(back?.loop);
    assert.equal(back.nextRound, 4);
    assert.equal(back.policyVersion, 3);
    assert.equal(back.weights[3], 0.25);
    assert.equal(back.counters.dispatched, 20n);
    assert.deepEqual(back.loop.settledIds, ['r/3/0/0/0@1']);
    assert.equal(back.loop.rng, 12345);
    // The restored scheduler picks what the original picks next.
    const twin = new TaskScheduler(tasks, { seed: 999 });
    twin.restore(back.loop.scheduler);
    assert.deepEqual(
      twin.pick(5).map((t) => t.id),
      sched.pick(5).map((t) => t.id),
    );
    // The restored host window trips at the same failure as the original.
    const w2 = new HostFailureWindow({ threshold: 3, windowMs: 60_000 });
    w2.restore(back.loop.hostWindows);
    assert.equal(w2.record('h1.test', 'init_error:dns', 3000)?.failures, 3);

    // The round in progress: saved for round 4, ignored (and removed) when the checkpoint moved on.
    const ledger = new RoundLedger('r', 4, 3, 2);
    ledger.addGroup(0, tasks[0]!, 2);
    store.saveRound({ ledger: ledger.toJSON(), counters: {}, terminations: {}, excluded: {} });
    assert.equal(store.loadRound(4)?.ledger.groups.length, 1);
    assert.equal(store.loadRound(5), null);
    assert.equal(fs.existsSync(path.join(dir, 'round.json')), false);
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.includes('.tmp-')),
      [],
      'no temp files left behind',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('a damaged checkpoint or round file is refused with the file and field named, never used as cast', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-ckpt-bad-'));
  try {
    const store = new CheckpointStore(dir);
    store.save({ nextRound: 2, policyVersion: 1, model: initialModel({ dim: 8 }), optimizer: new Adam(8), counters: make(RunCountersSchema, {}), rounds: [], loop: { scheduler: new TaskScheduler(tasks).snapshot(), rng: 1, hostWindows: {}, curriculumStage: 0, settledIds: [], terminations: {}, excluded: {} } });
    assert.equal(store.load(8)?.nextRound, 2);
    const file = path.join(dir, 'checkpoint.json');
    const good = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    const damaged = (change: Record<string, unknown>): void => fs.writeFileSync(file, JSON.stringify({ ...good, ...change }));
    damaged({ nextRound: '2' });
    assert.throws(() => store.load(8), /checkpoint .*checkpoint\.json: field nextRound must be a non-negative integer, got "2"/);
    damaged({ weightsFile: '../../etc/passwd' });
    assert.throws(() => store.load(8), /weightsFile must name a file beside the manifest/);
    damaged({ loop: { ...(good['loop'] as object), settledIds: 'r/1/0/0/0' } });
    assert.throws(() => store.load(8), /loop: field settledIds must be an array/);
    damaged({ loop: { ...(good['loop'] as object), pendingUpdate: { round: 1, target: -1, summary: {} } } });
    assert.throws(() => store.load(8), /loop\.pendingUpdate: field target must be a non-negative integer, got -1/);
    damaged({ format: 2 });
    assert.throws(() => store.load(8), /unknown format 2/);
    fs.writeFileSync(file, '{"format":1,');
    assert.throws(() => store.load(8), /checkpoint .*: not valid JSON/);

    fs.writeFileSync(path.join(dir, 'round.json'), JSON.stringify({ ledger: { round: 'two' }, counters: {}, terminations: {}, excluded: {} }));
    assert.throws(() => store.loadRound(2), /round file .*: ledger: field round must be a non-negative integer, got "two"/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Asserts `op` throws a CHECKPOINT_CORRUPT (or `code`) CheckpointError naming `file` and `field`, its message matching `message`. */
function assertNames(op: () => unknown, file: string, field: string, message: RegExp, code = 'CHECKPOINT_CORRUPT'): void {
  assert.throws(op, (e: unknown) => {
    assert.ok(e instanceof CheckpointError, `a CheckpointError, got ${String(e)}`);
    assert.ok(e instanceof FatalRunError, 'a CheckpointError ends the run like any FatalRunError');
    assert.deepEqual([e.code, e.file, e.field], [code, file, field]);
    assert.match(e.message, message);
    assert.ok(e.message.includes(file), `the message names the file: ${e.message}`);
    return true;
  });
}

void test('a corrupt checkpoint file (cut short, a field of the wrong type, a field missing) is a coded error naming the file and the field', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-ckpt-corrupt-'));
  try {
    const store = new CheckpointStore(dir);
    const loop = { scheduler: new TaskScheduler(tasks).snapshot(), rng: 1, hostWindows: {}, curriculumStage: 0, settledIds: ['r/1/0/0/0', 'r/1/0/1/0'], terminations: {}, excluded: {} };
    store.save({ nextRound: 2, policyVersion: 1, model: initialModel({ dim: 8 }), optimizer: new Adam(8), counters: make(RunCountersSchema, {}), rounds: [], loop });
    const file = path.join(dir, 'checkpoint.json');
    const text = fs.readFileSync(file, 'utf8');
    const good = JSON.parse(text) as Record<string, unknown>;

    // Cut short inside the second settled id: the field it breaks off in is named.
    fs.writeFileSync(file, text.slice(0, text.indexOf('r/1/0/1/0') + 3));
    assertNames(() => store.load(8), file, 'loop.settledIds[1]', /: not valid JSON in or after field loop\.settledIds\[1\]/);
    // Cut short right after a whole field.
    fs.writeFileSync(file, '{"format":1,"nextRound":2,');
    assertNames(() => store.load(8), file, 'nextRound', /not valid JSON in or after field nextRound/);

    // A field of the wrong type, at the top level and inside the loop state.
    fs.writeFileSync(file, JSON.stringify({ ...good, temperature: '1' }));
    assertNames(() => store.load(8), file, 'temperature', /field temperature must be a number, got "1"/);
    fs.writeFileSync(file, JSON.stringify({ ...good, loop: { ...loop, rng: null } }));
    assertNames(() => store.load(8), file, 'loop.rng', /: loop: field rng must be a number, got null/);
    fs.writeFileSync(file, JSON.stringify({ ...good, loop: { ...loop, pendingUpdate: { round: 1, target: 2, summary: [] } } }));
    assertNames(() => store.load(8), file, 'loop.pendingUpdate.summary', /: loop\.pendingUpdate: field summary must be an object, got \[\]/);
    fs.writeFileSync(file, JSON.stringify({ ...good, loop: { ...loop, pendingUpdate: { round: 1, target: 2, summary: { round: 'one' } } } }));
    assertNames(() => store.load(8), file, 'loop.pendingUpdate.summary', /: loop\.pendingUpdate: field summary cannot be decoded/);

    // A field missing.
    const { counters: _counters, ...noCounters } = good;
    fs.writeFileSync(file, JSON.stringify(noCounters));
    assertNames(() => store.load(8), file, 'counters', /field counters must be an object, got nothing/);
    const { curriculumStage: _stage, ...noStage } = loop;
    fs.writeFileSync(file, JSON.stringify({ ...good, loop: noStage }));
    assertNames(() => store.load(8), file, 'loop.curriculumStage', /loop: field curriculumStage must be a non-negative integer, got nothing/);

    // The files the manifest names: cut short, or gone.
    fs.writeFileSync(file, text);
    const weights = path.join(dir, good['weightsFile'] as string);
    const optimizer = path.join(dir, good['optimizerFile'] as string);
    const weightBytes = fs.readFileSync(weights);
    fs.writeFileSync(weights, weightBytes.subarray(0, 10));
    assertNames(() => store.load(8), file, 'weightsFile', new RegExp(`${good['weightsFile'] as string} holds 10 bytes, expected 8`));
    fs.writeFileSync(weights, weightBytes.subarray(0, 16));
    assertNames(() => store.load(8), file, 'weightsFile', /holds 4 weights, expected 8/);
    fs.writeFileSync(weights, weightBytes);
    const adamBytes = fs.readFileSync(optimizer);
    fs.writeFileSync(optimizer, adamBytes.subarray(0, adamBytes.length - 1));
    assertNames(() => store.load(8), file, 'optimizerFile', /adam-r2-v1\.bin cannot be decoded: Adam state bytes are invalid/);
    fs.rmSync(optimizer);
    assertNames(() => store.load(8), file, 'optimizerFile', /adam-r2-v1\.bin cannot be read: ENOENT/);
    fs.writeFileSync(optimizer, adamBytes);
    assert.equal(store.load(8)?.nextRound, 2, 'whole again, it loads');

    // Made for another model.
    assertNames(() => store.load(16), file, 'dim', /feature dimension 8 differs from the model's 16/, 'CHECKPOINT_MISMATCH');

    // rounds.jsonl: a damaged line before the last.
    const roundsLog = path.join(dir, 'rounds.jsonl');
    fs.writeFileSync(roundsLog, '{"round":"x"}\n{"round":"1"}\n');
    assertNames(() => store.load(8), roundsLog, 'line 1', /rounds\.jsonl:1: not a round summary/);
    fs.writeFileSync(roundsLog, '');

    // The start count.
    fs.writeFileSync(path.join(dir, 'incarnation'), 'three\n');
    assertNames(() => store.nextIncarnation(), path.join(dir, 'incarnation'), 'start count', /"three\\n" is not a start count/);

    // round.json cut short, a journal line with a field of the wrong type.
    const roundFile = path.join(dir, 'round.json');
    const ledger = new RoundLedger('r', 2, 3, 1);
    ledger.addGroup(0, tasks[0]!, 2);
    store.saveRound({ ledger: ledger.toJSON(), counters: {}, terminations: {}, excluded: {} });
    const round = fs.readFileSync(roundFile, 'utf8');
    // Cut inside the key after `fate`: the last whole field read is named.
    fs.writeFileSync(roundFile, round.slice(0, round.indexOf('"samples"') + 4));
    assertNames(() => store.loadRound(2), roundFile, 'ledger.groups[0].fate', /round file .*round\.json: not valid JSON in or after field ledger\.groups\[0\]\.fate/);
    fs.writeFileSync(roundFile, round.slice(0, round.indexOf('"samples":[{') + '"samples":[{'.length));
    assertNames(() => store.loadRound(2), roundFile, 'ledger.groups[0].samples[0]', /in or after field ledger\.groups\[0\]\.samples\[0\]/);
    fs.writeFileSync(roundFile, round);
    const journal = path.join(dir, (JSON.parse(round) as { journal: string }).journal);
    fs.writeFileSync(journal, `${JSON.stringify({ ledger: { nextGroup: -1, consumed: [], groups: [] }, counters: {}, terminations: {}, excluded: {}, round: { decided: [] } })}\n{}\n`);
    assertNames(() => store.loadRound(2), journal, 'line 1: ledger.nextGroup', /round journal .*: line 1: ledger: field nextGroup must be a non-negative integer, got -1/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('jsonPathAt: the field a JSON text breaks off in, worked out by hand', () => {
  assert.deepEqual(jsonPathAt('{"a":{"b":[1,{"c":', 18), ['a', 'b', '[1]', 'c']);
  assert.deepEqual(jsonPathAt('{"a":1,"b":"x,y', 14), ['b'], 'a comma inside a string is not a separator');
  assert.deepEqual(jsonPathAt('{"a":{"k\\"q":[', 15), ['a', 'k"q', '[0]'], 'an escaped quote stays inside the key');
  assert.deepEqual(jsonPathAt('{"a":{"b":2},"c"', 16), ['c']);
  assert.deepEqual(jsonPathAt('{"a":{"b":2}', 12), ['a'], 'closed objects leave the path');
  assert.deepEqual(jsonPathAt('[', 1), ['[0]']);
  assert.deepEqual(jsonPathAt('', 0), []);
  assert.equal(jsonPathAt('{}x', null), null);
});

void test('a checkpoint folder that can no longer be written is the run\'s fatal error, naming the folder and the cause', () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-ckpt-gone-'));
  const dir = path.join(parent, 'checkpoint');
  try {
    const store = new CheckpointStore(dir);
    const round = { ledger: new RoundLedger('r', 0, 3, 1).toJSON(), counters: {}, terminations: {}, excluded: {} };
    store.saveRound(round);
    // The volume goes away: a file stands where the folder was.
    fs.renameSync(dir, `${dir}.away`);
    fs.writeFileSync(dir, 'not a folder\n');
    const fatal = (what: RegExp) => (e: unknown) => e instanceof FatalRunError && e.code === 'CHECKPOINT_FAILED' && what.test(e.message) && e.message.includes(dir) && /ENOTDIR/.test(e.message);
    assert.throws(() => store.saveRound(round), fatal(/^saving the round in progress in /));
    assert.throws(
      () => store.save({ nextRound: 1, policyVersion: 1, model: initialModel({ dim: 8 }), optimizer: new Adam(8), counters: make(RunCountersSchema, {}), rounds: [], loop: { scheduler: new TaskScheduler(tasks).snapshot(), rng: 1, hostWindows: {}, curriculumStage: 0, settledIds: [], terminations: {}, excluded: {} } }),
      fatal(/^saving the checkpoint in /),
    );
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});

void test('failure policy: transient errors back off and retry, a full stream waits, anything else is fatal', async () => {
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  let n = 0;
  const v = await withRetry(
    'op',
    async () => {
      if (++n < 3) throw new BusError(BusErrorCode.PublishTimeout, 'no PubAck');
      return 7;
    },
    { log: silentLogger, sleep, baseDelayMs: 10 },
  );
  assert.equal(v, 7);
  assert.deepEqual(sleeps, [10, 20]);

  const pressure: boolean[] = [];
  n = 0;
  await withRetry(
    'dispatch',
    async () => {
      if (++n < 6) throw new BusError(BusErrorCode.PublishRefused, 'maximum messages exceeded');
    },
    { log: silentLogger, sleep, budgetMs: 0, onBackpressure: (a) => pressure.push(a) },
  );
  assert.equal(n, 6, 'a full stream is waited out, whatever the transient budget');
  assert.deepEqual([pressure[0], pressure[pressure.length - 1]], [true, false]);

  await assert.rejects(
    withRetry('op', async () => Promise.reject(new BusError(BusErrorCode.Closed, 'closed')), { log: silentLogger, sleep }),
    (e: unknown) => e instanceof FatalRunError && e.code === 'BUS_CLOSED' && /op failed: closed/.test(e.message),
  );
  await assert.rejects(
    withRetry('op', async () => Promise.reject(new BusError(BusErrorCode.ApiFailed, 'api')), { log: silentLogger, sleep, budgetMs: 0 }),
    (e: unknown) => e instanceof FatalRunError && /kept failing/.test(e.message),
  );
});

void test('crash points kill at the named point and count, and bad values are named', () => {
  assert.equal(parseCrashAt(''), null);
  assert.deepEqual(parseCrashAt('in_flight:3'), { point: 'in_flight', nth: 3 });
  assert.throws(() => parseCrashAt('nowhere'), /OWRL_CRASH_AT="nowhere": expected one of dispatching/);
  let killed = 0;
  const c = new CrashPoints(parseCrashAt('publishing:2'), () => killed++);
  c.hit('dispatching');
  c.hit('publishing');
  assert.equal(killed, 0);
  c.hit('publishing');
  assert.equal(killed, 1);
});

void test('round file: a whole save, then a journal of deltas; the load applies them, ignores a torn last line and names a damaged one', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-ckpt-journal-'));
  try {
    const store = new CheckpointStore(dir);
    const ledger = new RoundLedger('r', 4, 3, 2);
    ledger.addGroup(0, tasks[0]!, 2);
    assert.equal(store.roundSaveDue(), true, 'nothing saved whole yet');
    assert.throws(() => store.appendRound({ ledger: ledger.takeDelta(), counters: {}, terminations: {}, excluded: {}, round: { terminations: {}, excluded: {}, decided: [] } }), /appendRound before saveRound/);
    ledger.markSaved();
    store.saveRound({ ledger: ledger.toJSON(), counters: { dispatched: '2' }, terminations: {}, excluded: {}, round: { decided: ['4/9'] } });
    assert.equal(store.roundSaveDue(), false);
    const ids = ledger.addGroup(1, tasks[1]!, 2);
    const delta = (dispatched: string, decided: string[]) => ({ ledger: ledger.takeDelta(), counters: { dispatched }, terminations: { completed: '1' }, excluded: {}, round: { terminations: { completed: 1 }, excluded: {}, decided } });
    store.appendRound(delta('4', []));
    ledger.ingest(make(ScoredTrajectorySchema, { trajectoryId: ids[0]!, trainable: false, excludedReason: 'dns' }));
    store.appendRound(delta('5', ['4/1']));
    const back = store.loadRound(4);
    assert.ok(back);
    assert.deepEqual(back.ledger, JSON.parse(JSON.stringify(ledger.toJSON())), 'the journal adds up to the ledger');
    assert.deepEqual(back.counters, { dispatched: '5' }, 'the last line has the counters');
    assert.deepEqual(back.round?.decided, ['4/9', '4/1']);
    assert.equal(RoundLedger.restore(back.ledger, 3).groups.get(1)?.samples[0]?.attempt, 1);

    // A crash mid-append leaves a torn last line: ignored (what it held was not acted on yet).
    const journal = path.join(dir, back.journal!);
    fs.appendFileSync(journal, '{"ledger":{"nextGroup":');
    assert.deepEqual(store.loadRound(4)?.counters, { dispatched: '5' });
    fs.appendFileSync(journal, '\n{}\n');
    assert.throws(() => store.loadRound(4), /round journal .*: line 3 is not valid JSON/);

    // A new whole save starts a new journal and removes the old one.
    store.saveRound({ ledger: ledger.toJSON(), counters: {}, terminations: {}, excluded: {} });
    assert.equal(fs.existsSync(journal), false);
    assert.equal(fs.readdirSync(dir).filter((f) => f.endsWith('.journal')).length, 1);
    assert.equal(store.loadRound(5), null, 'a round file of another round is stale');
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.startsWith('round')), [], 'removed with its journal');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('an async round checkpointed twice (update written ahead, then trained) keeps each save whole: the pending one until the trained one replaces it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-ckpt-pending-'));
  try {
    const store = new CheckpointStore(dir);
    const loop = { scheduler: new TaskScheduler(tasks).snapshot(), rng: 1, hostWindows: {}, curriculumStage: 0, settledIds: ['r/1/0/0/0'], terminations: {}, excluded: {} };
    const base = initialModel({ dim: 8 });
    base.weights.fill(0.5);
    store.save({ nextRound: 3, policyVersion: 2, model: base, optimizer: new Adam(8), counters: make(RunCountersSchema, {}), rounds: [], loop: { ...loop, pendingUpdate: { round: 2, target: 3, summary: { round: '2' } } } });
    const before = fs.readdirSync(dir).filter((f) => f.startsWith('weights-'));
    const pending = store.load(8);
    assert.deepEqual(pending?.loop?.pendingUpdate, { round: 2, target: 3, summary: { round: '2' } });
    assert.deepEqual([...(pending?.weights ?? [])], Array(8).fill(0.5));
    const trained = initialModel({ dim: 8 });
    trained.weights.fill(0.75);
    store.save({ nextRound: 3, policyVersion: 3, model: trained, optimizer: new Adam(8), counters: make(RunCountersSchema, {}), rounds: [], loop });
    const after = fs.readdirSync(dir).filter((f) => f.startsWith('weights-'));
    assert.equal(after.length, 1);
    assert.ok(!before.includes(after[0]!), 'the trained weights went to a new file, not over the one the pending checkpoint names');
    const done = store.load(8);
    assert.equal(done?.loop?.pendingUpdate, undefined);
    assert.deepEqual([done?.policyVersion, ...(done?.weights ?? [])], [3, ...Array(8).fill(0.75)]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
