// StepSpill: the learner's held results' steps on disk. Trajectories as the learner receives them
// (the judge's scored message with the trajectory's bytes embedded, decoded lazily): their steps go
// to segment files and are read back whole by every reader; a segment is deleted once the
// trajectories spilled into it are collected; small steps and a failing disk keep the steps in
// memory, so nothing is lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { create, decode, decodeScoredLazy, encode, encodeWithField, equals, make, prefetchSteps, ScoredTrajectorySchema, StepSchema, stepCount, stepTraces, TrajectorySchema, VerdictSchema, type ScoredTrajectory } from '@owrl/proto';
import { silentLogger, type Logger } from '@owrl/core';
import { StepSpill } from '../src/step-spill.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** The bytes of a scored trajectory of `steps` steps with `textBytes` of reasoning each. */
function scoredBytes(id: number, steps: number, textBytes: number): Uint8Array {
  const t = make(TrajectorySchema, {
    trajectoryId: `run/0/${id}/0/0@1`,
    steps: Array.from({ length: steps }, (_, i) => create(StepSchema, { index: i, reasoning: `${id}:${i} ${'x'.repeat(textBytes)}` })),
  });
  return encodeWithField(ScoredTrajectorySchema, make(ScoredTrajectorySchema, { trajectoryId: t.trajectoryId, verdict: create(VerdictSchema, { reward: 1 }) }), 'trajectory', encode(TrajectorySchema, t));
}

function tempDir(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-spill-')), 'spill');
}

const files = (dir: string) => fs.readdirSync(dir).sort();

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
}

void test('held results\' steps go to segment files and come back whole; a segment goes once its trajectories are collected', async () => {
  const dir = tempDir();
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'steps-0.bin'), 'left by an earlier process');
  const spill = new StepSpill(dir, { logger: silentLogger, segmentBytes: 64 * 1024 });
  assert.deepEqual(files(dir), [], 'an earlier process\'s spill is removed at start');
  let held: ScoredTrajectory[] = [];
  const originals: Uint8Array[] = [];
  for (let i = 0; i < 24; i++) {
    const bytes = scoredBytes(i, 5, 2000);
    originals.push(bytes.slice());
    const s = decodeScoredLazy(bytes);
    const moved = spill.spill(s.trajectory!);
    assert.ok(moved > 10_000 && moved < bytes.length, `moved ${moved} of ${bytes.length}`);
    bytes.fill(0); // what was delivered is gone
    held.push(s);
  }
  const st = spill.stats();
  assert.equal(st.spilled, 24);
  assert.equal(st.failed, 0);
  assert.ok(st.segments >= 3, `${st.segments} segments of at most 64 KiB`);
  assert.equal(files(dir).length, st.segments);
  assert.ok(st.diskBytes === st.spilledBytes);
  // Read back: counted without a read, the update's traces, then whole (equal to a full decode).
  assert.equal(stepCount(held[3]!.trajectory!), 5);
  assert.deepEqual(
    stepTraces(held[3]!.trajectory!).map((h) => h.index),
    [0, 1, 2, 3, 4],
  );
  // Read ahead in the thread pool, into buffers of 64 KiB (what the learner does before building an update), every other one.
  await prefetchSteps(held.filter((_, i) => i % 2 === 0).map((s) => s.trajectory!), 64 * 1024);
  for (const [i, s] of held.entries()) assert.ok(equals(ScoredTrajectorySchema, s, decode(ScoredTrajectorySchema, originals[i]!)), `trajectory ${i} read back whole`);

  // The results are released (their round's retention ended): every full segment goes.
  held = [];
  await until(() => files(dir).length === 1, 'the full segments to be deleted');
  assert.equal(spill.stats().segments, 1, 'the segment being written stays');
  spill.close();
  assert.deepEqual(files(dir), []);
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
});

void test('small steps stay in memory, and so do the steps of a spill that cannot write (warned once): nothing is lost', () => {
  const dir = tempDir();
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (_o: object, msg?: string) => void warnings.push(msg ?? ''), child: () => logger };
  const spill = new StepSpill(dir, { logger });
  const small = decodeScoredLazy(scoredBytes(1, 2, 100));
  assert.equal(spill.spill(small.trajectory!), 0, 'under 4 KiB: kept');
  assert.equal(spill.stats().spilled, 0);

  // The disk goes away before the first segment: a file stands where the folder was.
  fs.rmSync(dir, { recursive: true });
  fs.writeFileSync(dir, 'not a folder');
  const bytes = scoredBytes(2, 5, 2000);
  const a = decodeScoredLazy(bytes);
  const b = decodeScoredLazy(scoredBytes(3, 5, 2000));
  assert.equal(spill.spill(a.trajectory!), 0);
  assert.equal(spill.spill(b.trajectory!), 0);
  assert.equal(spill.stats().failed, 2);
  assert.deepEqual(warnings, ['spilling held results to disk failed: their steps stay in memory (warned once)']);
  assert.ok(equals(ScoredTrajectorySchema, a, decode(ScoredTrajectorySchema, bytes)), 'the steps are still there');
  assert.equal(b.trajectory?.steps.length, 5);
  spill.close();
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
});
