#!/usr/bin/env node
// Runs the compiled test files (dist/test/**/*.test.js of every workspace, and test/dist/**) with
// node's test runner, then the PyTorch trainer's pytest suite (trainers/torch/tests) with the Python
// scripts/python.mjs picks ($OWRL_PYTHON, else python3 or /usr/bin/python3 with torch and grpc),
// exported as OWRL_PYTHON to the node tests too so that every test starts the same one; without
// such a Python the run fails, naming what to install. `--packages` runs only the tests of packages/* (they still start a real
// nats-server or Chromium where they test against one; the services' and cross-service tests are
// left out); `--system` runs only the whole-system fault and restart tests of test/system (many
// processes, minutes each; `npm run test:system`, also run by CI), which a plain run leaves out;
// file filters may follow and then select among all test files (a filter naming trainers/torch, or
// a part of a pytest file's path, selects the pytest suite).
//
// Files run two at a time (`--concurrency N` to change; node's own default is one on 2 cores; the
// system tests run one at a time), except those whose source starts with a `// test-run: alone
// (why)` line: timing bounds, a whole training run or stacks of processes, which run one at a
// time after the others so that a neighbour's load does not decide them. The slowest files and
// the total are printed at the end.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPython } from './python.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (args.includes('--help')) {
  console.log(`usage: node scripts/run-tests.mjs [--packages | --system] [--concurrency N] [FILTER...]
  (build first: npm run build). FILTER selects test files whose path contains it, among all of them.`);
  process.exit(0);
}
const packagesOnly = args.includes('--packages');
const systemOnly = args.includes('--system');
if (args.includes('--unit')) {
  console.error('--unit is now --packages: the packages\' tests include real nats-server and Chromium tests, so they are not unit tests');
  process.exit(2);
}
const ci = args.indexOf('--concurrency');
// The whole-system tests (many processes each) run one at a time unless asked otherwise.
const concurrency = ci >= 0 ? Number(args[ci + 1]) : systemOnly ? 1 : 2;
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`--concurrency must be an integer >= 1, got ${JSON.stringify(args[ci + 1])}`);
  process.exit(2);
}
const filters = args.filter((a, i) => !a.startsWith('--') && !(ci >= 0 && i === ci + 1));

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(p);
    return e.name.endsWith('.test.js') ? [p] : [];
  });
}

const roots = [];
for (const group of packagesOnly ? ['packages'] : ['packages', 'services']) {
  for (const ws of fs.readdirSync(path.join(root, group))) roots.push(path.join(root, group, ws, 'dist', 'test'));
}
if (!packagesOnly) roots.push(path.join(root, 'test', 'dist'));
const systemDir = path.join(root, 'test', 'dist', 'system') + path.sep;
let files = roots.flatMap(walk).sort();
if (filters.length > 0) files = files.filter((f) => filters.some((x) => f.includes(x)));
else if (systemOnly) files = files.filter((f) => f.startsWith(systemDir));
else files = files.filter((f) => !f.startsWith(systemDir));

// The PyTorch trainer's suite: with a plain run, or when a filter names it or one of its files.
const torchDir = path.join(root, 'trainers', 'torch');
const pytestFiles = fs.existsSync(path.join(torchDir, 'tests'))
  ? fs.readdirSync(path.join(torchDir, 'tests')).filter((f) => /^test_.*\.py$/.test(f)).map((f) => path.join('trainers', 'torch', 'tests', f))
  : [];
const pytestSelected = filters.length > 0 ? pytestFiles.filter((f) => filters.some((x) => f.includes(x))) : packagesOnly || systemOnly ? [] : pytestFiles;
const python = pytestSelected.length > 0 || files.some((f) => f.includes('torch')) ? findPython(['torch', 'grpc', 'google.protobuf', 'pytest', 'PIL']) : undefined;
if (pytestSelected.length > 0 && python && 'error' in python) {
  console.error(`cannot run the PyTorch trainer's tests (trainers/torch/tests): ${python.error}. \`node scripts/setup.mjs --for test\` installs them as root with apt.`);
  process.exit(1);
}
const testEnv = python && 'python' in python ? { ...process.env, OWRL_PYTHON: python.python } : process.env;

if (files.length === 0 && pytestSelected.length === 0) {
  console.error('no test files found: run `npm run build` first');
  process.exit(1);
}

/** Whether a compiled test file asks to run alone (a `// test-run: alone` line among its first lines). */
function runsAlone(file) {
  const head = fs.readFileSync(file, 'utf8').slice(0, 4000);
  return /^\/\/ test-run: alone\b/m.test(head);
}

const alone = files.filter(runsAlone);
const shared = files.filter((f) => !alone.includes(f));
// One times file per batch: a reporter destination is truncated when the next run opens it.
const timesDir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'owrl-test-times-'));
const timesFiles = [];
const reporter = path.join(root, 'scripts', 'test-file-times.mjs');
const t0 = Date.now();
let status = 0;
for (const [batch, n] of [
  [shared, concurrency],
  [alone, 1],
]) {
  if (batch.length === 0) continue;
  const timesFile = path.join(timesDir, `times-${timesFiles.length}.jsonl`);
  timesFiles.push(timesFile);
  const r = spawnSync(
    process.execPath,
    ['--test', `--test-concurrency=${n}`, '--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${reporter}`, `--test-reporter-destination=${timesFile}`, ...batch],
    { stdio: 'inherit', cwd: root, env: testEnv },
  );
  if ((r.status ?? 1) !== 0) status = r.status ?? 1;
}

let pytestMs;
if (pytestSelected.length > 0 && python && 'python' in python) {
  const all = pytestSelected.length === pytestFiles.length;
  console.log(`\n# pytest (${python.python}): ${all ? 'trainers/torch/tests' : pytestSelected.join(' ')}`);
  const p0 = Date.now();
  const r = spawnSync(python.python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...(all ? ['tests'] : pytestSelected.map((f) => path.relative(torchDir, path.join(root, f))))], {
    stdio: 'inherit',
    cwd: torchDir,
    env: { ...testEnv, PYTHONDONTWRITEBYTECODE: '1' },
  });
  pytestMs = Date.now() - p0;
  if ((r.status ?? 1) !== 0) status = r.status ?? 1;
}

// The slowest files (wall time of each file's process) and the wall time of the run.
const perFile = new Map();
for (const timesFile of timesFiles.filter((f) => fs.existsSync(f))) {
  for (const line of fs.readFileSync(timesFile, 'utf8').split('\n')) {
    if (!line) continue;
    const { file, ms } = JSON.parse(line);
    perFile.set(file, (perFile.get(file) ?? 0) + ms);
  }
}
fs.rmSync(timesDir, { recursive: true, force: true });
if (pytestMs !== undefined) perFile.set(path.join(torchDir, 'tests (pytest)'), pytestMs);
const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 15);
console.log(`\ntest files: ${files.length} (${shared.length} run ${concurrency} at a time, then ${alone.length} alone)${pytestMs !== undefined ? `, and the pytest suite of ${pytestSelected.length} files` : ''}; wall ${((Date.now() - t0) / 1000).toFixed(0)} s; slowest:`);
for (const [f, ms] of slowest) console.log(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${path.relative(root, f)}${alone.includes(f) ? '  (alone)' : ''}`);
process.exit(status);
