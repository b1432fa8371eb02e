// `owrl demo --policy openai` options, checked before anything starts: the endpoint, the served
// model and a trainer that takes token traces are required, a bad value is a usage error (exit 2)
// naming the option; nothing is started (no nats-server, no run folder).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/owrl.js', import.meta.url));

function owrl(cwd: string, ...args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, timeout: 30_000, env: { PATH: process.env['PATH'] ?? '' } }, (err, _stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stderr });
    });
  });
}

void test('demo --policy openai: endpoint, model and trainer are checked before anything starts', async () => {
  const cwd = fs.mkdtempSync(path.join(tmpdir(), 'owrl-demo-opts-'));
  const cases: Array<[string[], RegExp]> = [
    [['--policy', 'gpt'], /--policy must be pointer or openai, not "gpt"/],
    [['--policy', 'openai'], /--policy openai needs --base-url URL/],
    [['--policy', 'openai', '--base-url', 'vllm:8000'], /--policy openai needs --base-url URL.*got "vllm:8000"/],
    [['--policy', 'openai', '--base-url', 'http://vllm:8000/v1'], /--policy openai needs --model NAME/],
    [['--policy', 'openai', '--base-url', 'http://vllm:8000/v1', '--model', 'Qwen/Qwen3-VL-4B-Instruct'], /--policy openai needs --trainer HOST:PORT/],
    [['--policy', 'openai', '--base-url', 'http://vllm:8000/v1', '--model', 'm', '--trainer', 'gpu-box'], /--trainer must be HOST:PORT of an owrl.v1.Trainer, not "gpu-box"/],
    [['--policy', 'openai', '--base-url', 'http://vllm:8000/v1', '--model', 'm', '--trainer', 'gpu:50070', '--engine', 'tgi'], /--engine must be vllm, sglang or openai, not "tgi"/],
    [['--policy', 'openai', '--base-url', 'http://vllm:8000/v1', '--model', 'm', '--trainer', 'gpu:50070', '--warmup'], /--warmup .* does not go with --policy openai/],
    [['--model', 'm'], /--base-url and --model go with --policy openai/],
  ];
  try {
    for (const [args, message] of cases) {
      const r = await owrl(cwd, 'demo', ...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
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
});

void test('demo timeout by default: 1800 s, 90 s a round for longer runs', async () => {
  const { defaultDemoTimeoutS } = await import('../src/demo/demo-options.js');
  assert.equal(defaultDemoTimeoutS(20), 1800);
  assert.equal(defaultDemoTimeoutS(28), 2520);
  assert.equal(defaultDemoTimeoutS(1), 1800);
});
