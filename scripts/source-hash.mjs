#!/usr/bin/env node
// The source hash of the owrl images: sha256 over the path and bytes of every file of the image
// build context (deploy/Dockerfile's, filtered like deploy/Dockerfile.dockerignore), in path order.
// deploy/build-images.sh labels each image `owrl.source=<hash>`; `npm run test:deploy` reuses an
// image only when its label matches the working tree, so a test never runs an image built from
// other code.
//
//   node scripts/source-hash.mjs        prints the hash (nothing, exit 1, outside a git checkout)
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Paths the image build context leaves out (deploy/Dockerfile.dockerignore), plus what git ignores anyway. */
function inContext(p) {
  if (p === 'deploy/Dockerfile') return true; // not in the context, but it decides what is built
  if (p.endsWith('.md') || p.endsWith('.log') || p.endsWith('.tsbuildinfo') || p.endsWith('/.env') || p === '.env') return false;
  const top = p.split('/')[0];
  if (['.git', '.owrl', 'runs', 'tmp', '.gl', 'docs', 'deploy', '.ci'].includes(top)) return false;
  return !p.split('/').some((part) => part === 'node_modules' || part === 'dist');
}

/** The hash, or undefined where git cannot list the files (not a checkout). */
export function sourceHash(dir = root) {
  // Tracked files and untracked ones git does not ignore: what a build of this tree would copy.
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: dir, encoding: 'buffer', maxBuffer: 64 << 20 });
  if (r.status !== 0) return undefined;
  const files = [...new Set(r.stdout.toString('utf8').split('\0').filter(Boolean))].filter(inContext).sort();
  const h = crypto.createHash('sha256');
  for (const f of files) {
    let bytes;
    try {
      bytes = fs.readFileSync(path.join(dir, f));
    } catch (e) {
      if (e.code === 'ENOENT') continue; // deleted in the working tree, not yet in the index
      throw e;
    }
    h.update(`${f}\0${bytes.length}\0`);
    h.update(bytes);
  }
  return h.digest('hex').slice(0, 32);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const hash = sourceHash();
  if (!hash) {
    process.stderr.write('source-hash: not a git checkout (git ls-files failed)\n');
    process.exit(1);
  }
  process.stdout.write(`${hash}\n`);
}
