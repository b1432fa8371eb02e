// The judge with its model behind an OpenAI-compatible API, end to end over a real nats-server
// and a stand-in chat completions server on a real socket: tasks without a verifier get model
// verdicts (P(yes) from the log-probs, checked by hand) with the API judge's version; verified
// tasks keep the verifier's reward and get shadow verdicts counted into the calibration; bad
// replies and timeouts are exclusions with their reasons. Also the judge process (main) with the
// API backend, its configuration, and an API key that never reaches the logs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connectBus, ensureTopology, trajSubject, CONSUMER_LEARNER, STREAM_SCORED, STREAM_TRAJ } from '@owrl/bus';
import { ApiJudge, modelVerdictSource } from '@owrl/judge-model';
import {
  ScoredTrajectorySchema,
  TrajectorySchema,
  VerdictSource,
  type ScoredTrajectory,
  type Trajectory,
} from '@owrl/proto';
import { MemoryMeter } from '@owrl/core';
import { answerVerifier, buildTrajectory, startNatsServer, type NatsServer } from '@owrl/testkit';
import { JudgeService, readConfig, redactConfig } from '../src/index.js';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));

// Stand-in chat completions server (judge edition; could join a shared testkit double later):
// the verdict depends on the final answer in the user message. "AB-12" → yes likely (yes -0.1,
// no -2.4); "GARBLED" → a reply with neither yes nor no; "HANG" → no answer at all; else no
// likely (Yes -1.6, No -0.3). GET /v1/models lists "judge-vl".
let api: http.Server;
let apiUrl = '';
const seen: Array<{ auth: string | undefined; body: Record<string, unknown> }> = [];

function completion(content: string, top: Array<[string, number]>): unknown {
  return {
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: { content: [{ token: content, logprob: top[0]?.[1] ?? 0, top_logprobs: top.map(([token, logprob]) => ({ token, logprob })) }] } }],
    usage: { prompt_tokens: 400 },
  };
}

let nats: NatsServer;
before(async () => {
  nats = await startNatsServer();
  api = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ id: 'judge-vl' }] }));
        return;
      }
      const body = JSON.parse(raw) as { messages: Array<{ role: string; content: unknown }> };
      seen.push({ auth: req.headers.authorization, body });
      const user = JSON.stringify(body.messages[1]?.content);
      if (user.includes('Final answer: HANG')) return; // never answers
      const reply = user.includes('Final answer: GARBLED')
        ? completion('Hmm', [['Hmm', -0.2], ['The', -1.9]])
        : user.includes('Final answer: AB-12')
          ? completion('yes', [['yes', -0.1], ['no', -2.4]])
          : completion('No', [['No', -0.3], ['Yes', -1.6]]);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/v1`;
});
after(async () => {
  api.closeAllConnections();
  await new Promise((resolve) => api.close(resolve));
  await nats?.dispose();
});

// Worked out once: 1 / (1 + e^-2.3) and 1 / (1 + e^1.3).
const P_YES_AB12 = 0.9088770389851438;
const P_YES_OTHER = 0.2141650169574414;

function trajectory(run: string, sample: number, answer: string, accepted?: string): Trajectory {
  const verifier = accepted === undefined ? {} : { verifier: answerVerifier(accepted) };
  return buildTrajectory({ runId: run, sample, answer, task: { id: `t${sample}`, suite: 'webvoyager', startUrl: 'https://www.example.org/', instruction: `What is the code of item ${sample}?`, ...verifier } });
}

void test('API backend: model verdicts for unverified tasks, shadow verdicts and calibration for verified ones, failures excluded', async () => {
  const bus = await connectBus({ servers: nats.url, name: 'judge-api-test' });
  await ensureTopology(bus);
  const meter = new MemoryMeter();
  const judge = new ApiJudge({ url: apiUrl, model: 'judge-vl', apiKey: 'sk-e2e', retryBaseMs: 1 });
  const source = modelVerdictSource(judge, { threshold: 0.5 });
  const service = new JudgeService({ bus, meter, judgeVersion: 'verifier-7', concurrency: 8, timeoutMs: 2000, sources: [source], shadow: source, pullExpiresMs: 1000 });
  const items: ScoredTrajectory[] = [];
  let notify = (): void => {};
  const reader = await bus.consume({
    stream: STREAM_SCORED,
    consumer: CONSUMER_LEARNER,
    schema: ScoredTrajectorySchema,
    maxInFlight: 16,
    pullExpiresMs: 1000,
    handler: (d) => {
      items.push(d.value);
      notify();
    },
  });
  try {
    const trajs = [
      trajectory('runA', 0, 'AB-12', 'AB-12'), // verifier success, model yes: tp
      trajectory('runA', 1, 'ZZ-99', 'AB-12'), // verifier failure, model no: tn
      trajectory('runA', 2, 'AB-12', 'XY-1'), // verifier failure, model yes: fp
      trajectory('runA', 3, 'AB-12'), // model: success
      trajectory('runA', 4, 'ZZ-99'), // model: failure
      trajectory('runA', 5, 'GARBLED'), // model: bad reply → excluded
      trajectory('runA', 6, 'HANG'), // model: no answer → excluded
      trajectory('runA', 7, 'GARBLED', 'garbled'), // verifier success, shadow unavailable
    ];
    const all = new Promise<void>((resolve) => (notify = () => items.length >= trajs.length && resolve()));
    for (const t of trajs) await bus.publish(trajSubject('runA'), TrajectorySchema, t, { msgId: t.trajectoryId });
    await service.start();
    await all;
    // stop() waits for the in-flight handlers, so every outcome is counted before the metrics are read.
    await service.stop();

    const by = new Map(items.map((s) => [s.trajectoryId.split('/')[3], s]));
    const close = (a: number | undefined, b: number) => assert.ok(a !== undefined && Math.abs(a - b) < 1e-9, `${a} vs ${b}`);
    for (const [k, success, p] of [['0', true, P_YES_AB12], ['1', false, P_YES_OTHER], ['2', false, P_YES_AB12]] as const) {
      const s = by.get(k);
      assert.equal(s?.verdict?.source, VerdictSource.VERIFIER, k);
      assert.equal(s?.verdict?.success, success, k);
      assert.equal(s?.verdict?.judgeVersion, 'verifier-7');
      assert.equal(s?.shadow?.source, VerdictSource.MODEL, k);
      assert.equal(s?.shadow?.judgeVersion, judge.version);
      close(s?.shadow?.pSuccess, p);
    }
    for (const [k, reward, p] of [['3', 1, P_YES_AB12], ['4', 0, P_YES_OTHER]] as const) {
      const s = by.get(k);
      assert.equal(s?.trainable, true);
      assert.equal(s?.verdict?.source, VerdictSource.MODEL, k);
      assert.equal(s?.verdict?.reward, reward, k);
      assert.match(s?.verdict?.judgeVersion ?? '', /^api:judge-vl#[0-9a-f]{8}$/);
      assert.match(s?.verdict?.detail ?? '', /from logprobs/);
      close(s?.verdict?.pSuccess, p);
      assert.equal(s?.shadow, undefined);
    }
    assert.deepEqual([by.get('5')?.trainable, by.get('5')?.excludedReason, by.get('5')?.verdict], [false, 'judge:model_bad_reply', undefined]);
    assert.deepEqual([by.get('6')?.trainable, by.get('6')?.excludedReason], [false, 'judge:model_timeout']);
    assert.deepEqual([by.get('7')?.verdict?.source, by.get('7')?.verdict?.reward, by.get('7')?.shadow], [VerdictSource.VERIFIER, 1, undefined]);

    // Calibration of the model against the verifiers: tp 1, tn 1, fp 1 (GARBLED's shadow failed).
    assert.deepEqual(service.stats.shadow, { tp: 1, fp: 1, fn: 0, tn: 1 });
    const gauge = (figure: string) => meter.value('owrl_judge_shadow_calibration_ratio', { figure });
    assert.ok(Math.abs(gauge('agreement') - 2 / 3) < 1e-9 && gauge('precision') === 0.5 && gauge('recall') === 1);
    assert.equal(meter.value('owrl_judge_shadow_unavailable_total', { reason: 'judge:model_bad_reply' }), 1);
    assert.equal(meter.value('owrl_judge_excluded_total', { reason: 'judge:model_timeout' }), 1);
    assert.ok(seen.every((r) => r.auth === 'Bearer sk-e2e'));
    assert.equal((await bus.consumerLag(STREAM_TRAJ, 'judge')).numAckPending, 0);
  } finally {
    await service.stop();
    await reader.stop();
    await judge.close();
    await bus.close();
  }
});

void test('readConfig: the API backend and its variables, errors naming the variable, the key redacted', () => {
  const env = { OWRL_JUDGE_API_URL: 'http://vllm:8000/v1', OWRL_JUDGE_API_MODEL: 'Qwen/Qwen3-VL-8B', OWRL_JUDGE_API_KEY: 'sk-abc' };
  const cfg = readConfig(env);
  assert.equal(cfg.model, undefined);
  assert.equal(cfg.timeoutMs, 30_000, 'a longer default budget with the API backend');
  assert.deepEqual(cfg.api, {
    url: 'http://vllm:8000/v1',
    model: 'Qwen/Qwen3-VL-8B',
    apiKey: 'sk-abc',
    threshold: undefined,
    concurrency: 8,
    retries: 3,
    image: true,
    logprobs: true,
    topLogprobs: 20,
    maxTokens: 1,
    maxPromptChars: 60_000,
    extraBody: undefined,
    version: '',
    shadow: true,
  });
  assert.ok(!JSON.stringify(redactConfig(cfg)).includes('sk-abc'));
  assert.equal((redactConfig(cfg)['api'] as { apiKey: string }).apiKey, '(set)');
  const custom = readConfig({
    ...env,
    OWRL_JUDGE_BACKEND: 'api',
    OWRL_JUDGE_THRESHOLD: '0.6',
    OWRL_JUDGE_SHADOW: 'false',
    OWRL_JUDGE_API_IMAGE: 'false',
    OWRL_JUDGE_API_LOGPROBS: '0',
    OWRL_JUDGE_API_TOP_LOGPROBS: '5',
    OWRL_JUDGE_API_EXTRA_BODY: '{"chat_template_kwargs":{"enable_thinking":false}}',
    OWRL_JUDGE_API_VERSION: 'judge-v2',
    OWRL_JUDGE_TIMEOUT_MS: '5000',
  });
  assert.deepEqual(
    [custom.api?.threshold, custom.api?.shadow, custom.api?.image, custom.api?.logprobs, custom.api?.topLogprobs, custom.api?.extraBody, custom.api?.version, custom.timeoutMs],
    [0.6, false, false, false, 5, { chat_template_kwargs: { enable_thinking: false } }, 'judge-v2', 5000],
  );
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ OWRL_JUDGE_BACKEND: 'api' }, /OWRL_JUDGE_API_URL is required/],
    [{ OWRL_JUDGE_API_URL: 'http://x/v1' }, /OWRL_JUDGE_API_MODEL is required/],
    [{ ...env, OWRL_JUDGE_API_URL: 'vllm:8000' }, /OWRL_JUDGE_API_URL="vllm:8000" must be an http\(s\) URL/],
    [{ ...env, OWRL_JUDGE_MODEL: '/models/j' }, /choose one with OWRL_JUDGE_BACKEND=onnx\|api/],
    [{ OWRL_JUDGE_BACKEND: 'onnx' }, /OWRL_JUDGE_MODEL \(a model folder\) is required/],
    [{ OWRL_JUDGE_BACKEND: 'grpc' }, /OWRL_JUDGE_BACKEND="grpc" must be one of onnx, api/],
    [{ ...env, OWRL_JUDGE_API_TOP_LOGPROBS: '21' }, /OWRL_JUDGE_API_TOP_LOGPROBS=21 must be at most 20/],
    [{ ...env, OWRL_JUDGE_API_EXTRA_BODY: '{"model":"x"}' }, /OWRL_JUDGE_API_EXTRA_BODY must not set "model"/],
    [{ ...env, OWRL_JUDGE_API_EXTRA_BODY: '[1]' }, /OWRL_JUDGE_API_EXTRA_BODY must be a JSON object/],
    [{ ...env, OWRL_JUDGE_API_EXTRA_BODY: '{oops' }, /OWRL_JUDGE_API_EXTRA_BODY is not JSON/],
    [{ ...env, OWRL_JUDGE_API_CONCURRENCY: '0' }, /OWRL_JUDGE_API_CONCURRENCY="0" is not an integer >= 1/],
  ];
  for (const [e, re] of bad) assert.throws(() => readConfig(e), re, JSON.stringify(e));
  // Both set, the backend chosen: the other is ignored.
  assert.equal(readConfig({ ...env, OWRL_JUDGE_MODEL: '/models/j', OWRL_JUDGE_BACKEND: 'onnx' }).api, undefined);
  assert.equal(readConfig({ ...env, OWRL_JUDGE_MODEL: '/models/j', OWRL_JUDGE_BACKEND: 'api' }).model, undefined);
});

void test('main with OWRL_JUDGE_API_URL: probes the server, judges an unverified task with the API model, never logs the key', async () => {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, NATS_URL: nats.url, OWRL_JUDGE_API_URL: apiUrl, OWRL_JUDGE_API_MODEL: 'judge-vl', OWRL_JUDGE_API_KEY: 'sk-main-secret-42', OWRL_LOG_LEVEL: 'debug' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const lines: Array<Record<string, unknown>> = [];
  let onLine = (): void => {};
  createInterface({ input: child.stdout }).on('line', (line) => {
    stdout += `${line}\n`;
    lines.push(JSON.parse(line) as Record<string, unknown>);
    onLine();
  });
  const logged = (msg: string) =>
    Promise.race([
      new Promise<Record<string, unknown>>((resolve) => {
        const check = () => {
          const hit = lines.find((l) => l['msg'] === msg);
          if (hit) resolve(hit);
        };
        const prev = onLine;
        onLine = () => (prev(), check());
        check();
      }),
      exited.then(() => assert.fail(`judge exited early: ${stderr}`)),
    ]);
  try {
    const served = await logged('judge model served by API');
    assert.equal(served['model'], 'judge-vl');
    assert.match(String(served['version']), /^api:judge-vl#[0-9a-f]{8}$/);
    await logged('judge consuming');
    const bus = await connectBus({ servers: nats.url, name: 'main-api-test' });
    try {
      await ensureTopology(bus);
      const t = trajectory('runMain', 0, 'AB-12');
      await bus.publish(trajSubject('runMain'), TrajectorySchema, t, { msgId: t.trajectoryId });
      const judged = await logged('trajectory judged');
      assert.deepEqual([judged['trajectory'], judged['source'], judged['reward']], [t.trajectoryId, 'model', 1]);
    } finally {
      await bus.close();
    }
    child.kill('SIGTERM');
    const [code, signal] = await exited;
    assert.deepEqual([code, signal], [0, null], stderr.slice(-2000));
    const stopped = lines.find((l) => l['msg'] === 'judge stopped' && l['api'] !== undefined);
    assert.deepEqual((stopped?.['api'] as { logprobs: number } | undefined)?.logprobs, 1);
    assert.ok(!stdout.includes('sk-main-secret-42') && !stderr.includes('sk-main-secret-42'), 'the API key is never logged');
    assert.ok(seen.some((r) => r.auth === 'Bearer sk-main-secret-42'), 'but it is sent');
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
