#!/usr/bin/env node
// npm run test:deploy: the deployment test on a real container engine.
//
// 1. A Docker engine: used if reachable; as root with apt, Debian's docker.io (and docker-compose)
//    are installed and dockerd is started when missing; otherwise it says why and skips (exit 0).
// 2. Images: owrl-<service>:$OWRL_TAG (default local) reused when present and labelled with this
//    tree's source hash (scripts/source-hash.mjs; OWRL_DEPLOY_REBUILD=1 rebuilds anyway), else
//    built by deploy/build-images.sh, which builds a stand-in base image where
//    the Node image cannot be pulled. NATS: nats:2.10-alpine if present or pullable, else a
//    stand-in from Debian's nats-server (deploy/nats/Dockerfile.stand-in).
// 3. Image checks (test/dist/deploy/images.stack.js), then the compose stack test
//    (test/dist/deploy/compose.stack.js) through testcontainers, with Compose v2 when the client
//    has it and Debian's docker-compose 1.29 otherwise (OWRL_DEPLOY_COMPOSE=v1|v2 forces one).
// Run `npm run build` first (the npm script does).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceHash } from './source-hash.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (m) => process.stderr.write(`[test:deploy] ${m}\n`);
const t0 = Date.now();

function skip(why) {
  say(`SKIPPED: ${why}`);
  process.exit(0);
}
const ok = (cmd, args) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const which = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim();
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = which('apt-get') !== '';

function aptInstall(pkgs) {
  say(`apt-get install ${pkgs.join(' ')}`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

// --- 1. the engine ----------------------------------------------------------------------------
// Debian's client first: it has BuildKit built in (a newer client without the buildx plugin cannot build).
const dockerClient = () => (fs.existsSync('/usr/bin/docker') ? '/usr/bin/docker' : which('docker'));
let docker = dockerClient();
if (!docker || (!ok(docker, ['info']) && !fs.existsSync('/usr/sbin/dockerd'))) {
  if (!(isRoot && hasApt)) skip(`no Docker engine is reachable${docker ? ` (${docker} info failed)` : ''} and this is not root with apt to install Debian's docker.io; install Docker and start it, then rerun`);
  // debootstrap: deploy/stand-in-base.sh builds the base image with it where no registry is reachable.
  aptInstall(['docker.io', 'docker-compose', 'iptables', 'debootstrap']);
  docker = dockerClient();
}
if (!ok(docker, ['info'])) {
  if (!isRoot) skip(`${docker} info failed and only root may start dockerd here; start the Docker engine, then rerun`);
  const dockerd = fs.existsSync('/usr/sbin/dockerd') ? '/usr/sbin/dockerd' : which('dockerd');
  if (!dockerd) skip('dockerd is not installed');
  const logFile = '/var/log/owrl-dockerd.log';
  say(`starting ${dockerd} (log: ${logFile})`);
  const child = spawn(dockerd, [], { detached: true, stdio: ['ignore', fs.openSync(logFile, 'a'), fs.openSync(logFile, 'a')] });
  child.unref();
  const deadline = Date.now() + 60_000;
  while (!ok(docker, ['info'])) {
    if (Date.now() > deadline) skip(`dockerd did not come up within 60 s (see ${logFile}; an unprivileged container cannot run it)`);
    spawnSync('sleep', ['1']);
  }
}
const engineS = Math.round((Date.now() - t0) / 1000);
say(`engine: ${execFileSync(docker, ['version', '-f', '{{.Server.Version}}'], { encoding: 'utf8' }).trim()} (client ${docker})`);

let composeMode = process.env.OWRL_DEPLOY_COMPOSE;
if (!composeMode) composeMode = ok(docker, ['compose', 'version']) ? 'v2' : 'v1';
if (composeMode === 'v1' && !which('docker-compose')) {
  if (isRoot && hasApt) aptInstall(['docker-compose']);
  else skip('neither `docker compose` (v2) nor `docker-compose` (v1) is installed');
}
say(`compose: ${composeMode === 'v1' ? execFileSync('docker-compose', ['version', '--short'], { encoding: 'utf8' }).trim() + ' (docker-compose)' : 'docker compose (v2)'}`);

// --- 2. images --------------------------------------------------------------------------------
const tag = process.env.OWRL_TAG ?? 'local';
const targets = ['sites', 'learner', 'judge', 'actor', 'cli'];
const have = (img) => ok(docker, ['image', 'inspect', img]);
const figures = { engine_s: engineS, compose: composeMode, images: {} };
// An image is reused only if it was built from this tree: a test of other code proves nothing.
const source = sourceHash();
const labelOf = (img) => spawnSync(docker, ['image', 'inspect', '-f', '{{index .Config.Labels "owrl.source"}}', img], { encoding: 'utf8' }).stdout?.trim();
const stale = targets.filter((t) => !have(`owrl-${t}:${tag}`) || (source !== undefined && labelOf(`owrl-${t}:${tag}`) !== source));
if (source === undefined) say('not a git checkout: images present are reused without a source check');
figures.source = source ?? 'unknown';
if (process.env.OWRL_DEPLOY_REBUILD === '1' || stale.length > 0) {
  if (stale.length > 0 && process.env.OWRL_DEPLOY_REBUILD !== '1') say(`images missing or built from another tree: ${stale.map((t) => `owrl-${t}:${tag}`).join(', ')}`);
  const tb = Date.now();
  // The stand-in base (no registry) is built with debootstrap: install it like the engine above.
  if (!which('debootstrap') && !have(process.env.OWRL_NODE_IMAGE ?? 'node:20-bookworm-slim') && isRoot && hasApt) aptInstall(['debootstrap']);
  say('building images (deploy/build-images.sh)');
  const r = spawnSync(path.join(root, 'deploy', 'build-images.sh'), [tag], { cwd: root, stdio: 'inherit', env: { ...process.env, DOCKER: docker, ...(source ? { OWRL_SOURCE_HASH: source } : {}) } });
  if (r.status !== 0) {
    say('image build failed (see above)');
    process.exit(1);
  }
  figures.build_s = Math.round((Date.now() - tb) / 1000);
} else say(`reusing images owrl-{${targets.join(',')}}:${tag}, built from this tree (source ${source}; OWRL_DEPLOY_REBUILD=1 rebuilds)`);
for (const t of targets) figures.images[`owrl-${t}`] = Number(execFileSync(docker, ['image', 'inspect', '-f', '{{.Size}}', `owrl-${t}:${tag}`], { encoding: 'utf8' }).trim());

const tn = Date.now();
let natsImage = process.env.OWRL_NATS_IMAGE ?? 'nats:2.10-alpine';
if (!have(natsImage) && spawnSync(docker, ['pull', natsImage], { stdio: 'ignore', timeout: 60_000 }).status !== 0) {
  natsImage = 'owrl-nats-stand-in:local';
  if (!have(natsImage)) {
    say(`cannot pull nats:2.10-alpine: building ${natsImage} from Debian's nats-server`);
    const r = spawnSync(docker, ['build', '-f', 'deploy/nats/Dockerfile.stand-in', '-t', natsImage, 'deploy/nats'], { cwd: root, stdio: 'inherit', env: { ...process.env, DOCKER_BUILDKIT: '1' } });
    if (r.status !== 0) process.exit(1);
  }
}
say(`nats image: ${natsImage}`);
figures.nats_image = natsImage;
figures.nats_image_s = Math.round((Date.now() - tn) / 1000);

// --- 3. the tests -----------------------------------------------------------------------------
const files = ['images.stack.js', 'compose.stack.js'].map((f) => path.join(root, 'test', 'dist', 'deploy', f));
for (const f of files) if (!fs.existsSync(f)) { say(`${f} is missing: run npm run build first`); process.exit(1); }
// The stack test writes its figures here; they end up in the one JSON line printed at the end.
const figuresFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-deploy-')), 'compose.json');
const tt = Date.now();
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=1', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    OWRL_TAG: tag,
    OWRL_NATS_IMAGE: natsImage,
    OWRL_DEPLOY_DOCKER: docker,
    OWRL_DEPLOY_COMPOSE: composeMode,
    OWRL_DEPLOY_FIGURES: figuresFile,
    // testcontainers' reaper is an image from a registry; the test removes its stack itself.
    TESTCONTAINERS_RYUK_DISABLED: 'true',
  },
});
figures.tests_s = Math.round((Date.now() - tt) / 1000);
figures.total_s = Math.round((Date.now() - t0) / 1000);
if (fs.existsSync(figuresFile)) figures.stack = JSON.parse(fs.readFileSync(figuresFile, 'utf8'));
fs.rmSync(path.dirname(figuresFile), { recursive: true, force: true });
// One JSON line of figures, the last line of the output.
process.stdout.write(`${JSON.stringify({ test_deploy: figures })}\n`);
process.exit(r.status ?? 1);
