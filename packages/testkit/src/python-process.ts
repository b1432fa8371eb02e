// A module of owrl's Python trainer package (trainers/torch, package owrl_torch) as a child
// process for tests and benches: the Python that has torch and grpc found the way owrl finds it
// everywhere ($OWRL_PYTHON, else the first of python3 and /usr/bin/python3 that imports both),
// PYTHONPATH pointing at trainers/torch, stdout and stderr appended to a log file, the start
// awaited until the process prints its ready line (a failure to start names the log tail), and
// the whole process group killed on dispose.
//
//   await using engine = await startPythonModule({ module: 'owrl_torch.engine_double', args: [...],
//     ready: /listening on ([\d.]+):(\d+)/, logFile });
//   engine.ready[2] // the port it printed
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (holding trainers/torch). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
/** The folder that goes on PYTHONPATH for `owrl_torch`. */
export const TORCH_TRAINER_DIR = path.join(REPO_ROOT, 'trainers', 'torch');

let cachedPython: string | null | undefined;

/** Whether `python` can import torch and grpc. */
function hasTorch(python: string): boolean {
  const r = spawnSync(python, ['-c', 'import torch, grpc'], { stdio: 'ignore', timeout: 60_000 });
  return r.status === 0;
}

/**
 * The Python interpreter owrl runs its trainer with: $OWRL_PYTHON when set, else the first of
 * `python3` and `/usr/bin/python3` that can import torch and grpc; null when none can.
 */
export function findPython(env: Record<string, string | undefined> = process.env): string | null {
  const set = env['OWRL_PYTHON'];
  if (set !== undefined && set !== '') return set;
  if (cachedPython !== undefined) return cachedPython;
  cachedPython = ['python3', '/usr/bin/python3'].find(hasTorch) ?? null;
  return cachedPython;
}

/** Why the torch tests cannot run here, or undefined when they can (for `test(..., { skip })`). */
export function torchUnavailable(): string | undefined {
  return findPython() === null
    ? 'no Python with torch and grpc: install python3-torch and python3-grpcio (node scripts/setup.mjs --for test) or set OWRL_PYTHON'
    : undefined;
}

export interface PythonProcessOptions {
  /** Module run with `python -m` (e.g. owrl_torch.serve). */
  module: string;
  args?: string[];
  /** Extra environment over the test runner's (PYTHONPATH gets trainers/torch in front). */
  env?: Record<string, string>;
  /** A stdout/stderr line matching this means the process serves; its match is `ready`. */
  ready: RegExp;
  /** File receiving stdout and stderr (appended). */
  logFile: string;
  /** How long to wait for the ready line (default 120 s). */
  timeoutMs?: number;
  /** Name in messages (default the module). */
  name?: string;
}

export interface PythonProcess extends AsyncDisposable {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** The ready line's match. */
  readonly ready: RegExpExecArray;
  readonly running: boolean;
  /** The whole log so far. */
  log(): string;
  tail(lines?: number): string;
  /** SIGTERM to the group, SIGKILL after `graceMs` (default 5 s); resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

function signalGroup(c: ChildProcess, signal: NodeJS.Signals): void {
  if (c.pid === undefined) return;
  try {
    process.kill(-c.pid, signal);
  } catch {
    // the group is gone already
  }
}

/** Starts `python -m <module>` and resolves once it printed its ready line. @throws Error with the log tail when it exits or times out first. */
export async function startPythonModule(opts: PythonProcessOptions): Promise<PythonProcess> {
  const python = findPython();
  if (python === null) throw new Error(torchUnavailable());
  const name = opts.name ?? opts.module;
  fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const out = fs.createWriteStream(opts.logFile, { flags: 'a' });
  const pyPath = [TORCH_TRAINER_DIR, process.env['PYTHONPATH'] ?? ''].filter((p) => p !== '').join(path.delimiter);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { PYTHONUNBUFFERED: '1', PYTHONPATH: pyPath, ...opts.env });
  const child = spawn(python, ['-m', opts.module, ...(opts.args ?? [])], { env, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let text = '';
  let exited = false;
  let closed = false;
  out.on('error', () => {
    // a log file that cannot be written loses the log, not the process
  });
  const exitP = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      signalGroup(child, 'SIGKILL');
      resolve();
    });
  });
  const readTail = (lines = 30) => text.trimEnd().split('\n').slice(-lines).join('\n');
  const ready = await new Promise<RegExpExecArray>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => {
      signalGroup(child, 'SIGKILL');
      reject(new Error(`${name} printed no ready line (${opts.ready}) within ${opts.timeoutMs ?? 120_000} ms; last lines of ${opts.logFile}:\n${readTail()}`));
    }, opts.timeoutMs ?? 120_000);
    let done = false;
    const onData = (d: Buffer) => {
      const s = d.toString('utf8');
      if (!closed) out.write(s);
      text += s;
      if (text.length > 4_000_000) text = text.slice(-2_000_000);
      if (done) return;
      buf += s;
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        const m = opts.ready.exec(line);
        if (m) {
          done = true;
          clearTimeout(timer);
          resolve(m);
          return;
        }
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (e) => {
      clearTimeout(timer);
      done = true;
      reject(new Error(`${name} could not be started with ${python}: ${e.message}`));
    });
    void exitP.then(() => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      // let the last output arrive before quoting it
      setTimeout(() => reject(new Error(`${name} exited (code ${child.exitCode}, signal ${child.signalCode}) before it was ready; last lines of ${opts.logFile}:\n${readTail()}`)), 50);
    });
  });
  const stop = async (graceMs = 5000) => {
    if (!exited) {
      signalGroup(child, 'SIGTERM');
      const t = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
      await exitP;
      clearTimeout(t);
    }
    if (closed) return;
    closed = true;
    await new Promise<void>((resolve) => out.end(() => resolve()));
  };
  return {
    name,
    pid: child.pid ?? -1,
    logFile: opts.logFile,
    ready,
    get running() {
      return !exited;
    },
    log: () => text,
    tail: readTail,
    stop,
    [Symbol.asyncDispose]: () => stop(),
  };
}
