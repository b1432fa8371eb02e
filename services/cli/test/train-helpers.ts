// Runs the built `owrl` in a child process for the train tests.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/owrl.js', import.meta.url));
/** The repository's examples/. */
export const EXAMPLES = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../../examples');

export interface OwrlRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `owrl ARGS` in `cwd` with PATH, the given variables and nothing else of this environment. */
export function owrl(args: string[], o: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<OwrlRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: o.cwd, timeout: o.timeoutMs ?? 120_000, maxBuffer: 16 << 20, env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...(o.env ?? {}) } },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr }),
    );
  });
}
