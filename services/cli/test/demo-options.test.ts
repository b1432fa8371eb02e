// `owrl demo` is `owrl train` on examples/demo.yaml: its flags set keys of the run file and are
// checked with it before anything starts; a bad value is a usage error (exit 2) naming the flag
// and the key; nothing is started (no nats-server, no run folder).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { owrl } from './train-helpers.js';

void test('demo --policy openai: endpoint, model and trainer are checked before anything starts', async () => {
  const cwd = fs.mkdtempSync(path.join(tmpdir(), 'owrl-demo-opts-'));
  const cases: Array<[string[], RegExp]> = [
    [['--policy', 'gpt'], /^--policy: policy\.kind: must be one of pointer, openai, got "gpt"$/m],
    [['--policy', 'openai'], /policy: kind openai needs base_url/],
    [['--policy', 'openai', '--base-url', 'vllm:8000'], /^--base-url: policy\.base_url: must be an http\(s\) URL, got "vllm:8000"$/m],
    [['--policy', 'openai', '--base-url', 'http://vllm:8000/v1'], /policy: kind openai needs model/],
    [['--policy', 'openai', '--base-url', 'http://vllm:8000/v1', '--model', 'Qwen/Qwen3-VL-4B-Instruct'], /demo\.yaml:\d+:\d+: trainer\.kind: policy\.kind openai needs trainer\.kind remote with an address/],
    [['--policy', 'openai', '--base-url', 'http://vllm:8000/v1', '--model', 'm', '--trainer', 'gpu-box'], /^--trainer: trainer\.address: must be host:port, got "gpu-box"$/m],
    [['--policy', 'openai', '--base-url', 'http://vllm:8000/v1', '--model', 'm', '--trainer', 'gpu:50070', '--engine', 'tgi'], /^--engine: policy\.engine: must be one of vllm, sglang, openai, got "tgi"$/m],
    [['--policy', 'openai', '--base-url', 'http://vllm:8000/v1', '--model', 'm', '--trainer', 'gpu:50070', '--warmup'], /^--warmup: policy\.warmup\.enabled: the warm-up clones the scripted solvers into the pointer policy; the policy is openai$/m],
    [['--model', 'm'], /^--model: policy\.model: goes with policy\.kind openai; the policy is pointer$/m],
    [['--rounds', '0'], /^--rounds: recipe\.rounds: must be >= 1, got 0$/m],
    [['--curriculum', '10'], /^--curriculum: recipe\.curriculum: stage "10" is not rounds:max_steps/m],
    [['extra.yaml'], /^owrl: owrl demo takes no run file/m],
  ];
  try {
    for (const [args, message] of cases) {
      const r = await owrl(['demo', ...args], { cwd });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.equal(r.stdout, '', `${args.join(' ')}: nothing started`);
    }
    assert.deepEqual(fs.readdirSync(cwd), [], 'nothing was started or written');
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});

void test('demo rounds by default: 40 from the uniform pointer policy, 20 after the warm-up or with a model endpoint', async () => {
  const { defaultDemoRounds, DEMO_ROUNDS } = await import('../src/demo/demo-options.js');
  assert.equal(defaultDemoRounds({ warmup: true, policy: 'pointer' }), DEMO_ROUNDS.afterWarmup);
  assert.equal(defaultDemoRounds({ warmup: false, policy: 'pointer' }), DEMO_ROUNDS.fromUniform);
  assert.equal(defaultDemoRounds({ warmup: false, policy: 'openai' }), DEMO_ROUNDS.afterWarmup);
  assert.deepEqual(DEMO_ROUNDS, { afterWarmup: 20, fromUniform: 40 });
  const { parseTrainArgs } = await import('../src/train/train-args.js');
  const rounds = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseTrainArgs(argv, { demo: { file: 'demo.yaml', env } }).overrides.find((o) => o.path.join('.') === 'recipe.rounds')?.value;
  assert.equal(rounds([]), 20);
  assert.equal(rounds(['--no-warmup']), 40);
  assert.equal(rounds(['--no-warmup', '--rounds', '7']), 7);
  assert.equal(rounds([], { OWRL_DEMO_ROUNDS: '3' }), 3);
  assert.equal(parseTrainArgs(['--no-warmup'], { demo: { file: 'demo.yaml', env: {} } }).timeoutS, 3600);
  assert.equal(parseTrainArgs([], { demo: { file: 'demo.yaml', env: {} } }).timeoutS, 1800);
  assert.equal(parseTrainArgs(['RUN.yaml'], {}).timeoutS, 0, 'owrl train runs without a timeout unless given');
});

void test('demo timeout by default: 1800 s, 90 s a round for longer runs', async () => {
  const { defaultDemoTimeoutS } = await import('../src/demo/demo-options.js');
  assert.equal(defaultDemoTimeoutS(20), 1800);
  assert.equal(defaultDemoTimeoutS(28), 2520);
  assert.equal(defaultDemoTimeoutS(1), 1800);
});
