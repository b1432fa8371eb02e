#!/usr/bin/env node
// Runs the compiled test files (dist/test/**/*.test.js of every workspace, and test/dist/**) with
// node's test runner. `--packages` runs only the tests of packages/* (they still start a real
// nats-server or Chromium where they test against one; the services' and cross-service tests are
// left out); `--system` runs only the whole-system fault and restart tests of test/system (many
// processes, minutes each; `npm run test:system`, also run by CI), which a plain run leaves out;
// file filters may follow and then select among all test files.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const packagesOnly = args.includes('--packages');
const systemOnly = args.includes('--system');
if (args.includes('--unit')) {
  console.error('--unit is now --packages: the packages\' tests include real nats-server and Chromium tests, so they are not unit tests');
  process.exit(2);
}
const filters = args.filter((a) => !a.startsWith('--'));

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
if (files.length === 0) {
  console.error('no test files found: run `npm run build` first');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
