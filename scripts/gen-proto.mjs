#!/usr/bin/env node
// Generates the code of the wire contracts: TypeScript (proto/ -> packages/proto/src/gen) with buf
// and protoc-gen-es, and Python messages and gRPC stubs for the PyTorch trainer
// (-> trainers/torch/owrl_torch/proto) with protoc's python output and gRPC's Python plugin. With
// --check it generates into a temporary folder and fails when the committed code differs (stale
// generated code), which CI runs.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPython } from './python.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'node_modules', '.bin');
const target = path.join(root, 'packages', 'proto', 'src', 'gen');
const pyTarget = path.join(root, 'trainers', 'torch', 'owrl_torch', 'proto');
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

// --- Python (trainers/torch/owrl_torch/proto) ---------------------------------------------------

const PY_PROTOS = () => [
  ...fs.readdirSync(path.join(root, 'proto', 'owrl', 'v1')).filter((f) => f.endsWith('.proto')).sort().map((f) => `owrl/v1/${f}`),
  'grpc/health/v1/health.proto',
];
// Packages whose generated modules import each other: rewritten under owrl_torch.proto so that the
// generated `grpc.health.v1` does not shadow grpcio's own `grpc`.
const PY_PACKAGES = ['owrl.v1', 'grpc.health.v1'];
const PY_INSTALL = 'Install protoc and gRPC\'s Python plugin (Debian/Ubuntu: `sudo apt-get install protobuf-compiler protobuf-compiler-grpc`, or `node scripts/setup.mjs --for test`), or a Python with grpcio-tools >= 1.38 (`pip install grpcio-tools`, OWRL_PYTHON to choose it)';

function run(cmd, args) {
  return spawnSync(cmd, args, { encoding: 'utf8' });
}

/** protoc's version as [major, minor], or undefined. */
function protocVersion(out) {
  const m = /libprotoc (\d+)\.(\d+)(?:\.(\d+))?/.exec(out ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

/** proto3 `optional` (SamplerSettings.seed) needs protoc 3.15 or later. */
const recentEnough = (v) => v !== undefined && (v[0] > 3 || (v[0] === 3 && v[1] >= 15));

/** How to run protoc with Python output here, and a stamp naming the generator (written into the package). */
function pythonGenerator() {
  const tried = [];
  const which = (c) => {
    const r = run('sh', ['-c', `command -v ${c}`]);
    return r.status === 0 ? r.stdout.trim() : '';
  };
  const protoc = which('protoc');
  const plugin = which('grpc_python_plugin');
  if (protoc && plugin) {
    const v = protocVersion(run(protoc, ['--version']).stdout);
    if (recentEnough(v)) {
      return { stamp: `protoc ${v.join('.')} + grpc_python_plugin`, argv: (args) => [protoc, [`--plugin=protoc-gen-grpc_python=${plugin}`, ...args]] };
    }
    tried.push(`${protoc} is libprotoc ${v?.join('.') ?? '?'}, older than 3.15`);
  } else tried.push(protoc ? 'grpc_python_plugin is not on PATH' : 'protoc is not on PATH');
  const py = findPython(['grpc_tools']);
  if ('python' in py) {
    const v = protocVersion(run(py.python, ['-m', 'grpc_tools.protoc', '--version']).stdout);
    if (recentEnough(v)) {
      const include = run(py.python, ['-c', 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))']).stdout.trim();
      return { stamp: `grpc_tools.protoc (libprotoc ${v.join('.')})`, argv: (args) => [py.python, ['-m', 'grpc_tools.protoc', `-I${include}`, ...args]] };
    }
    tried.push(`${py.python} -m grpc_tools.protoc is libprotoc ${v?.join('.') ?? '?'}, older than 3.15`);
  } else tried.push(py.error);
  throw new Error(`cannot generate the Python code (${tried.join('; ')}). ${PY_INSTALL}`);
}

function fixImports(src) {
  let out = src;
  for (const pkg of PY_PACKAGES) {
    const esc = pkg.replace(/\./g, '\\.');
    out = out.replace(new RegExp(`^from ${esc} import `, 'gm'), `from owrl_torch.proto.${pkg} import `);
    out = out.replace(new RegExp(`(BuildTopDescriptorsAndMessages\\(DESCRIPTOR, ')${esc}\\.`, 'g'), `$1owrl_torch.proto.${pkg}.`);
  }
  return out;
}

function generatePython(outDir, gen = pythonGenerator()) {
  const protos = PY_PROTOS();
  const services = protos.filter((f) => /^service\s/m.test(fs.readFileSync(path.join(root, 'proto', f), 'utf8')));
  fs.mkdirSync(outDir, { recursive: true });
  for (const args of [
    ['-I.', `--python_out=${outDir}`, ...protos],
    ['-I.', `--grpc_python_out=${outDir}`, ...services],
  ]) {
    const [cmd, argv] = gen.argv(args);
    const r = spawnSync(cmd, argv, { cwd: path.join(root, 'proto'), encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  }
  for (const f of listFiles(outDir)) {
    const p = path.join(outDir, f);
    fs.writeFileSync(p, fixImports(fs.readFileSync(p, 'utf8')));
  }
  // every folder a package; the top one names the generator (gen:check compares like with like)
  const dirs = new Set(['.']);
  for (const f of listFiles(outDir)) for (let d = path.dirname(f); d !== '.'; d = path.dirname(d)) dirs.add(d);
  for (const d of dirs) {
    const body =
      d === '.'
        ? `"""Message and gRPC code of owrl's wire contracts (proto/), generated by \`npm run gen\`; do not edit."""\n\nGENERATOR = ${JSON.stringify(gen.stamp)}\n`
        : '';
    fs.writeFileSync(path.join(outDir, d, '__init__.py'), body);
  }
  return gen.stamp;
}

/** The bytes of a Python bytes literal as protoc writes them (\xNN, octal, and the C escapes). */
function pyBytes(lit) {
  const out = [];
  const simple = { n: 10, r: 13, t: 9, '\\': 92, "'": 39, '"': 34, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < lit.length; i++) {
    const c = lit[i];
    if (c !== '\\') {
      out.push(c.charCodeAt(0));
      continue;
    }
    const n = lit[++i];
    if (n === 'x') {
      out.push(parseInt(lit.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (/[0-7]/.test(n)) {
      const m = /^[0-7]{1,3}/.exec(lit.slice(i))[0];
      out.push(parseInt(m, 8));
      i += m.length - 1;
    } else out.push(simple[n] ?? n.charCodeAt(0));
  }
  return Buffer.from(out).toString('hex');
}

/** What a generated file means, apart from how a generator version spells it. */
function pythonMeaning(file, text) {
  if (text === null) return null;
  if (file.endsWith('_pb2.py')) {
    const m = /AddSerializedFile\(b'((?:[^'\\]|\\.)*)'\)/.exec(text);
    return m ? `descriptor ${pyBytes(m[1])}` : text;
  }
  if (file.endsWith('_pb2_grpc.py')) return [...text.matchAll(/channel\.(\w+)\(\s*'([^']+)'/g)].map((m) => `${m[1]} ${m[2]}`).join('\n');
  if (file === '__init__.py') return 'package';
  return text;
}

function compare(want, have, meaning = (_f, t) => t) {
  const stale = [];
  for (const f of new Set([...listFiles(want), ...listFiles(have)])) {
    const a = fs.existsSync(path.join(want, f)) ? fs.readFileSync(path.join(want, f), 'utf8') : null;
    const b = fs.existsSync(path.join(have, f)) ? fs.readFileSync(path.join(have, f), 'utf8') : null;
    if (meaning(f, a) !== meaning(f, b)) stale.push(f);
  }
  return stale;
}

function committedStamp() {
  const init = path.join(pyTarget, '__init__.py');
  if (!fs.existsSync(init)) return undefined;
  return /^GENERATOR = "(.*)"$/m.exec(fs.readFileSync(init, 'utf8'))?.[1];
}

function fail(msg) {
  console.error(msg);
  process.exit(1);
}

if (check) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-gen-'));
  try {
    generate(path.join(tmp, 'ts'));
    const stale = compare(path.join(tmp, 'ts'), target).map((f) => path.join(path.relative(root, target), f));
    let gen;
    try {
      gen = pythonGenerator();
    } catch (e) {
      fail(`gen:check: ${e.message}`);
    }
    const stamp = generatePython(path.join(tmp, 'py'), gen);
    const same = stamp === committedStamp();
    // Another protoc spells the same code differently: then the descriptors and RPCs are compared.
    stale.push(...compare(path.join(tmp, 'py'), pyTarget, same ? undefined : pythonMeaning).map((f) => path.join(path.relative(root, pyTarget), f)));
    if (stale.length > 0) fail(`generated code is stale; run \`npm run gen\` and commit. Differing files:\n  ${stale.join('\n  ')}`);
    const note = same ? '' : ` (Python compared by descriptors: generated here with ${stamp}, committed with ${committedStamp() ?? 'an unknown generator'})`;
    console.log(`generated code is up to date (${listFiles(path.join(tmp, 'ts')).length} TypeScript, ${listFiles(path.join(tmp, 'py')).length} Python files)${note}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
} else {
  let gen;
  try {
    gen = pythonGenerator();
  } catch (e) {
    fail(`gen: ${e.message}`);
  }
  fs.rmSync(target, { recursive: true, force: true });
  generate(target);
  console.log(`generated ${listFiles(target).length} files into ${path.relative(root, target)}`);
  fs.rmSync(pyTarget, { recursive: true, force: true });
  const stamp = generatePython(pyTarget, gen);
  console.log(`generated ${listFiles(pyTarget).length} files into ${path.relative(root, pyTarget)} (${stamp})`);
}
