#!/usr/bin/env node
// Generates the TypeScript of the wire contracts (proto/ -> packages/proto/src/gen) with buf and
// protoc-gen-es. With --check it generates into a temporary folder and fails when the committed
// code differs (stale generated code), which CI runs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'node_modules', '.bin');
const target = path.join(root, 'packages', 'proto', 'src', 'gen');
const check = process.argv.includes('--check');

function generate(outDir) {
  const tmpl = {
    version: 'v2',
    plugins: [{ local: path.join(bin, 'protoc-gen-es'), out: outDir, opt: ['target=ts', 'import_extension=js'] }],
  };
  execFileSync(path.join(bin, 'buf'), ['generate', '--template', JSON.stringify(tmpl)], {
    cwd: path.join(root, 'proto'),
    stdio: 'inherit',
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
  });
}

function listFiles(dir, base = dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(p, base) : [path.relative(base, p)];
  }).sort();
}

if (check) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-gen-'));
  try {
    generate(tmp);
    const want = listFiles(tmp);
    const have = listFiles(target);
    const stale = [];
    for (const f of new Set([...want, ...have])) {
      const a = fs.existsSync(path.join(tmp, f)) ? fs.readFileSync(path.join(tmp, f), 'utf8') : null;
      const b = fs.existsSync(path.join(target, f)) ? fs.readFileSync(path.join(target, f), 'utf8') : null;
      if (a !== b) stale.push(f);
    }
    if (stale.length > 0) {
      console.error(`generated code is stale; run \`npm run gen\` and commit. Differing files:\n  ${stale.join('\n  ')}`);
      process.exit(1);
    }
    console.log(`generated code is up to date (${want.length} files)`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
} else {
  fs.rmSync(target, { recursive: true, force: true });
  generate(target);
  console.log(`generated ${listFiles(target).length} files into ${path.relative(root, target)}`);
}
