#!/usr/bin/env node
// Runs the compiled test files (dist/test/**/*.test.js of every workspace, and test/dist/**) with
// node's test runner. `--unit` runs only the packages' tests; file filters may follow.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
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
for (const group of unitOnly ? ['packages'] : ['packages', 'services']) {
  for (const ws of fs.readdirSync(path.join(root, group))) roots.push(path.join(root, group, ws, 'dist', 'test'));
}
if (!unitOnly) roots.push(path.join(root, 'test', 'dist'));
let files = roots.flatMap(walk).sort();
if (filters.length > 0) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files found: run `npm run build` first');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
