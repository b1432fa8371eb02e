// Every service main goes through the one startup path: a bad setting exits 2 before anything
// starts, naming the variable on stderr (one line) and in a JSON log line; an unreachable NATS is
// a fatal start (exit 1); SIGTERM stops a running service with exit 0 and "stopped" as the last
// line. Cheap: no browser, no NATS server, no model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, freePorts } from '@owrl/testkit';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const main = (service: string) => path.join(ROOT, 'services', service, 'dist', 'src', 'main.js');

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  lines: Array<Record<string, unknown>>;
}

/** Runs a main to its end; `onLine` may act on each log line (e.g. signal it). */
async function runMain(service: string, env: Record<string, string>, onLine?: (l: Record<string, unknown>, kill: (s: NodeJS.Signals) => void) => void): Promise<Result> {
  const child = spawn(process.execPath, [main(service)], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let partial = '';
  const lines: Array<Record<string, unknown>> = [];
  child.stdout.on('data', (b: Buffer) => {
    stdout += b.toString();
    partial += b.toString();
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const p of parts) {
      const l = JSON.parse(p) as Record<string, unknown>;
      lines.push(l);
      onLine?.(l, (s) => child.kill(s));
    }
  });
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  await once(child, 'close');
  return { code: child.exitCode, stdout, stderr, lines };
}

const CASES: Array<{ service: string; env: Record<string, string>; variable: string; message: string }> = [
  { service: 'actor', env: { OWRL_METRICS_PORT: 'x' }, variable: 'OWRL_METRICS_PORT', message: 'OWRL_METRICS_PORT="x" is not an integer >= 0' },
  { service: 'actor', env: { OWRL_SLOTS: '0' }, variable: 'OWRL_SLOTS', message: 'OWRL_SLOTS="0" is not an integer >= 1' },
  { service: 'judge', env: { NATS_USER: 'owrl' }, variable: 'NATS_PASSWORD', message: 'NATS_USER="owrl" is set but NATS_PASSWORD is not' },
  { service: 'judge', env: { OWRL_JUDGE_CONCURRENCY: 'many' }, variable: 'OWRL_JUDGE_CONCURRENCY', message: 'OWRL_JUDGE_CONCURRENCY="many" is not an integer >= 1' },
  { service: 'learner', env: { OWRL_LOG_LEVEL: 'chatty' }, variable: 'OWRL_LOG_LEVEL', message: 'OWRL_LOG_LEVEL="chatty" must be one of fatal, error, warn, info, debug, trace, silent' },
  { service: 'learner', env: { OWRL_ROUNDS: '0' }, variable: 'OWRL_ROUNDS', message: 'OWRL_ROUNDS="0" is not an integer >= 1' },
  { service: 'console', env: { OWRL_CONSOLE_PORT: 'x' }, variable: 'OWRL_CONSOLE_PORT', message: 'OWRL_CONSOLE_PORT="x" is not an integer >= 0' },
  { service: 'learner', env: { OWRL_RUN_ID: 'a.b' }, variable: 'OWRL_RUN_ID', message: 'OWRL_RUN_ID="a.b" must be 1-64 letters, digits, \'_\' or \'-\' (it is a NATS subject token)' },
  {
    service: 'learner',
    env: { OWRL_TRAINER: 'gpu-box' },
    variable: 'OWRL_TRAINER',
    message: 'OWRL_TRAINER="gpu-box" must be inprocess or the host:port of an owrl.v1.Trainer (e.g. trainer:50070)',
  },
  { service: 'learner', env: { OWRL_GRPC_PORT: '70000' }, variable: 'OWRL_GRPC_PORT', message: 'OWRL_GRPC_PORT=70000 is not a TCP port (0-65535)' },
  {
    service: 'learner',
    env: { OWRL_ROUND_TIMEOUT_S: '30', OWRL_SCORED_ACK_WAIT_S: '60' },
    variable: 'OWRL_ROUND_TIMEOUT_S',
    message: 'OWRL_ROUND_TIMEOUT_S=30 must exceed OWRL_SCORED_ACK_WAIT_S=60: after a restart, unacked scored trajectories come back only after ack_wait',
  },
  { service: 'sites', env: { OWRL_SITES_PORT: '70000' }, variable: 'OWRL_SITES_PORT', message: 'OWRL_SITES_PORT=70000 is not a port (0-65535)' },
  {
    service: 'sites',
    env: { OWRL_SITES_FAULTS: '/nonexistent/faults.json' },
    variable: 'OWRL_SITES_FAULTS',
    message: 'OWRL_SITES_FAULTS="/nonexistent/faults.json": fault file /nonexistent/faults.json cannot be read: ENOENT: no such file or directory, open \'/nonexistent/faults.json\'',
  },
];

for (const c of CASES) {
  void test(`${c.service}: ${c.variable} bad → exit 2 naming it`, async () => {
    const r = await runMain(c.service, { NATS_URL: 'nats://127.0.0.1:1', ...c.env });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `${c.service}: bad configuration: ${c.message}\n`);
    assert.equal(r.lines.length, 1, r.stdout);
    assert.deepEqual([r.lines[0]?.['msg'], r.lines[0]?.['service'], r.lines[0]?.['variable'], r.lines[0]?.['err']], ['bad configuration', c.service, c.variable, c.message]);
  });
}

void test('learner: NATS unreachable at start → exit 1 naming the server, after "stopped" (actor, judge and console wait for NATS instead)', async () => {
  const port = await freePort();
  const r = await runMain('learner', { NATS_URL: `nats://127.0.0.1:${port}`, OWRL_SITES_URL: 'http://127.0.0.1:9/' });
  assert.equal(r.code, 1, r.stderr);
  const fatal = r.lines.find((l) => l['msg'] === 'fatal error');
  assert.match(JSON.stringify(fatal?.['err']), new RegExp(`cannot connect to NATS at nats://127.0.0.1:${port}`));
  assert.equal(r.lines[r.lines.length - 1]?.['msg'], 'stopped');
});

void test('sites: SIGTERM once listening → exit 0, "stopped" last; /metrics and /healthz served', async () => {
  const [port, metricsPort] = (await freePorts(2)) as [number, number];
  let probed: Promise<[number, string]> = Promise.resolve([0, '']);
  const r = await runMain('sites', { OWRL_SITES_PORT: String(port), OWRL_METRICS_PORT: String(metricsPort) }, (l, kill) => {
    if (l['msg'] === 'started') {
      probed = fetch(`http://127.0.0.1:${metricsPort}/healthz`)
        .then(async (h) => [h.status, await h.text()] as [number, string])
        .finally(() => kill('SIGTERM'));
    }
  });
  assert.deepEqual(await probed, [200, 'ok\n']);
  assert.equal(r.code, 0, r.stderr);
  const msgs = r.lines.map((l) => l['msg']);
  assert.deepEqual([msgs.includes('sites listening'), msgs[msgs.length - 1]], [true, 'stopped']);
  assert.equal(r.lines.find((l) => l['msg'] === 'stopping')?.['reason'], 'SIGTERM');
});
