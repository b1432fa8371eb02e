// takeShutdownSignals: a SIGTERM that arrives while a process is still starting is held and runs
// the shutdown once it is handed over; the process is not killed by the signal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const CORE = fileURLToPath(new URL('../src/index.js', import.meta.url));

void test('a signal during startup is honoured once the shutdown is ready', async () => {
  const script = `
    const { takeShutdownSignals } = await import(${JSON.stringify(CORE)});
    const signals = takeShutdownSignals();
    process.kill(process.pid, 'SIGTERM');           // arrives while "starting"
    await new Promise((r) => setTimeout(r, 200));
    process.stdout.write('started\\n');
    signals.ready(async (s) => { process.stdout.write('shutdown ' + s + '\\n'); process.exit(0); });
    await new Promise((r) => setTimeout(r, 5000));
    process.stdout.write('not shut down\\n');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  assert.deepEqual([code, signal], [0, null]);
  assert.equal(out, 'started\nshutdown SIGTERM\n');
});
