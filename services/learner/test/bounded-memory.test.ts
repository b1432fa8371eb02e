// A long run stays bounded: checkpoint.json costs the same at round 500 as at round 5 (round
// summaries go to the append-only rounds.jsonl), RunState.rounds is thinned, and the control
// surface releases the ledgers (with their trajectories) of rounds past OWRL_KEEP_ROUNDS,
// answering NOT_FOUND "released" over a real gRPC socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { initialModel } from '@owrl/policy';
import {
  DifficultyStatSchema,
  EpochStatSchema,
  FamilyStatSchema,
  GetTrajectoryRequestSchema,
  grpcServiceDefinition,
  Learner,
  ListGroupsRequestSchema,
  make,
  RolloutRequestSchema,
  RoundSummarySchema,
  RunCountersSchema,
  ScoredTrajectorySchema,
  SuiteStatSchema,
  TaskSchema,
  TrajectorySchema,
  VerdictSchema,
  type ListGroupsResponse,
  type RoundSummary,
} from '@owrl/proto';
import { Adam } from '@owrl/rl';
import { silentLogger } from '@owrl/core';
import { CheckpointStore, ROUNDS_LOG, type CheckpointData } from '../src/checkpoint.js';
import { loadLearnerConfig } from '../src/config.js';
import { RunControl } from '../src/control.js';
import { LearnerGrpcServer } from '../src/grpc-server.js';
import { RoundLedger } from '../src/round-ledger.js';
import { thinRounds } from '../src/round-history.js';
import { RunStateStore } from '../src/run-state-store.js';

/** A summary shaped like the learner's (update health, breakdowns), about 1 KB as JSON. */
function summary(round: number): RoundSummary {
  return make(RoundSummarySchema, {
    round: BigInt(round),
    policyVersion: BigInt(round),
    maxSteps: 15,
    episodes: 40,
    successes: round % 40,
    successRate: (round % 40) / 40,
    groupsKept: 6,
    terminations: { COMPLETED: 30, STEP_BUDGET_EXHAUSTED: 10 },
    excluded: { 'env_error:connection_reset': 1 },
    byDifficulty: [1, 2, 3].map((d) => make(DifficultyStatSchema, { difficulty: d, episodes: 13, successes: 5 })),
    bySuite: ['shop', 'wiki', 'mail', 'travel'].map((s) => make(SuiteStatSchema, { suite: s, episodes: 10, successes: 4 })),
    byFamily: ['price', 'sku', 'add_to_cart', 'search'].map((f) => make(FamilyStatSchema, { suite: 'shop', family: f, episodes: 10, successes: 3 })),
    epochs: [0, 1].map((e) => make(EpochStatSchema, { epoch: e, loss: 0.1234, clipFraction: 0.12, approxKl: 0.01, gradNorm: 1.5, meanRatio: 1, learningRate: 0.05 })),
    wallS: 30.5,
    finishedAtMs: BigInt(1_780_000_000_000 + round),
  });
}

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-bounded-'));
}

/** One end-of-round save as the learner makes it: the rounds so far, counters grown with the run. */
function checkpointOf(round: number, rounds: RoundSummary[], model = initialModel({ dim: 256 }), optimizer = new Adam(256)): CheckpointData {
  return {
    nextRound: round + 1,
    policyVersion: round + 1,
    model,
    optimizer,
    counters: make(RunCountersSchema, { dispatched: BigInt(40 * (round + 1)), trainable: BigInt(39 * (round + 1)), updates: BigInt(round + 1) }),
    rounds,
    loop: { scheduler: { rng: 1, turn: round, history: {}, levelHistory: {} }, rng: 7, hostWindows: {}, curriculumStage: 0, settledIds: [`r/${round}/0/0/0@1`], terminations: {}, excluded: {} },
  };
}

void test('checkpoint.json costs the same at round 500 as at round 5; rounds.jsonl grows by one line a round and reads back whole', () => {
  const dir = tmp();
  try {
    const store = new CheckpointStore(dir);
    const rounds: RoundSummary[] = [];
    const manifest = path.join(dir, 'checkpoint.json');
    const log = path.join(dir, ROUNDS_LOG);
    const sizes = new Map<number, number>();
    let prevLog = 0;
    const lineGrowth: number[] = [];
    for (let round = 0; round < 500; round++) {
      rounds.push(summary(round));
      store.save(checkpointOf(round, rounds));
      sizes.set(round + 1, fs.statSync(manifest).size);
      const logSize = fs.statSync(log).size;
      lineGrowth.push(logSize - prevLog);
      prevLog = logSize;
    }
    const at5 = sizes.get(5) ?? 0;
    const at500 = sizes.get(500) ?? 0;
    // Only digits of counters and round numbers grow (a handful of bytes); one inline summary is ~1 KB.
    assert.ok(at500 - at5 < 40, `checkpoint.json: ${at5} bytes at round 5, ${at500} at round 500`);
    // Each save appended the one new round (one line of about 1 KB), never rewrote the log.
    assert.ok(Math.max(...lineGrowth) < 1.5 * Math.min(...lineGrowth), `appended per save: ${Math.min(...lineGrowth)}–${Math.max(...lineGrowth)} bytes`);
    assert.equal(fs.readFileSync(log, 'utf8').trim().split('\n').length, 500);

    const back = new CheckpointStore(dir).load(256);
    assert.ok(back);
    assert.equal(back.nextRound, 500);
    assert.equal(back.rounds.length, 500);
    assert.deepEqual(back.rounds.map((r) => Number(r.round)), Array.from({ length: 500 }, (_, i) => i));
    assert.equal(back.rounds[123]?.successes, 123 % 40);
    assert.equal(back.rounds[499]?.bySuite.length, 4);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('a crash mid-save: a torn last line and rounds the checkpoint never committed are dropped, and not logged twice after the resume', () => {
  const dir = tmp();
  try {
    const first = new CheckpointStore(dir);
    const rounds = [0, 1, 2].map(summary);
    first.save(checkpointOf(2, rounds));
    const log = path.join(dir, ROUNDS_LOG);
    // Round 3 was appended but the learner died before checkpoint.json moved on; then a torn line.
    fs.appendFileSync(log, JSON.stringify({ round: '3', episodes: 40 }) + '\n' + '{"round":"4","epis');

    const resumed = new CheckpointStore(dir);
    const back = resumed.load(256);
    assert.deepEqual(back?.rounds.map((r) => Number(r.round)), [0, 1, 2]);
    assert.equal(fs.readFileSync(log, 'utf8').trim().split('\n').length, 3, 'the log was cut back to what the checkpoint committed');

    // The resumed learner finishes round 3 again: it is logged once, with its new summary.
    const again = summary(3);
    again.episodes = 17;
    resumed.save(checkpointOf(3, [...(back?.rounds ?? []), again]));
    const after = new CheckpointStore(dir).load(256);
    assert.deepEqual(after?.rounds.map((r) => Number(r.round)), [0, 1, 2, 3]);
    assert.equal(after?.rounds[3]?.episodes, 17);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('a checkpoint written before rounds.jsonl (rounds inline) resumes with its rounds; a fresh run restarts the log', () => {
  const dir = tmp();
  try {
    const store = new CheckpointStore(dir);
    store.save(checkpointOf(1, [summary(0), summary(1)]));
    // Rewrite the manifest the old way: rounds inline, no log.
    const file = path.join(dir, 'checkpoint.json');
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    delete m['roundsLog'];
    m['rounds'] = [{ round: '0', episodes: 5 }, { round: '1', episodes: 6 }];
    fs.writeFileSync(file, JSON.stringify(m));
    fs.rmSync(path.join(dir, ROUNDS_LOG));
    const back = new CheckpointStore(dir).load(256);
    assert.deepEqual(back?.rounds.map((r) => r.episodes), [5, 6]);
    assert.equal(fs.readFileSync(path.join(dir, ROUNDS_LOG), 'utf8').trim().split('\n').length, 2);

    // A run started without resuming (no load) over the same folder starts its history anew.
    const fresh = new CheckpointStore(dir);
    fresh.save(checkpointOf(0, [summary(0)]));
    assert.deepEqual(new CheckpointStore(dir).load(256)?.rounds.map((r) => Number(r.round)), [0]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('RunState.rounds stays bounded: the latest rounds in full, older ones evenly thinned from round 0', () => {
  // Hand-worked: 1000 rounds, 200 recent (800–999) + at most 200 older of 0–799: stride 2 leaves
  // 400, stride 4 leaves 200 (0, 4, …, 796).
  const all = Array.from({ length: 1000 }, (_, i) => summary(i));
  const thin = thinRounds(all, { recent: 200, older: 200 });
  assert.equal(thin.length, 400);
  assert.deepEqual(thin.slice(0, 3).map((r) => Number(r.round)), [0, 4, 8]);
  assert.equal(Number(thin[199]?.round), 796);
  assert.deepEqual(thin.slice(200).map((r) => Number(r.round)), Array.from({ length: 200 }, (_, i) => 800 + i));
  assert.equal(thinRounds(all.slice(0, 400), { recent: 200, older: 200 }).length, 400, 'within the limits nothing is dropped');

  const store = new RunStateStore('run-long', 5000, 'sync', { recent: 50, older: 20 });
  let maxLen = 0;
  for (let round = 0; round < 3000; round++) {
    store.change('update', (s) => s.rounds.push(summary(round)));
    maxLen = Math.max(maxLen, store.mutable.rounds.length);
  }
  const s = store.get();
  assert.ok(maxLen <= 70, `RunState.rounds reached ${maxLen} entries`);
  assert.equal(Number(s.rounds[0]?.round), 0);
  assert.deepEqual(s.rounds.slice(-50).map((r) => Number(r.round)), Array.from({ length: 50 }, (_, i) => 2950 + i));
  assert.throws(() => new RunStateStore('r', 1, 'sync', { recent: 2 }), /recent rounds kept is 2/);
});

function scored(id: string, taskId: string, reward: number) {
  return make(ScoredTrajectorySchema, {
    trajectoryId: id,
    trainable: true,
    verdict: make(VerdictSchema, { reward, success: reward > 0 }),
    trajectory: make(TrajectorySchema, { trajectoryId: id, request: make(RolloutRequestSchema, { task: make(TaskSchema, { id: taskId }) }) }),
  });
}

type Cb<T> = (e: grpc.ServiceError | null, r: T) => void;

void test('ledgers past OWRL_KEEP_ROUNDS are released: ListGroups and GetTrajectory of such a round answer NOT_FOUND "released" over gRPC', async () => {
  const store = new RunStateStore('run-k', 10, 'sync');
  const control = new RunControl(store, () => {}, { keepRounds: 2 });
  const ids: string[] = [];
  for (let round = 0; round < 6; round++) {
    const ledger = new RoundLedger('run-k', round, 3, 1);
    const task = make(TaskSchema, { id: `task-${round}`, startUrl: 'http://h.test/', instruction: 'x', difficulty: 1 });
    const [a, b] = ledger.addGroup(0, task, 2);
    ledger.ingest(scored(a ?? '', task.id, 1));
    ledger.ingest(scored(b ?? '', task.id, 0));
    ids.push(a ?? '');
    control.remember(ledger);
  }
  // Round 5 in progress plus the last 2 finished rounds.
  assert.deepEqual(control.heldRounds, [3, 4, 5]);

  const server = new LearnerGrpcServer(store, control, { port: 0, host: '127.0.0.1', controlToken: '', logger: silentLogger });
  const port = await server.start();
  const Client = grpc.makeGenericClientConstructor(grpcServiceDefinition(Learner) as unknown as grpc.ServiceDefinition, 'Learner');
  const c = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as Record<string, (req: unknown, md: grpc.Metadata, cb: Cb<unknown>) => void>;
  const call = <T>(m: string, req: unknown) => new Promise<T>((resolve, reject) => c[m]!.call(c, req, new grpc.Metadata(), (e, r) => (e ? reject(e) : resolve(r as T))));
  try {
    const held = await call<ListGroupsResponse>('listGroups', make(ListGroupsRequestSchema, { round: 4n }));
    assert.equal(held.groups[0]?.taskId, 'task-4');
    assert.deepEqual(held.groups[0]?.rewards, [1, 0]);
    const t = await call<{ trajectoryId: string }>('getTrajectory', make(GetTrajectoryRequestSchema, { trajectoryId: ids[3] ?? '' }));
    assert.equal(t.trajectoryId, ids[3]);

    const released = (e: grpc.ServiceError) => e.code === grpc.status.NOT_FOUND && /released/.test(e.details) && /OWRL_KEEP_ROUNDS/.test(e.details);
    await assert.rejects(call('listGroups', make(ListGroupsRequestSchema, { round: 2n })), released);
    await assert.rejects(call('getTrajectory', make(GetTrajectoryRequestSchema, { trajectoryId: ids[0] ?? '' })), released);
    await assert.rejects(
      call('listGroups', make(ListGroupsRequestSchema, { round: 9n })),
      (e: grpc.ServiceError) => e.code === grpc.status.NOT_FOUND && /latest round is 5/.test(e.details),
    );
    for (const unknown of ['run-k/4/7/0/0@1', 'other-run/0/0/0/0@1']) {
      await assert.rejects(
        call('getTrajectory', make(GetTrajectoryRequestSchema, { trajectoryId: unknown })),
        (e: grpc.ServiceError) => e.code === grpc.status.NOT_FOUND && /unknown id/.test(e.details),
        unknown,
      );
    }
  } finally {
    (c as unknown as grpc.Client).close();
    await server.close();
  }
  assert.throws(() => loadLearnerConfig({ OWRL_RUN_ID: 'r', OWRL_SITES_URL: 'http://127.0.0.1:1', OWRL_KEEP_ROUNDS: '-1' }), /OWRL_KEEP_ROUNDS/);
});
