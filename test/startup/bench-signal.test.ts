// A benchmark stopped by a signal stops what it started (bench/src/stop-on-signal.ts): the
// processes below it get the signal through their parents, and whatever is still there after the
// grace period is killed, so a bench killed by a CI timeout leaves no browsers, services or
// nats-server behind. Real processes, no NATS.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isProcessAlive, procDescendants } from '@owrl/core';

const MODULE = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bench/dist/src/stop-on-signal.js')).href;

/** Whether `pid` has ended (gone, or a zombie waiting for a parent to reap it). */
const gone = (pid: number): boolean => !isProcessAlive(pid);

/**
 * A stand-in bench: installs the handling with `graceMs`, starts a child that ignores SIGTERM
 * and has a grandchild of its own (which nobody signals), prints {bench, child, grandchild}.
 */
function startBench(graceMs: number): ReturnType<typeof spawn> {
  const grandchild = `setInterval(() => {}, 1000)`;
  const child = `process.on('SIGTERM', () => {}); const { spawn } = require('node:child_process'); const g = spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'ignore' }); console.log(JSON.stringify({ child: process.pid, grandchild: g.pid })); setInterval(() => {}, 1000);`;
  const bench = `
    import { spawn } from 'node:child_process';
    import { installStopOnSignal } from ${JSON.stringify(MODULE)};
    installStopOnSignal({ graceMs: ${graceMs} });
    const c = spawn(process.execPath, ['-e', ${JSON.stringify(child)}], { stdio: ['ignore', 'pipe', 'inherit'] });
    c.stdout.setEncoding('utf8').once('data', (d) => console.log(JSON.stringify({ bench: process.pid, ...JSON.parse(d) })));
    setInterval(() => {}, 1000);`;
  return spawn(process.execPath, ['--input-type=module', '-e', bench], { stdio: ['ignore', 'pipe', 'pipe'] });
}

async function pids(p: ReturnType<typeof spawn>): Promise<{ bench: number; child: number; grandchild: number }> {
  p.stdout?.setEncoding('utf8');
  const [line] = (await once(p.stdout!, 'data')) as [string];
  const ids = JSON.parse(line) as { bench: number; child: number; grandchild: number };
  started.push(ids.bench, ids.child, ids.grandchild);
  return ids;
}

/** Every process a test started: whatever a failing test leaves (and its open pipes) goes after it. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
});

void test('SIGTERM to a bench: its child and grandchild are gone when it exits with 143, a stubborn one killed after the grace period', { timeout: 60_000 }, async () => {
  const p = startBench(500);
  let stderr = '';
  p.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const { child, grandchild } = await pids(p);
  assert.ok(!gone(child) && !gone(grandchild), 'both running before the signal');
  const exited = once(p, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  p.kill('SIGTERM');
  const [code, signal] = await exited;
  assert.equal(signal, null, stderr);
  assert.equal(code, 143, stderr);
  assert.match(stderr, /SIGTERM: stopping the 2 processes below the bench/);
  assert.ok(gone(child), 'the child that ignored SIGTERM was killed');
  assert.ok(gone(grandchild), 'the grandchild was killed');
});

void test('SIGINT to a bench: exit 130, nothing left below it', { timeout: 60_000 }, async () => {
  const p = startBench(300);
  const { child, grandchild } = await pids(p);
  const exited = once(p, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  p.kill('SIGINT');
  const [code] = await exited;
  assert.equal(code, 130);
  assert.ok(gone(child) && gone(grandchild));
});

void test('the processes noted below a bench are its children and grandchildren, each with its start time', { timeout: 60_000 }, async () => {
  const p = startBench(300);
  const { bench, child, grandchild } = await pids(p);
  const below = procDescendants(bench);
  assert.deepEqual(below.map((d) => d.pid).sort((a, b) => a - b), [child, grandchild].sort((a, b) => a - b));
  assert.ok(below.every((d) => d.start > 0));
  const exited = once(p, 'exit');
  p.kill('SIGTERM');
  await exited;
});
