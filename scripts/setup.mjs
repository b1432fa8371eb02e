#!/usr/bin/env node
// Installs what a fresh machine is missing before `npm test`, `npm run demo` or `npm run bench`:
// the npm packages, and nats-server, Chromium (and for tests promtool, and the PyTorch trainer's
// Python packages with protoc and gRPC's Python plugin) through the system package manager when this
// user may (root with apt-get); otherwise it says exactly what to install. Uses only Node built-ins.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPython, PYTHON_DEBIAN_PACKAGES } from './python.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const purpose = process.argv[process.argv.indexOf('--for') + 1] ?? 'demo';
const say = (m) => process.stderr.write(`[setup] ${m}\n`);

function fail(msg) {
  process.stderr.write(`\n[setup] cannot continue: ${msg}\n`);
  process.exit(1);
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 10)) fail(`Node.js >= 20.10 is required, this is ${process.version}`);

function which(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
}
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = which('apt-get') !== '';
let aptUpdated = false;

function aptInstall(pkgs) {
  if (!aptUpdated) {
    say('apt-get update');
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    aptUpdated = true;
  }
  say(`apt-get install ${pkgs.join(' ')}`);
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/** An optional system package: installed with apt where this script can, else a line saying what is missing and what it costs. */
function ensureOptional(what, pkgs, how, without) {
  if (isRoot && hasApt) {
    try {
      aptInstall(pkgs);
    } catch {
      say(`${what} could not be installed: ${without}`);
    }
  } else say(`${what} is not installed (${how}): ${without}`);
}

function ensureSystem(name, found, pkgs, hint) {
  if (found()) return;
  if (isRoot && hasApt) {
    aptInstall(pkgs);
    if (found()) return;
  }
  fail(`${name} is not installed. ${hint}`);
}

// 1. npm packages (the lockfile pins them; install scripts are not needed: onnxruntime-node ships its CPU binary).
const lock = path.join(root, 'package-lock.json');
const marker = path.join(root, 'node_modules', '.package-lock.json');
const stale = !fs.existsSync(marker) || (fs.existsSync(lock) && fs.statSync(lock).mtimeMs > fs.statSync(marker).mtimeMs + 1000);
if (stale) {
  say(fs.existsSync(lock) ? 'npm ci' : 'npm install');
  const r = spawnSync('npm', [fs.existsSync(lock) ? 'ci' : 'install', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip', ONNXRUNTIME_NODE_INSTALL_CUDA: 'skip' },
  });
  if (r.status !== 0) fail('npm could not install the packages (see above)');
}

// 2. nats-server (only when no server is configured for a demo; tests always start their own).
const natsFound = () => ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server', process.env.NATS_SERVER_BIN].some((p) => p && fs.existsSync(p)) || which('nats-server') !== '';
if (purpose === 'test' || purpose === 'bench' || !process.env.NATS_URL) {
  ensureSystem('nats-server', natsFound, ['nats-server'], 'Install it (Debian/Ubuntu: `sudo apt-get install nats-server`; or a release binary from the NATS project, with NATS_SERVER_BIN pointing at it), or set NATS_URL to a JetStream-enabled server for the demo.');
}

// 3. Chromium for the actors (Playwright drives the system browser; no browser download).
const chromiumFound = () => [process.env.OWRL_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].some((p) => p && fs.existsSync(p));
ensureSystem('Chromium', chromiumFound, ['chromium'], 'Install it (Debian: `sudo apt-get install chromium`) or set OWRL_CHROMIUM to a Chromium/Chrome executable.');
// 3b. Debian's old headless shell, optional: the demo's actors use it on the bundled sites (the same
// episodes for about a third less CPU per step than the full browser); without it they use Chromium.
if (!fs.existsSync('/usr/bin/chromium-headless-shell')) {
  ensureOptional('chromium-headless-shell', ['chromium-headless-shell'], 'Debian: `sudo apt-get install chromium-headless-shell`', 'the demo\'s browsers are the full Chromium (slower rounds)');
}
// 4. promtool for the metrics format tests (Debian's prometheus package); optional: without it
// those tests check owrl's own exposition rules only, and say so.
const promtoolFound = () => [process.env.PROMTOOL, '/usr/bin/promtool', '/usr/local/bin/promtool'].some((p) => p && fs.existsSync(p));
if (purpose === 'test' && !promtoolFound()) {
  ensureOptional('promtool', ['prometheus'], 'Debian: `sudo apt-get install prometheus`, or PROMTOOL=path', 'the metrics tests check owrl\'s own exposition rules only');
}
// 5. The PyTorch trainer (trainers/torch) for its pytest suite and the torch loop test: a Python with
// torch, grpcio, protobuf, pytest and PIL (Debian's, /usr/bin/python3, when the first python3 on
// PATH lacks them), and for `npm run gen` / `gen:check` protoc with gRPC's Python plugin.
if (purpose === 'test') {
  const modules = ['torch', 'grpc', 'google.protobuf', 'pytest', 'PIL', 'numpy'];
  const pythonFound = () => 'python' in findPython(modules);
  const python = findPython(modules);
  ensureSystem('A Python with torch, grpcio, protobuf, pytest and PIL', pythonFound, ['python3', ...PYTHON_DEBIAN_PACKAGES], 'error' in python ? python.error : '');
  // Debian's torch links the BLAS the system selects; the reference one is some 20x slower at a matmul than OpenBLAS.
  const openblas = () => fs.readdirSync('/usr/lib').some((d) => fs.existsSync(path.join('/usr/lib', d, 'openblas-pthread')));
  if (hasApt && !openblas()) ensureOptional('OpenBLAS', ['libopenblas0-pthread'], 'Debian: `sudo apt-get install libopenblas0-pthread`', 'Debian\'s torch runs on the reference BLAS and the trainer tests take several times longer');
  const protocFound = () => which('protoc') !== '' && which('grpc_python_plugin') !== '';
  ensureSystem('protoc with gRPC\'s Python plugin', protocFound, ['protobuf-compiler', 'protobuf-compiler-grpc'], 'Install them (Debian/Ubuntu: `sudo apt-get install protobuf-compiler protobuf-compiler-grpc`), or a Python with grpcio-tools >= 1.38 as OWRL_PYTHON; `npm run gen` writes the trainer\'s Python code with them.');
}
say(`ready for ${purpose}`);
