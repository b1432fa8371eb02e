// test-run: alone (a whole training run across processes: a Chromium actor, learner, judge)
// `owrl train` with the openai policy, from examples/vllm-qwen3vl.yaml with its endpoints pointed
// at the test kit's stand-in vLLM server and stand-in GPU trainer (real HTTP and gRPC over
// sockets), its tasks replaced by one-step answer tasks on a page served here ("answer with the
// word W", verified by answer match; the stand-in answers each word right every other time, so
// groups carry mixed rewards and are kept). The preflight passes, the run finishes, the learner's
// updates reach the trainer and every version the trainer answered is loaded into the engine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { RunPhase } from '@owrl/proto';
import { readRunFile } from '@owrl/run-file';
import { startChatServer, startFakeTrainer, startNatsServer, type ChatServerDouble, type FakeTrainerDouble, type NatsServer } from '@owrl/testkit';
import { EXAMPLES, owrl } from './train-helpers.js';

const WORDS = ['amber', 'birch', 'cobalt', 'dune', 'ember', 'fjord'];
const INSTRUCTION = /Answer with the single word ([a-z]+) /;
let dir: string;
let page: http.Server;
let chat: ChatServerDouble;
let trainer: FakeTrainerDouble;
let nats: NatsServer;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-train-openai-'));
  page = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html><head><title>Words</title></head><body><h1>Words</h1><p>Answer with the word the task names.</p></body></html>');
  });
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  const seen = new Map<string, number>();
  const model = readRunFile(path.join(EXAMPLES, 'vllm-qwen3vl.yaml')).run.policy?.model ?? '';
  chat = await startChatServer({
    engine: 'vllm',
    baseModel: model,
    fallback: (req) => {
      const word = INSTRUCTION.exec(JSON.stringify(req.body['messages']))?.[1] ?? 'nothing';
      const k = seen.get(word) ?? 0;
      seen.set(word, k + 1);
      return { content: 'I answer now.', toolCalls: [{ name: 'done', arguments: { response: k % 2 === 0 ? word : `not-${word}` } }] };
    },
  });
  trainer = await startFakeTrainer({ dir: path.join(dir, 'adapters'), baseModel: model, token: 'trainer-token' });
  nats = await startNatsServer({ maxPayload: 8 * 1024 * 1024 });
});
after(async () => {
  await chat.close();
  await trainer.close();
  await nats.dispose();
  await new Promise<void>((r) => page.close(() => r()));
  fs.rmSync(dir, { recursive: true, force: true });
});

void test('the vLLM example trains across processes against the stand-in engine and trainer', async () => {
  const host = `127.0.0.1:${(page.address() as AddressInfo).port}`;
  const tasks = path.join(dir, 'words.jsonl');
  fs.writeFileSync(tasks, WORDS.map((w, i) => JSON.stringify({ id: `words/${i}`, suite: 'words', start_url: `http://${host}/`, instruction: `Answer with the single word ${w} and nothing else.`, difficulty: 1, verifier: { answer: { accepted: [w], normalize: true } } })).join('\n') + '\n');
  // the example with its endpoints pointed here and a short recipe on the answer tasks
  const run = readRunFile(path.join(EXAMPLES, 'vllm-qwen3vl.yaml')).run;
  const file = path.join(dir, 'run.yaml');
  fs.writeFileSync(
    file,
    JSON.stringify({
      ...run,
      state: { run_id: 'qwen-t', data_dir: path.join(dir, 'runs') },
      tasks: { files: [tasks] },
      policy: { ...run.policy, base_url: chat.url },
      trainer: { ...run.trainer, address: trainer.address },
      recipe: { rounds: 2, group_size: 3, groups_per_round: 2, max_groups_per_round: 4, mode: 'sync', curriculum: [{ max_steps: 3 }] },
      fleet: { actors: 1, slots: 3, allow_hosts: [host] },
    }),
  );
  const json = path.join(dir, 'run.json');
  const r = await owrl(['train', file, '--nats', nats.url, '--json', json], { cwd: dir, env: { OWRL_TRAINER_TOKEN: 'trainer-token', OWRL_POLICY_RETRIES: '1' }, timeoutMs: 600_000 });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /preflight ok   policy\.completion_token_ids/);
  assert.match(r.stdout, /preflight ok   trainer\.versions: lora-adapter versions, which vllm loads/);
  assert.match(r.stdout, /preflight ok   tasks\.urls: 1 of 1 start hosts answer through the fence/);
  const state = (JSON.parse(fs.readFileSync(json, 'utf8')) as { state: { phase: number; policyVersion: number; counters: { trainable: number } } }).state;
  assert.equal(state.phase, RunPhase.FINISHED);
  assert.ok(state.counters.trainable >= 2 * 2 * 3, `trainable ${state.counters.trainable}`);
  assert.equal(trainer.updates.length, 2, 'one update a round reached the trainer');
  assert.equal(state.policyVersion, 2);
  const loads = chat.weightCalls.filter((c) => c.path.endsWith('/load_lora_adapter') && c.status === 200);
  assert.ok(loads.length >= 1, `the engine loaded the trained versions: ${JSON.stringify(chat.weightCalls)}`);
  assert.ok(chat.requests.some((q) => q.model.startsWith('owrl-v')), 'requests named a trained version');
});
