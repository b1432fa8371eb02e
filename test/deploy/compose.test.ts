// Every compose file under deploy/, offline (no Docker): parsed as Compose parses it (merge keys),
// interpolated with test values, and validated against the Compose Specification JSON schema,
// the schema Compose v2 validates a file against, with unknown or misspelt keys failing. Also
// the rules both Compose v2 and docker-compose 1.29 need beyond the schema (no top-level
// `name:`, every `depends_on` names a service, named volumes declared, bind sources present).
// Negative cases prove that each check can fail. A run on a real engine with docker-compose 1.29
// is test/deploy/compose.stack.ts (`npm run test:deploy`); no Compose v2 engine runs here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRunFile } from '@owrl/run-file';
import {
  composeRuleErrors,
  composeSpecSchema,
  findComposeFiles,
  interpolate,
  InterpolationError,
  interpolateString,
  parseCompose,
  validateComposeSchema,
} from './compose-spec.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DEPLOY = path.join(ROOT, 'deploy');
const FILES = findComposeFiles(DEPLOY);

/* eslint-disable @typescript-eslint/no-explicit-any -- walking parsed YAML */

/** The variables of deploy/env.example with the required password filled in (a user's deploy/.env). */
function exampleEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of fs.readFileSync(path.join(DEPLOY, 'env.example'), 'utf8').split('\n')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!;
  }
  env.OWRL_NATS_PASSWORD = 'owrl-test-password';
  return env;
}
/** Only the required variable set: every `${VAR:-default}` takes its default. */
const MINIMAL_ENV = { OWRL_NATS_PASSWORD: 'owrl-test-password' };

function load(file: string, env: Record<string, string>): any {
  return interpolate(parseCompose(fs.readFileSync(file, 'utf8')), env);
}
function problems(doc: any, file: string): string[] {
  return [...validateComposeSchema(doc), ...composeRuleErrors(doc, path.dirname(file))];
}
const rel = (f: string): string => path.relative(ROOT, f);

void test('the schema is the Compose Specification', () => {
  const schema = composeSpecSchema();
  assert.equal(schema.title, 'Compose Specification');
  assert.equal(schema.properties.services.additionalProperties, false);
  const service = schema.definitions.service;
  assert.equal(service.additionalProperties, false, 'unknown service keys are refused');
  for (const key of ['healthcheck', 'depends_on', 'profiles', 'shm_size', 'deploy', 'stop_grace_period']) {
    assert.ok(key in service.properties, `service.${key} is in the schema`);
  }
  assert.deepEqual(Object.keys(schema.patternProperties), ['^x-'], 'x- extensions allowed at the top level');
  assert.ok(!('name' in schema.properties), 'this schema predates the top-level name (checked separately)');
});

void test('deploy/ has the compose files', () => {
  assert.ok(FILES.includes(path.join(DEPLOY, 'docker-compose.yml')), `found ${FILES.map(rel).join(', ')}`);
});

for (const file of FILES) {
  for (const [label, env] of [
    ['defaults', MINIMAL_ENV],
    ['env.example', exampleEnv()],
  ] as const) {
    void test(`${rel(file)} (${label}) is valid for the Compose Specification and both Compose versions`, () => {
      const doc = load(file, env);
      assert.deepEqual(problems(doc, file), []);
      assert.ok(Object.keys(doc.services).length > 0, 'has services');
    });
  }
}

void test('interpolation: the required password stops every command without it, with its message', () => {
  for (const file of FILES) {
    const text = fs.readFileSync(file, 'utf8');
    if (!text.includes('OWRL_NATS_PASSWORD')) continue;
    assert.throws(() => load(file, {}), (e: Error) => e instanceof InterpolationError && /OWRL_NATS_PASSWORD.*deploy\/env\.example/.test(e.message));
    assert.throws(() => load(file, { OWRL_NATS_PASSWORD: '' }), InterpolationError, 'empty counts as missing (:?)');
  }
});

void test('interpolation follows Compose for the forms both versions know, and refuses the others', () => {
  const env = { SET: 'v', EMPTY: '' };
  const i = (s: string): string => interpolateString(s, env, 'x');
  assert.equal(i('$SET ${SET} ${UNSET}'), 'v v ');
  assert.equal(i('${UNSET:-d} ${EMPTY:-d} ${EMPTY-d} ${UNSET-d} ${SET:-d}'), 'd d  d v');
  assert.equal(i('${EMPTY?m}|${SET:?m}'), '|v');
  assert.equal(i('[[ $$status == 200 ]]'), '[[ $status == 200 ]]');
  assert.throws(() => i('${UNSET?need it}'), /required variable UNSET is missing a value: need it/);
  assert.throws(() => i('${EMPTY:?need it}'), /EMPTY/);
  assert.throws(() => i('${UNSET:-${SET}}'), /nested interpolation/);
  assert.throws(() => i('${SET:+alt}'), /invalid interpolation format/);
  assert.throws(() => i('cost: $5'), /invalid interpolation format/);
});

void test('misspelt keys, bad values and the v1 constraints fail', () => {
  const file = path.join(DEPLOY, 'docker-compose.yml');
  const base = (): any => load(file, MINIMAL_ENV);
  const expectProblem = (mutate: (d: any) => void, re: RegExp): void => {
    const d = base();
    mutate(d);
    const found = problems(d, file);
    assert.ok(found.some((p) => re.test(p)), `expected ${re} among ${JSON.stringify(found)}`);
  };
  expectProblem((d) => {
    d.services.learner.helthcheck = d.services.learner.healthcheck;
    delete d.services.learner.healthcheck;
  }, /^\/services\/learner: unknown key "helthcheck"/);
  expectProblem((d) => (d.services.actor.depends_on.nats.condition = 'service_healty'), /^\/services\/actor\/depends_on\/nats\/condition: must be equal to one of the allowed values/);
  expectProblem((d) => (d.services.nats.healthcheck.intervall = '5s'), /^\/services\/nats\/healthcheck: unknown key "intervall"/);
  expectProblem((d) => (d.services.nats.healthcheck.interval = '5 seconds'), /^\/services\/nats\/healthcheck\/interval: must match format "duration"/);
  expectProblem((d) => (d.services.actor.shm_size = ['1gb']), /^\/services\/actor\/shm_size: must be/);
  expectProblem((d) => (d.services.learner.ports = ['127.0.0.1:grpc:50051']), /^\/services\/learner\/ports\/0: must match format "ports"/);
  expectProblem((d) => (d.servics = {}), /^\/: unknown key "servics"/);
  expectProblem((d) => (d.name = 'owrl'), /^\/name: a top-level name is refused by docker-compose 1\.29/);
  expectProblem((d) => (d.services.judge.depends_on.natz = { condition: 'service_healthy' }), /depends_on: "natz" is not a service/);
  expectProblem((d) => (d.services.judge.depends_on.cli = { condition: 'service_started' }), /"cli" runs only with a profile \(tools\) but judge runs without one/);
  expectProblem((d) => d.services.learner.volumes.push('learner-cache:/cache'), /named volume "learner-cache" is not declared/);
  expectProblem((d) => (d.services.nats.volumes[0] = './nats/missing.conf:/etc/nats/owrl-nats.conf:ro'), /bind source \.\/nats\/missing\.conf does not exist/);
});

void test('YAML as Compose reads it: merge keys resolved, duplicate keys refused', () => {
  const d = parseCompose('x-a: &a\n  K: "1"\nservices:\n  s:\n    image: i\n    environment:\n      <<: *a\n      L: "2"\n');
  assert.deepEqual(d.services.s.environment, { K: '1', L: '2' });
  assert.throws(() => parseCompose('services:\n  s:\n    image: a\n    image: b\n'), /unique|duplicate/i);
});

void test('one run file: every service that reads OWRL_RUN_FILE mounts deploy/run.yaml there (or OWRL_RUN_FILE_HOST), and the file is valid', () => {
  for (const [env, host] of [
    [MINIMAL_ENV, './run.yaml'],
    [{ ...MINIMAL_ENV, OWRL_RUN_FILE_HOST: '/srv/my-run.yaml' }, '/srv/my-run.yaml'],
  ] as const) {
    const doc = load(path.join(DEPLOY, 'docker-compose.yml'), env);
    const readers = Object.entries(doc.services as Record<string, any>).filter(([, s]) => s.environment?.OWRL_RUN_FILE !== undefined);
    assert.deepEqual(readers.map(([n]) => n).sort(), ['actor', 'console', 'judge', 'learner', 'sites']);
    for (const [name, s] of readers) {
      assert.ok((s.volumes ?? []).includes(`${host}:${s.environment.OWRL_RUN_FILE}:ro`), `${name} mounts ${host} at ${s.environment.OWRL_RUN_FILE}: ${JSON.stringify(s.volumes)}`);
      for (const k of ['OWRL_ROUNDS', 'OWRL_GROUP_SIZE', 'OWRL_SLOTS', 'OWRL_ALLOW_HOSTS', 'OWRL_RUN_ID']) assert.ok(!(k in s.environment), `${name}: ${k} lives in the run file, not repeated here`);
    }
  }
  const run = parseRunFile(fs.readFileSync(path.join(DEPLOY, 'run.yaml'), 'utf8'), 'deploy/run.yaml').run;
  assert.equal(run.tasks.sites_url, 'http://sites:8400', 'the sites service');
  assert.deepEqual(run.fleet?.allow_hosts, ['sites:8400']);
  assert.equal(run.state?.data_dir, '/data/learner', "on the learner's volume");
});
