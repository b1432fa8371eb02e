// The run file mapped onto the services' settings: each key sets its variables (lists joined,
// paths resolved against the file, the curriculum as rounds:max_steps), a service gets only its
// sections, secrets come from the variables the file names, and the environment stays on top.
// Changes on resume split into refused and taken.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { overlayEnv, parseRunFile, resumeChanges, RunFileError, runFileSettings } from '../src/index.js';

const FILE = [
  'log_level: debug',
  'state: { run_id: r1, data_dir: /data }',
  'tasks:',
  '  files: [tasks/a.jsonl, /abs/b.jsonl]',
  'policy:',
  '  kind: openai',
  '  base_url: http://vllm:8000/v1',
  '  model: Qwen/Qwen3-VL-4B-Instruct',
  '  api_key_env: MY_KEY',
  '  temperature: 0.7',
  'trainer: { kind: remote, address: "gpu:50070", token_env: TT }',
  'judge: { kind: api, url: "https://judge/v1", model: j, api_key_env: JK }',
  'recipe:',
  '  group_size: 8',
  '  curriculum: [{ rounds: 10, max_steps: 5 }, { max_steps: 20 }]',
  'fleet: { slots: 6, allow_hosts: ["10.0.0.5:80", intranet] }',
].join('\n');

const ENV = { MY_KEY: 'k-policy', TT: 't-trainer', JK: 'k-judge' };

void test('every key sets its variables, for the services that read its section', () => {
  const l = parseRunFile(FILE, '/etc/owrl/run.yaml');
  const all = runFileSettings(l, ENV).vars;
  assert.equal(all['OWRL_LOG_LEVEL'], 'debug');
  assert.equal(all['OWRL_RUN_ID'], 'r1');
  assert.equal(all['OWRL_TASKS_FILE'], '/etc/owrl/tasks/a.jsonl,/abs/b.jsonl');
  assert.equal(all['OWRL_POLICY'], 'openai');
  assert.equal(all['OWRL_TEMPERATURE'], '0.7');
  assert.equal(all['OWRL_POLICY_TEMPERATURE'], '0.7');
  assert.equal(all['OWRL_TRAINER'], 'gpu:50070');
  assert.equal(all['OWRL_GROUP_SIZE'], '8');
  assert.equal(all['OWRL_CURRICULUM'], '10:5,1:20');
  assert.equal(all['OWRL_ALLOW_HOSTS'], '10.0.0.5:80,intranet');
  assert.equal(all['OWRL_JUDGE_BACKEND'], 'api');

  const actor = runFileSettings(l, ENV, 'actor').vars;
  assert.equal(actor['OWRL_SLOTS'], '6');
  assert.equal(actor['OWRL_POLICY_API_KEY'], 'k-policy');
  assert.equal(actor['OWRL_GROUP_SIZE'], undefined, 'the recipe is not the actor\'s');
  assert.equal(actor['OWRL_JUDGE_API_KEY'], undefined, 'nor the judge\'s key');
  const judge = runFileSettings(l, ENV, 'judge').vars;
  assert.equal(judge['OWRL_JUDGE_API_KEY'], 'k-judge');
  assert.equal(judge['OWRL_JUDGE_API_URL'], 'https://judge/v1');
  assert.equal(judge['OWRL_POLICY_API_KEY'], undefined);
  assert.equal(runFileSettings(l, ENV, 'learner').vars['OWRL_TRAINER_TOKEN'], 't-trainer');
});

void test('a secret whose variable is unset is an error at its key, only for the services that need it', () => {
  const l = parseRunFile(FILE, 'run.yaml');
  assert.throws(
    () => runFileSettings(l, { MY_KEY: 'k', TT: 't' }, 'judge'),
    (e: unknown) => e instanceof RunFileError && e.code === 'RUN_FILE_MISSING_SECRET' && /^run\.yaml:12:\d+: judge\.api_key_env: names JK, which is not set/.test(e.message),
  );
  assert.equal(runFileSettings(l, { MY_KEY: 'k', TT: 't' }, 'actor').vars['OWRL_POLICY_API_KEY'], 'k');
});

void test('the environment wins over the file when set and not empty', () => {
  const l = parseRunFile(FILE, 'run.yaml');
  const env = overlayEnv(runFileSettings(l, ENV, 'learner').vars, { OWRL_GROUP_SIZE: '3', OWRL_RUN_ID: '', OWRL_OTHER: 'x' });
  assert.equal(env['OWRL_GROUP_SIZE'], '3');
  assert.equal(env['OWRL_RUN_ID'], 'r1', 'an empty variable does not blank the file');
  assert.equal(env['OWRL_OTHER'], 'x');
});

void test('a key left out sets nothing (the service keeps its default); the in-process trainer and verifiers say so', () => {
  const l = parseRunFile('tasks: { suites: [shop] }\ntrainer: { kind: inprocess }\njudge: { kind: verifiers }\n', 'run.yaml');
  const vars = runFileSettings(l, {}).vars;
  assert.deepEqual(vars, { OWRL_SUITES: 'shop', OWRL_TRAINER: 'inprocess' });
});

void test('resume: group size, policy kind and trainer kind are refused; rounds, fleet size and log level are taken', () => {
  const before = parseRunFile('tasks: { suites: [shop] }\nrecipe: { rounds: 5 }\nfleet: { actors: 2 }\n', 'a.yaml').run;
  const after = parseRunFile('log_level: debug\ntasks: { suites: [shop] }\nrecipe: { rounds: 9, group_size: 4 }\nfleet: { actors: 4 }\ntrainer: { kind: remote, address: "t:1" }\n', 'b.yaml').run;
  const { refused, taken } = resumeChanges(before, after);
  assert.deepEqual(
    refused.map((c) => [c.key, c.before, c.after]).sort(),
    [
      ['recipe.group_size', 5, 4],
      ['trainer.kind', 'inprocess', 'remote'],
    ],
  );
  assert.deepEqual(taken.map((c) => c.key).sort(), ['fleet.actors', 'log_level', 'recipe.rounds', 'trainer.address'].sort());
  const same = resumeChanges(before, parseRunFile('tasks: { suites: [shop] }\nrecipe: { rounds: 5, group_size: 5 }\nfleet: { actors: 2 }\npolicy: { kind: pointer }\n', 'c.yaml').run);
  assert.deepEqual(same.refused, [], 'writing out a default is no change');
});

void test('the sampler, the failure rules and the judge model on a GPU are keys of the file too', () => {
  const file = [
    'tasks: { suites: [shop] }',
    'policy: { kind: openai, base_url: "http://sglang:30000/v1", model: m, engine: sglang, top_k: 20, repetition_penalty: 1.05, presence_penalty: 0.5, logprobs_mode: temperature }',
    'trainer: { kind: remote, address: "gpu:50070" }',
    'recipe: { timeout_blame: timings, timeout_policy_share: 0.7 }',
    'judge: { kind: onnx, model_dir: judge, device: webgpu, max_batch: 16, batch_tokens: 65536, prepare_workers: 3 }',
  ].join('\n');
  const l = parseRunFile(file, '/etc/owrl/run.yaml');
  const actor = runFileSettings(l, {}, 'actor').vars;
  assert.deepEqual(
    [actor['OWRL_POLICY_TOP_K'], actor['OWRL_POLICY_REPETITION_PENALTY'], actor['OWRL_POLICY_PRESENCE_PENALTY'], actor['OWRL_POLICY_LOGPROBS_MODE']],
    ['20', '1.05', '0.5', 'temperature'],
  );
  const learner = runFileSettings(l, {}, 'learner').vars;
  assert.deepEqual([learner['OWRL_TIMEOUT_BLAME'], learner['OWRL_TIMEOUT_POLICY_SHARE']], ['timings', '0.7']);
  const judge = runFileSettings(l, {}, 'judge').vars;
  assert.deepEqual(
    [judge['OWRL_JUDGE_DEVICE'], judge['OWRL_JUDGE_MAX_BATCH'], judge['OWRL_JUDGE_BATCH_TOKENS'], judge['OWRL_JUDGE_PREPARE_WORKERS']],
    ['webgpu', '16', '65536', '3'],
  );
  assert.throws(() => parseRunFile('tasks: { suites: [shop] }\nrecipe: { timeout_policy_share: 0 }', '/r.yaml'), (e: unknown) => e instanceof RunFileError && /recipe\.timeout_policy_share/.test(e.message));
  assert.throws(() => parseRunFile('tasks: { suites: [shop] }\npolicy: { logprobs_mode: logits }', '/r.yaml'), (e: unknown) => e instanceof RunFileError && /policy\.logprobs_mode/.test(e.message));
});
