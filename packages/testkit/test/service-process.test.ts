// ServiceProcess against a real child: logs captured across restarts, signals reach the whole
// process group (a grandchild dies with it), unexpected exits are reported, expected ones are not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServiceProcess, waitUntil, type ServiceExit } from '../src/index.js';

// A stand-in service: logs a pino-like line with its grandchild's pid, drains on SIGTERM, exits
// by itself with code 3 when EXIT_SOON is set.
const SCRIPT = `
const { spawn } = require('node:child_process');
const child = spawn('sleep', ['1000'], { stdio: 'ignore' });
console.log(JSON.stringify({ level: 30, msg: 'ready', grandchild: child.pid }));
process.on('SIGTERM', () => { console.log(JSON.stringify({ level: 30, msg: 'draining' })); child.kill(); process.exit(0); });
if (process.env.EXIT_SOON) setTimeout(() => process.exit(3), 50);
setInterval(() => {}, 1000);
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie waiting for its reaper is dead for our purpose.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return !/^\d+ \(.*\) Z/.test(stat);
}

function setup(env: Record<string, string> = {}): { proc: ServiceProcess; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-sp-'));
  const script = path.join(dir, 'svc.cjs');
  fs.writeFileSync(script, SCRIPT);
  const proc = new ServiceProcess({ name: 'svc', script, env: { PATH: process.env['PATH'] ?? '', ...env }, logFile: path.join(dir, 'svc.log') });
  return { proc, dir };
}

void test('SIGKILL reaches the whole process group and is not reported as unexpected', async () => {
  const { proc, dir } = setup();
  const unexpected: ServiceExit[] = [];
  proc.onUnexpectedExit = (_p, e) => unexpected.push(e);
  proc.start();
  const ready = await waitUntil('ready line', () => proc.jsonLines().find((l) => l['msg'] === 'ready'));
  const grandchild = ready['grandchild'] as number;
  assert.ok(alive(grandchild), 'the grandchild runs');
  const exit = await proc.kill('SIGKILL');
  assert.deepEqual(exit, { code: null, signal: 'SIGKILL' });
  assert.equal(proc.running, false);
  await waitUntil('the grandchild to die', () => (alive(grandchild) ? undefined : true), { timeoutMs: 5000 });
  assert.deepEqual(unexpected, []);
  fs.rmSync(dir, { recursive: true, force: true });
});

void test('stop drains with SIGTERM; start again appends to the same log', async () => {
  const { proc, dir } = setup();
  proc.start();
  await waitUntil('ready', () => proc.jsonLines().find((l) => l['msg'] === 'ready'));
  assert.deepEqual(await proc.stop(5000), { code: 0, signal: null });
  proc.start();
  await waitUntil('second ready', () => (proc.jsonLines().filter((l) => l['msg'] === 'ready').length === 2 ? true : undefined));
  assert.equal(proc.startCount, 2);
  assert.deepEqual(
    proc.jsonLines().map((l) => l['msg']),
    ['ready', 'draining', 'ready'],
  );
  await proc.stop(5000);
  fs.rmSync(dir, { recursive: true, force: true });
});

void test('an exit nobody asked for is reported with its code', async () => {
  const { proc, dir } = setup({ EXIT_SOON: '1' });
  const seen = new Promise<ServiceExit>((resolve) => {
    proc.onUnexpectedExit = (_p, e) => resolve(e);
  });
  proc.start();
  assert.deepEqual(await seen, { code: 3, signal: null });
  assert.deepEqual(proc.exit, { code: 3, signal: null });
  fs.rmSync(dir, { recursive: true, force: true });
});

void test('waitUntil names what it waited for and the last error', async () => {
  await assert.rejects(
    waitUntil(
      'the moon',
      () => {
        throw new Error('not yet risen');
      },
      { timeoutMs: 200, intervalMs: 20 },
    ),
    { name: 'WaitTimeoutError', message: /waiting for the moon; last error: not yet risen/ },
  );
  const boom = new Error('crashed');
  await assert.rejects(waitUntil('anything', () => undefined, { abort: () => boom }), boom);
});
