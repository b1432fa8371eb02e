#!/usr/bin/env node
// Writes docs/run-file.md, the run file's reference, from its schema (packages/run-file). With
// --check it fails when the committed reference differs (a stale reference), which CI runs through
// `npm run gen:check`. Builds @owrl/run-file first, so it runs on a fresh clone before `npm run build`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'docs', 'run-file.md');
const check = process.argv.includes('--check');

execFileSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-b', path.join(root, 'packages', 'run-file')], { stdio: 'inherit' });
const { renderReference } = await import(pathToFileURL(path.join(root, 'packages', 'run-file', 'dist', 'src', 'index.js')).href);
const text = renderReference();
if (check) {
  const have = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
  if (have !== text) {
    process.stderr.write(`docs/run-file.md is stale: run \`npm run gen\` (node scripts/gen-run-file-doc.mjs) and commit it\n`);
    process.exit(1);
  }
  process.stdout.write('docs/run-file.md is up to date\n');
} else {
  fs.writeFileSync(target, text);
  process.stdout.write(`wrote ${path.relative(root, target)}\n`);
}
