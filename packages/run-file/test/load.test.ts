// A run file's problems are reported at the line and column of the key or value (counted by hand
// in the texts below), with the dotted key and a message naming the value; unknown keys get the
// nearest valid name; values set by a flag are reported under the flag.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRunFile, RunFileError } from '../src/index.js';

function problems(text: string, overrides: Parameters<typeof parseRunFile>[2] = []): string[] {
  try {
    parseRunFile(text, 'run.yaml', overrides);
  } catch (e) {
    assert.ok(e instanceof RunFileError, String(e));
    assert.equal(e.code, 'RUN_FILE_INVALID');
    return e.message.split('\n');
  }
  assert.fail('the file was accepted');
}

void test('a good file is accepted and keeps its values', () => {
  const l = parseRunFile('tasks:\n  suites: [shop]\nrecipe:\n  group_size: 4\n  curriculum:\n    - { rounds: 3, max_steps: 5 }\n    - max_steps: 9\n', 'run.yaml');
  assert.deepEqual(l.run.tasks.suites, ['shop']);
  assert.equal(l.run.recipe?.group_size, 4);
  assert.deepEqual(l.run.recipe?.curriculum, [{ rounds: 3, max_steps: 5 }, { max_steps: 9 }]);
});

void test('unknown key: its own line and column, with the nearest valid name', () => {
  const text = ['tasks:', '  suites: [shop]', 'recipe:', '  grop_size: 5', '  rounds: 3'].join('\n');
  assert.deepEqual(problems(text), ['run.yaml:4:3: recipe.grop_size: unknown key (did you mean group_size?)']);
});

void test('a key in the wrong section says where it belongs; an unrelated one lists the valid keys', () => {
  assert.deepEqual(problems('tasks:\n  suites: [shop]\nrounds: 3\n'), ['run.yaml:3:1: rounds: unknown key (it belongs at recipe.rounds)']);
  const [line] = problems('tasks:\n  suites: [shop]\ntrainer:\n  zzzzzzzz: 1\n');
  assert.equal(line, 'run.yaml:4:3: trainer.zzzzzzzz: unknown key; valid here: kind, address, token_env');
});

void test('wrong type: at the value, naming what was wanted and what was given', () => {
  const text = 'tasks:\n  suites: [shop]\nrecipe:\n  groups_per_round: "four"\n  rounds: 2.5\n  mode: true\n';
  assert.deepEqual(problems(text), [
    'run.yaml:4:21: recipe.groups_per_round: must be an integer, got "four"',
    'run.yaml:5:11: recipe.rounds: must be an integer, got 2.5',
    'run.yaml:6:9: recipe.mode: must be one of sync, async, got true',
  ]);
});

void test('out of range: at the value, with the bound and the value', () => {
  const text = 'tasks:\n  suites: [shop]\n  count: 0\nrecipe:\n  group_size: 1\n  clip_high: 1.5\n';
  assert.deepEqual(problems(text), [
    'run.yaml:3:10: tasks.count: must be >= 1, got 0',
    'run.yaml:5:15: recipe.group_size: must be >= 2, got 1',
    'run.yaml:6:14: recipe.clip_high: must be <= 1, got 1.5',
  ]);
});

void test('a bad list entry is located at the entry, and a misspelt choice gets the nearest', () => {
  assert.deepEqual(problems('tasks:\n  suites: [shop, shpo]\n'), ['run.yaml:2:18: tasks.suites[1]: must be one of shop, travel, wiki, mail, got "shpo" (did you mean shop?)']);
  assert.deepEqual(problems('tasks:\n  suites: [shop]\nrecipe:\n  curriculum:\n    - max_steps: 0\n'), ['run.yaml:5:18: recipe.curriculum[0].max_steps: must be >= 1, got 0']);
});

void test('YAML syntax errors keep their position; an empty file or a list is not a run file', () => {
  const [line] = problems('tasks:\n  suites: [shop\n');
  assert.match(line ?? '', /^run\.yaml:\d+:\d+: yaml: /);
  assert.deepEqual(problems('tasks:\n  suites: [shop]\ntasks:\n  files: [a.jsonl]\n').length, 1);
  assert.match(problems('')[0] ?? '', /^run\.yaml:1:1: \(file\): a run file is a YAML mapping/);
  assert.match(problems('- a\n- b\n')[0] ?? '', /^run\.yaml:1:1: \(file\): a run file is a YAML mapping/);
});

void test('a missing section is reported at the top; a missing key at its section', () => {
  assert.deepEqual(problems('recipe:\n  rounds: 2\n'), ['run.yaml:1:1: tasks: is required']);
  assert.deepEqual(problems('tasks:\n  suites: [shop]\npolicy:\n  kind: openai\n  model: m\ntrainer:\n  kind: remote\n  address: t:1\n'), [
    'run.yaml:3:1: policy: kind openai needs base_url (the API base, e.g. http://vllm:8000/v1)',
  ]);
});

void test('rules across keys point at the key that breaks them', () => {
  const text = ['tasks:', '  suites: [shop]', 'policy:', '  kind: openai', '  base_url: http://v:8000/v1', '  model: m', 'recipe:', '  groups_per_round: 8', '  max_groups_per_round: 4'].join('\n');
  assert.deepEqual(problems(text), [
    'run.yaml:4:3: policy.kind: policy.kind openai needs trainer.kind remote with an address: the in-process trainer trains only the pointer policy (docs/trainer.md)',
    'run.yaml:9:3: recipe.max_groups_per_round: 4 is below groups_per_round (8)',
  ]);
  assert.deepEqual(problems('tasks:\n  suites: [shop]\npolicy:\n  kind: pointer\n  history: full\n'), ['run.yaml:5:3: policy.history: goes with policy.kind openai; the policy is pointer']);
  assert.deepEqual(problems('tasks:\n  files: [t.jsonl]\n  count: 3\n'), ['run.yaml:3:3: tasks.count: goes with tasks.suites (the bundled sites), which is not set']);
});

void test('a value set by a flag is reported under the flag; the file is left as it was', () => {
  const text = 'tasks:\n  suites: [shop]\nrecipe:\n  rounds: 3\n';
  assert.deepEqual(problems(text, [{ path: ['recipe', 'rounds'], value: 0, source: '--rounds' }]), ['--rounds: recipe.rounds: must be >= 1, got 0']);
  assert.deepEqual(problems(text, [{ path: ['policy', 'kind'], value: 'gpt', source: '--policy' }]), ['--policy: policy.kind: must be one of pointer, openai, got "gpt"']);
  const ok = parseRunFile(text, 'run.yaml', [{ path: ['recipe', 'rounds'], value: 7, source: '--rounds' }]);
  assert.equal(ok.run.recipe?.rounds, 7);
  assert.equal(ok.where(['tasks', 'suites']), 'run.yaml:2:3');
  assert.equal(ok.where(['recipe', 'rounds']), '--rounds');
});

void test('every problem of a file is reported at once, in file order', () => {
  const text = ['recipe:', '  rounds: -1', '  group_sise: 3', 'tasks:', '  suites: [mall]'].join('\n');
  assert.deepEqual(problems(text), [
    'run.yaml:2:11: recipe.rounds: must be >= 1, got -1',
    'run.yaml:3:3: recipe.group_sise: unknown key (did you mean group_size?)',
    'run.yaml:5:12: tasks.suites[0]: must be one of shop, travel, wiki, mail, got "mall" (did you mean mail?)',
  ]);
});
