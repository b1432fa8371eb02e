// `owrl train --check` as the built CLI in a child process, against real servers: a nats-server
// and the bundled sites started by the command, the test kit's stand-in vLLM server and stand-in
// GPU trainer over real sockets, a tiny ONNX judge model built here. Every example passes (with
// the environment pointing its endpoints here); each class of bad file exits 2 at its line and
// starts nothing; the preflight fails naming what is wrong: an engine without token ids
// (`return_token_ids`), a trainer whose versions the engine cannot load, a base-model mismatch,
// a private start URL the fence refuses, an unreachable NATS; --skip-preflight says what it skipped.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeTinyDecoderJudge } from '@owrl/judge-model/testing';
import { startChatServer, startFakeTrainer, type ChatServerDouble, type FakeTrainerDouble } from '@owrl/testkit';
import { EXAMPLES, owrl } from './train-helpers.js';

const QWEN = 'Qwen/Qwen3-VL-4B-Instruct';
const done = { toolCalls: [{ name: 'done', arguments: { response: 'ok' } }] };
let dir: string;
let cwd: string;
const open: Array<{ close(): Promise<void> }> = [];

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-train-check-'));
  cwd = path.join(dir, 'cwd');
  fs.mkdirSync(cwd);
});
after(async () => {
  for (const o of open) await o.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function chat(o: Parameters<typeof startChatServer>[0] = {}): Promise<ChatServerDouble> {
  const c = await startChatServer({ engine: 'vllm', baseModel: QWEN, fallback: () => done, ...o });
  open.push(c);
  return c;
}

async function trainer(o: Partial<Parameters<typeof startFakeTrainer>[0]> = {}): Promise<FakeTrainerDouble> {
  const t = await startFakeTrainer({ dir: fs.mkdtempSync(path.join(dir, 'trainer-')), baseModel: QWEN, token: 'trainer-token', ...o });
  open.push(t);
  return t;
}

const vllmEnv = (c: ChatServerDouble, t: FakeTrainerDouble): Record<string, string> => ({ OWRL_POLICY_BASE_URL: c.url, OWRL_TRAINER: t.address, OWRL_TRAINER_TOKEN: 'trainer-token' });

void test('--check passes on every example (their endpoints pointed here through the environment)', async () => {
  const demo = await owrl(['train', '--check', path.join(EXAMPLES, 'demo.yaml')], { cwd });
  assert.equal(demo.code, 0, demo.stdout + demo.stderr);
  assert.match(demo.stdout, /preflight ok   tasks: 240 tasks \(60 from suite shop, 60 from suite travel, 60 from suite wiki, 60 from suite mail\)/);
  assert.match(demo.stdout, /preflight ok   tasks\.urls: 1 of 1 start hosts answer through the fence \(127\.0\.0\.1:\d+ 200\)/);
  assert.match(demo.stdout, /preflight passed \(6 checks\)/);

  const model = path.join(dir, 'judge-model');
  writeTinyDecoderJudge(model, { seed: 5 });
  // the real websites cannot be reached from here: their check is skipped, and says so
  const real = await owrl(['train', '--check', '--skip-preflight=tasks', path.join(EXAMPLES, 'real-web.yaml')], { cwd, env: { OWRL_JUDGE_MODEL: model } });
  assert.equal(real.code, 0, real.stdout + real.stderr);
  assert.match(real.stdout, /preflight SKIPPED tasks \(--skip-preflight\): those parts were not checked/);
  assert.match(real.stdout, new RegExp(`preflight ok   judge: ONNX judge model ${model} reads`));
  assert.match(real.stdout, /environment overrides the run file: OWRL_JUDGE_MODEL \(judge\.model_dir\)/);

  const c = await chat();
  const t = await trainer();
  const vllm = await owrl(['train', '--check', path.join(EXAMPLES, 'vllm-qwen3vl.yaml')], { cwd, env: vllmEnv(c, t) });
  assert.equal(vllm.code, 0, vllm.stdout + vllm.stderr);
  assert.match(vllm.stdout, /preflight ok   trainer\.health: 127\.0\.0\.1:\d+ is SERVING/);
  assert.match(vllm.stdout, /preflight ok   trainer\.handshake: fake-gpu-trainer\/1: base model "Qwen\/Qwen3-VL-4B-Instruct", takes tokens traces, produces lora-adapter versions/);
  assert.match(vllm.stdout, /preflight ok   trainer\.versions: lora-adapter versions, which vllm loads/);
  assert.ok(c.requests.length >= 1, 'the engine got the probe request');

  const judge = await chat({ baseModel: 'gpt-4o-mini', apiKey: 'judge-key', fallback: () => ({ content: 'yes' }) });
  const api = await owrl(['train', '--check', path.join(EXAMPLES, 'api-judge.yaml')], { cwd, env: { OPENAI_API_KEY: 'judge-key', OWRL_JUDGE_API_URL: judge.url } });
  assert.equal(api.code, 0, api.stdout + api.stderr);
  assert.match(api.stdout, /preflight ok   judge: judge model "gpt-4o-mini" at .* answers/);
  assert.equal(judge.requests.at(-1)?.authorization, 'Bearer judge-key', 'the key came from the variable the file names');
  assert.deepEqual(fs.readdirSync(cwd), [], '--check writes no run folder');
});

void test('a bad run file exits 2 with FILE:LINE:COL: key: message and starts nothing', async () => {
  const cases: Array<[string, string]> = [
    ['tasks:\n  suites: [shop]\nrecipe:\n  grop_size: 4\n', 'recipe.grop_size: unknown key (did you mean group_size?)'],
    ['tasks:\n  suites: [shop]\nfleet:\n  slots: many\n', 'fleet.slots: must be an integer, got "many"'],
    ['tasks:\n  suites: [shop]\nrecipe:\n  group_size: 1\n', 'recipe.group_size: must be >= 2, got 1'],
  ];
  const lines = ['4:3', '4:10', '4:15'];
  for (const [i, [text, message]] of cases.entries()) {
    const file = path.join(dir, `bad-${i}.yaml`);
    fs.writeFileSync(file, text);
    for (const args of [['train', file], ['train', '--check', file]]) {
      const r = await owrl(args, { cwd });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr, `${file}:${lines[i]}: ${message}\n`);
      assert.equal(r.stdout, '', 'no server was started');
    }
  }
  // a bad task file named by the run file: at its entry, with the task file's own line
  fs.writeFileSync(path.join(dir, 'bad.jsonl'), '{"id":"x/1","start_url":"https://example.org/","instruction":"","difficulty":1}\n');
  fs.writeFileSync(path.join(dir, 'tasks.yaml'), 'tasks:\n  files:\n    - bad.jsonl\n');
  const r = await owrl(['train', path.join(dir, 'tasks.yaml')], { cwd });
  assert.equal(r.code, 2);
  assert.match(r.stderr, new RegExp(`^${path.join(dir, 'tasks.yaml')}:3:7: tasks\\.files\\[0\\]: ${path.join(dir, 'bad.jsonl')}: line 1: .*instruction`));
  // a flag's bad value is reported under the flag; located problems start their lines (no `owrl: `)
  const flag = await owrl(['demo', '--policy', 'gpt'], { cwd });
  assert.equal(flag.code, 2);
  assert.equal(flag.stderr, '--policy: policy.kind: must be one of pointer, openai, got "gpt"\n');
  assert.deepEqual(fs.readdirSync(cwd), [], 'nothing was written');
});

void test('preflight: an engine that returns no token ids fails naming return_token_ids; exit 2', async () => {
  const c = await chat({ returnTokenIds: false });
  const t = await trainer();
  const r = await owrl(['train', '--check', path.join(EXAMPLES, 'vllm-qwen3vl.yaml')], { cwd, env: vllmEnv(c, t) });
  assert.equal(r.code, 2, r.stdout + r.stderr);
  const fail = r.stdout.split('\n').filter((l) => l.startsWith('preflight FAIL policy.'));
  assert.ok(fail.length >= 1, r.stdout);
  assert.ok(fail.some((l) => l.includes('return_token_ids')), fail.join('\n'));
  assert.match(r.stderr, /owrl: the preflight failed: .*policy\./);
});

void test('preflight: a trainer whose versions the engine cannot load fails naming both; a base-model mismatch names both models', async () => {
  const c = await chat();
  const full = await trainer({ artifactKind: 'full-weights' });
  const r = await owrl(['train', '--check', path.join(EXAMPLES, 'vllm-qwen3vl.yaml')], { cwd, env: vllmEnv(c, full) });
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stdout, /preflight FAIL trainer\.versions: the trainer produces full-weights versions, which engine vllm cannot load \(it loads lora-adapter\); fix: vLLM loads LoRA adapters/);
  // SGLang loads full weights: the same trainer passes with engine sglang
  const sglang = await chat({ engine: 'sglang' });
  const ok = await owrl(['train', '--check', '--skip-preflight=policy', path.join(EXAMPLES, 'vllm-qwen3vl.yaml')], { cwd, env: { ...vllmEnv(sglang, full), OWRL_POLICY_ENGINE: 'sglang' } });
  assert.match(ok.stdout, /preflight ok   trainer\.versions: full-weights versions, which sglang loads/);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);

  const other = await trainer({ baseModel: 'Qwen/Qwen2.5-VL-7B-Instruct' });
  const mismatch = await owrl(['train', '--check', path.join(EXAMPLES, 'vllm-qwen3vl.yaml')], { cwd, env: vllmEnv(c, other) });
  assert.equal(mismatch.code, 2);
  assert.match(mismatch.stdout, /preflight FAIL trainer\.base_model: the trainer trains "Qwen\/Qwen2\.5-VL-7B-Instruct" but the engine serves policy\.model "Qwen\/Qwen3-VL-4B-Instruct"/);
  const wrongToken = await owrl(['train', '--check', path.join(EXAMPLES, 'vllm-qwen3vl.yaml')], { cwd, env: { ...vllmEnv(c, other), OWRL_TRAINER_TOKEN: 'nope' } });
  assert.match(wrongToken.stdout, /preflight FAIL trainer\.handshake: GetTrainerInfo failed: .*; fix: set the token the trainer expects/);
});

void test('preflight: a private start URL is refused by the fence (fix: fleet.allow_hosts); an unreachable NATS names the URL; --skip-preflight says what it skipped', async () => {
  fs.writeFileSync(path.join(dir, 'private.jsonl'), '{"id":"p/1","suite":"p","start_url":"http://10.255.255.1:9/","instruction":"Answer ok.","difficulty":1,"verifier":{"answer":{"accepted":["ok"]}}}\n');
  fs.writeFileSync(path.join(dir, 'private.yaml'), 'tasks:\n  files: [private.jsonl]\n');
  const r = await owrl(['train', '--check', path.join(dir, 'private.yaml')], { cwd });
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stdout, /preflight FAIL tasks\.urls: 1 of 1 sampled start hosts \(of 1\) do not answer through the fence: http:\/\/10\.255\.255\.1:9\/: refused by the fence: 10\.255\.255\.1:9 is a private address; fix: a private host is refused unless listed: add its host:port to fleet\.allow_hosts/);

  const nats = await owrl(['train', '--check', '--nats', 'nats://127.0.0.1:1', path.join(EXAMPLES, 'demo.yaml')], { cwd });
  assert.equal(nats.code, 2);
  assert.match(nats.stdout, /preflight FAIL nats: cannot connect to NATS at nats:\/\/127\.0\.0\.1:1: .*; fix: start nats-server with JetStream at nats:\/\/127\.0\.0\.1:1, or correct nats\.url/);

  const skipped = await owrl(['train', '--check', '--skip-preflight', path.join(dir, 'private.yaml')], { cwd });
  assert.equal(skipped.code, 0, skipped.stdout + skipped.stderr);
  assert.match(skipped.stdout, /^preflight SKIPPED nats, tasks, policy, trainer, judge \(--skip-preflight\): nothing was checked/m);
  const unknown = await owrl(['train', '--check', '--skip-preflight=fence', path.join(dir, 'private.yaml')], { cwd });
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, 'owrl: --skip-preflight: no check called "fence"; the checks are nats, tasks, policy, trainer, judge\n');
});
