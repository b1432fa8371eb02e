#!/usr/bin/env node
// Takes the README screenshots of the console (docs/img/console-overview.png and
// docs/img/console-trajectory.png) from a real short run: runs the Chromium page test of
// services/console with OWRL_CONSOLE_SHOTS pointing at docs/img. Build first (npm run build);
// it starts Chromium and a whole system, so on a shared machine run it under the heavy lock.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'docs', 'img');
const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'run-tests.mjs'), 'services/console/dist/test/pages'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, OWRL_CONSOLE_SHOTS: out },
});
if (r.status === 0) console.log(`screenshots written to ${out}`);
process.exit(r.status ?? 1);
