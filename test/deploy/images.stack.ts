// The built images (deploy/Dockerfile targets): non-root, tini as PID 1 reaping zombies, Debian's
// Chromium in the actor image, no secrets. Run by `npm run test:deploy` after the images exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const DOCKER = process.env.OWRL_DEPLOY_DOCKER ?? 'docker';
const TAG = process.env.OWRL_TAG ?? 'local';
const TARGETS = ['sites', 'learner', 'judge', 'actor', 'cli'];
const run = promisify(execFile);

interface ImageConfig {
  User: string;
  Entrypoint: string[] | null;
  Cmd: string[] | null;
  Env: string[];
}
async function config(image: string): Promise<ImageConfig> {
  const { stdout } = await run(DOCKER, ['image', 'inspect', '-f', '{{json .Config}}', image]);
  return JSON.parse(stdout) as ImageConfig;
}
async function inImage(image: string, args: string[], entrypoint?: string): Promise<string> {
  const { stdout } = await run(DOCKER, ['run', '--rm', '--network', 'none', ...(entrypoint ? ['--entrypoint', entrypoint] : []), image, ...args], { timeout: 120_000 });
  return stdout;
}

void test('every image: non-root user, tini entrypoint, its service as the command, no secrets', async () => {
  for (const t of TARGETS) {
    const image = `owrl-${t}:${TAG}`;
    const c = await config(image);
    assert.equal(c.User, 'node', `${image} runs as node`);
    assert.deepEqual(c.Entrypoint, ['/usr/bin/tini', '--', 'node'], `${image} entrypoint`);
    if (t !== 'cli') assert.equal(c.Cmd?.[0], `services/${t}/dist/src/main.js`);
    // No secret-looking variable with a value baked in.
    for (const kv of c.Env) {
      const [k, ...v] = kv.split('=');
      if (/TOKEN|PASSWORD|SECRET|_KEY|CREDS|NKEY/i.test(k!)) assert.equal(v.join('='), '', `${image} bakes in ${k}`);
    }
    // No env files, control tokens, npm credentials or git history in the image.
    const found = await inImage(image, ['-c', "find / -xdev \\( -name '.env' -o -name '*.env' -o -name 'control-token.env' -o -name '.git' -o -name '.npmrc' \\) -not -path '/proc/*' 2>/dev/null; grep -rls '_authToken' /app/.npmrc /root/.npmrc /home/node/.npmrc 2>/dev/null || true"], '/bin/sh');
    const hits = found.split('\n').filter((l) => l && !l.startsWith('/app/.npmrc') && !l.includes('/node_modules/'));
    assert.deepEqual(hits, [], `${image} holds ${hits.join(', ')}`);
    assert.equal((await inImage(image, ['-c', 'id -u'], '/bin/sh')).trim(), '1000');
  }
});

void test('actor image: Debian Chromium runs as the non-root user', async () => {
  const out = await inImage(`owrl-actor:${TAG}`, ['-c', '/usr/bin/chromium --version'], '/bin/sh');
  assert.match(out, /Chromium \d+/);
  const c = await config(`owrl-actor:${TAG}`);
  assert.ok(c.Env.includes('OWRL_CHROMIUM=/usr/bin/chromium'));
  for (const t of ['sites', 'learner', 'judge']) {
    assert.equal((await inImage(`owrl-${t}:${TAG}`, ['-c', 'test -e /usr/bin/chromium && echo yes || echo no'], '/bin/sh')).trim(), 'no', `${t} image carries no browser`);
  }
});

// A child that forks a grandchild and exits leaves the grandchild to PID 1; when it exits, only
// an init that reaps (tini) removes it. Counted in /proc after it has exited.
const ZOMBIES = `
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
for (let i = 0; i < 3; i++) spawnSync('sh', ['-c', 'sleep 0.2 & exit 0']);
setTimeout(() => {
  const z = fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).filter((p) => {
    try { return fs.readFileSync('/proc/' + p + '/stat', 'utf8').split(') ')[1].startsWith('Z'); } catch { return false; }
  });
  console.log(z.length);
}, 1500);`;

void test('tini reaps orphaned processes (and node as PID 1 would not)', async () => {
  const image = `owrl-actor:${TAG}`;
  const withTini = Number((await inImage(image, ['-e', ZOMBIES])).trim());
  assert.equal(withTini, 0, 'no zombie under tini');
  const bareNode = Number((await inImage(image, ['-e', ZOMBIES], 'node')).trim());
  assert.ok(bareNode >= 1, `node as PID 1 leaves zombies (${bareNode}): the check can fail`);
});
