// JSONL task files: round trip, validation messages naming line and field, real-web tasks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toJson, TaskSchema } from '@owrl/proto';
import { parseTaskFile, parseTaskLine, readTaskFile, TaskError, writeTaskFile } from '../src/index.js';
import { generateShopTasks } from '../src/shop/index.js';

const ok = { id: 'web/1', suite: 'webvoyager', startUrl: 'https://example.com/', instruction: 'Find the opening hours.', difficulty: 3 };
const line = (o: Record<string, unknown>) => JSON.stringify(o);

function rejects(text: string, lineNo: number, field: string | undefined, re: RegExp): void {
  assert.throws(
    () => parseTaskFile(text),
    (e: unknown) => {
      assert.ok(e instanceof TaskError, String(e));
      assert.equal(e.code, 'TASK_INVALID');
      assert.equal(e.line, lineNo);
      assert.equal(e.field, field);
      assert.match(e.message, new RegExp(`^line ${lineNo}: `));
      assert.match(e.message, re);
      return true;
    },
  );
}

void test('write then read gives the same tasks', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'owrl-tasks-'));
  try {
    const tasks = generateShopTasks({ seed: 4, n: 16, baseUrl: 'http://127.0.0.1:8400' });
    const path = join(dir, 'shop.jsonl');
    await writeTaskFile(path, tasks);
    const back = await readTaskFile(path);
    assert.deepEqual(back.map((t) => toJson(TaskSchema, t)), tasks.map((t) => toJson(TaskSchema, t)));
    await writeFile(path, `${line(ok)}\n${line({ ...ok, id: 'web/2', startUrl: 'gopher://x' })}\n`);
    await assert.rejects(readTaskFile(path), (e: unknown) => e instanceof TaskError && e.line === 2 && e.message.startsWith(`${path}: line 2: start_url`));
    await assert.rejects(readTaskFile(join(dir, 'missing.jsonl')), (e: unknown) => e instanceof TaskError && e.code === 'TASK_FILE_IO');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

void test('a real-website task without verifier is valid; snake_case field names are accepted', () => {
  const t = parseTaskLine(line(ok), 1);
  assert.equal(t.schemaVersion, 1);
  assert.equal(t.verifier, undefined);
  const s = parseTaskLine(line({ id: 'w', suite: 's', start_url: 'http://a.b/', instruction: 'x', difficulty: '2' }), 1);
  assert.equal(s.startUrl, 'http://a.b/');
  assert.equal(s.difficulty, 2);
  assert.equal(parseTaskFile(`\n${line(ok)}\n\n`).length, 1);
});

void test('validation errors name the line and the field', () => {
  const good = line(ok);
  rejects(`${good}\n${good.replace('web/1', 'web/2')}\n${line({ ...ok, id: 'web/3', startUrl: 'ftp://x' })}`, 3, 'start_url', /start_url "ftp:\/\/x" must be http\(s\)/);
  rejects(line({ ...ok, instruction: '  ' }), 1, 'instruction', /instruction is missing/);
  const { instruction: _i, ...noInstr } = ok;
  rejects(line(noInstr), 1, 'instruction', /instruction is missing/);
  rejects(line({ ...ok, difficulty: 0 }), 1, 'difficulty', /difficulty 0 must be a positive integer/);
  rejects(line({ ...ok, difficulty: 1.5 }), 1, 'difficulty', /difficulty 1.5 must be a positive integer/);
  rejects(line({ ...ok, difficulty: -2 }), 1, 'difficulty', /difficulty -2/);
  const { difficulty: _d, ...noDiff } = ok;
  rejects(line(noDiff), 1, 'difficulty', /difficulty 0 is missing or not a positive integer/);
  rejects(line({ ...ok, verifier: { answer: { accepted: [] } } }), 1, 'verifier.answer.accepted', /verifier\.answer\.accepted has no accepted strings/);
  rejects(line({ ...ok, verifier: { answer: { accepted: ['a', ' '] } } }), 1, 'verifier.answer.accepted', /accepted\[1\] is empty/);
  rejects(line({ ...ok, verifier: {} }), 1, 'verifier', /verifier has no kind/);
  rejects(line({ ...ok, verifier: { siteState: { endpoint: 'http://h/v', specJson: '{' } } }), 1, 'verifier.site_state.spec_json', /not JSON/);
  rejects(line({ ...ok, verifier: { siteState: { endpoint: 'file:///v', specJson: '{}' } } }), 1, 'verifier.site_state.endpoint', /must be http\(s\)/);
  rejects(line({ ...ok, id: '' }), 1, 'id', /id is missing/);
  rejects(line({ ...ok, schemaVersion: 2 }), 1, 'schema_version', /schema_version 2 is not supported/);
  rejects(`${good}\n${good}`, 2, 'id', /id "web\/1" repeats line 1/);
  rejects('{"id": ', 1, undefined, /not valid JSON/);
  rejects('[1]', 1, undefined, /must be a JSON object/);
  rejects(line({ ...ok, colour: 'red' }), 1, undefined, /colour/);
  rejects(line({ ...ok, startUrl: 'ftp://x', instruction: '' }), 1, 'start_url', /start_url .*; instruction is missing/);
});
