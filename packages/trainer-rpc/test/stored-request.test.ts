// The written-ahead request file: what is written reads back equal; a missing file is none; a
// torn or foreign file is an error naming the file and the byte; the thread-pool writer stores the
// same bytes without decoding the traces it is handed still encoded.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { create, decodeTrajectoryLazy, encode, equals, make, pendingTraceBytes, shareTrace, StepSchema, TrainGroupSchema, TrainHeaderSchema, TrainSampleSchema, TrainStepSchema, TrajectorySchema } from '@owrl/proto';
import { readStoredRequest, writeStoredRequest, writeStoredRequestAsync } from '@owrl/trainer-rpc';
import { header, tokenGroups } from './helpers.js';

void test('a stored request reads back whole; missing is none; torn or foreign is named', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-stored-'));
  try {
    const file = path.join(dir, 'batch-v1.pb');
    assert.equal(readStoredRequest(file), undefined);
    const groups = tokenGroups(3);
    writeStoredRequest(file, header(0n), groups);
    assert.ok(!fs.existsSync(`${file}.tmp`), 'the temporary file is renamed into place');
    const back = readStoredRequest(file);
    assert.ok(back && equals(TrainHeaderSchema, back.header, header(0n)));
    assert.equal(back.groups.length, groups.length);
    back.groups.forEach((g, i) => assert.ok(equals(TrainGroupSchema, g, groups[i]!), `group ${i}`));
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, bytes.subarray(0, bytes.length - 3));
    assert.throws(() => readStoredRequest(file), /batch-v1\.pb: truncated at byte \d+ \(a chunk of \d+ bytes is cut off\)/);
    fs.writeFileSync(file, Buffer.from([0, 0, 0, 2, 0xff, 0xff]));
    assert.throws(() => readStoredRequest(file), /batch-v1\.pb: the chunk at byte 0 is not a TrainChunk/);
    fs.writeFileSync(file, Buffer.alloc(0));
    assert.throws(() => readStoredRequest(file), /batch-v1\.pb holds no update header/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('the thread-pool writer stores the same request, copying traces still encoded without decoding them', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-stored-'));
  try {
    const groups = tokenGroups(3);
    // The same groups with every trace still encoded (as the learner hands over held results).
    const lazy = groups.map((g) =>
      create(TrainGroupSchema, {
        ...g,
        samples: g.samples.map((s) => {
          const t = decodeTrajectoryLazy(encode(TrajectorySchema, make(TrajectorySchema, { steps: s.steps.map((st) => create(StepSchema, { index: st.index, ...(st.trace ? { trace: st.trace } : {}) })) })));
          return create(TrainSampleSchema, {
            ...s,
            steps: t.steps.map((st) => {
              const out = create(TrainStepSchema, { index: st.index });
              shareTrace(st, out);
              return out;
            }),
          });
        }),
      }),
    );
    const steps = lazy.flatMap((g) => g.samples.flatMap((s) => s.steps));
    assert.ok(steps.length > 0 && steps.every((st) => pendingTraceBytes(st) !== undefined));
    const plain = path.join(dir, 'plain.pb');
    const ahead = path.join(dir, 'ahead.pb');
    writeStoredRequest(plain, header(0n), groups);
    await writeStoredRequestAsync(ahead, header(0n), lazy);
    assert.ok(steps.every((st) => pendingTraceBytes(st) !== undefined), 'writing decoded a trace');
    assert.ok(!fs.existsSync(`${ahead}.tmp`), 'the temporary file is renamed into place');
    assert.deepEqual(fs.readFileSync(ahead), fs.readFileSync(plain));
    const back = readStoredRequest(ahead);
    assert.ok(back && back.groups.every((g, i) => equals(TrainGroupSchema, g, groups[i]!)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
