// Which Python owrl's scripts start for the PyTorch trainer (trainers/torch): $OWRL_PYTHON when
// set, else the first of `python3` and `/usr/bin/python3` that imports the modules asked for. A
// version manager's `python3` first on PATH (pyenv, conda) often lacks Debian's torch and grpcio,
// which is why the system one is tried second instead of trusting PATH. Uses only Node built-ins.
import { spawnSync } from 'node:child_process';

/** Debian packages that give /usr/bin/python3 what the trainer and its tests import. */
export const PYTHON_DEBIAN_PACKAGES = ['python3-torch', 'python3-grpcio', 'python3-protobuf', 'python3-pytest', 'python3-pil', 'python3-numpy'];

const INSTALL_HINT = `Install them (Debian/Ubuntu: \`sudo apt-get install ${PYTHON_DEBIAN_PACKAGES.join(' ')}\`; elsewhere pip install torch grpcio protobuf pytest pillow numpy) or set OWRL_PYTHON to a Python that has them`;

/** The modules of `modules` that `python` cannot import (all of them when it does not run). */
export function missingModules(python, modules) {
  const probe = [
    'import importlib.util, sys',
    'def found(m):',
    '    try:',
    '        return importlib.util.find_spec(m) is not None',
    '    except ImportError:',
    '        return False',
    'print(",".join(m for m in sys.argv[1:] if not found(m)))',
  ].join('\n');
  const r = spawnSync(python, ['-c', probe, ...modules], { encoding: 'utf8' });
  if (r.status !== 0) return [...modules];
  const out = r.stdout.trim();
  return out === '' ? [] : out.split(',');
}

/**
 * The Python to run, or an error saying what was tried and what to install.
 * @param {string[]} modules modules it must import (e.g. ['torch', 'grpc'])
 * @returns {{ python: string } | { error: string }}
 */
export function findPython(modules) {
  const forced = process.env.OWRL_PYTHON;
  if (forced) {
    const missing = missingModules(forced, modules);
    if (missing.length === 0) return { python: forced };
    return { error: `OWRL_PYTHON=${forced} cannot import ${missing.join(', ')}. ${INSTALL_HINT}` };
  }
  const tried = [];
  for (const candidate of ['python3', '/usr/bin/python3']) {
    const missing = missingModules(candidate, modules);
    if (missing.length === 0) return { python: candidate };
    tried.push(`${candidate} lacks ${missing.join(', ')}`);
  }
  return { error: `no Python imports ${modules.join(', ')} (${tried.join('; ')}). ${INSTALL_HINT}` };
}
