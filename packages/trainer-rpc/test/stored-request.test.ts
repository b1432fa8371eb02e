// The written-ahead request file: what is written reads back equal; a missing file is none; a
// torn or foreign file is an error naming the file and the byte.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { equals, TrainGroupSchema, TrainHeaderSchema } from '@owrl/proto';
import { readStoredRequest, writeStoredRequest } from '@owrl/trainer-rpc';
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
