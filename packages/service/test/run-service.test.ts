// The startup path as a process: a bad setting exits 2 naming the variable (stderr line and log
// line), a signal during start-up lets start() finish and then stops the service, the last log
// line survives a burst of logging at exit, /healthz follows the start, NATS credentials are used
// and never logged, a wait for NATS ends on a signal, and a run file (OWRL_RUN_FILE) gives the
// settings under the environment's own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startNatsServer, type NatsServer } from '@owrl/testkit';

const FIXTURE = fileURLToPath(new URL('./fixture-service.js', import.meta.url));
const PASSWORD = 's3cret-Pa55-word';
let nats: NatsServer;

before(async () => {
  nats = await startNatsServer({ extraConfig: [`authorization { user: owrl, password: "${PASSWORD}" }`] });
});
after(async () => {
  await nats.dispose();
});

interface Run {
  child: ChildProcessWithoutNullStreams;
  lines: Array<Record<string, unknown>>;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first log line whose msg is `msg` (rejects if the process exits first). */
  logged: (msg: string) => Promise<Record<string, unknown>>;
  exited: Promise<[number | null, string | null]>;
}

function run(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [FIXTURE], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let partial = '';
  const lines: Array<Record<string, unknown>> = [];
  // Each waiter looks again on every chunk of output and at exit; it returns true when done.
  let waiters: Array<() => boolean> = [];
  const wake = () => (waiters = waiters.filter((w) => !w()));
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
    partial += b.toString();
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    for (const p of parts) if (p.trim() !== '') lines.push(JSON.parse(p) as Record<string, unknown>);
    wake();
  });
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = once(child, 'close').then(() => [child.exitCode, child.signalCode] as [number | null, string | null]);
  let gone = false;
  void exited.then(() => {
    gone = true;
    wake();
  });
  const logged = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const look = (): boolean => {
        const hit = lines.find((l) => l['msg'] === msg);
        if (hit) resolve(hit);
        else if (gone) reject(new Error(`exited before logging ${JSON.stringify(msg)}: ${err}`));
        return hit !== undefined || gone;
      };
      if (!look()) waiters.push(look);
    });
  return { child, lines, stdout: () => out, stderr: () => err, logged, exited };
}

const natsEnv = () => ({ NATS_URL: nats.url, NATS_USER: 'owrl', NATS_PASSWORD: PASSWORD });

void test('a bad shared setting exits 2, naming the variable on stderr and in a log line', async () => {
  const r = run({ ...natsEnv(), OWRL_METRICS_PORT: 'nine' });
  const [code] = await r.exited;
  assert.equal(code, 2);
  assert.equal(r.stderr(), 'fixture: bad configuration: OWRL_METRICS_PORT="nine" is not an integer >= 0\n');
  const line = r.lines.find((l) => l['msg'] === 'bad configuration');
  assert.ok(line, r.stdout());
  assert.equal(line['variable'], 'OWRL_METRICS_PORT');
  assert.equal(line['service'], 'fixture');
  assert.ok(!r.lines.some((l) => l['msg'] === 'fixture start begun'), 'nothing started');
});

void test("a bad setting of the service's own exits 2 naming it; so does a bad NATS or log setting", async () => {
  for (const [env, variable, message] of [
    [{ FIXTURE_COUNT: '1000' }, 'FIXTURE_COUNT', 'FIXTURE_COUNT=1000 is above 100'],
    [{ NATS_URL: 'http://x:1' }, 'NATS_URL', 'NATS_URL: "http://x:1" has scheme http: (want nats: tls: ws: wss:)'],
    [{ NATS_PASSWORD: PASSWORD }, 'NATS_USER', 'NATS_PASSWORD is set but NATS_USER is not'],
    [{ OWRL_LOG_LEVEL: 'loud' }, 'OWRL_LOG_LEVEL', 'OWRL_LOG_LEVEL="loud" must be one of fatal, error, warn, info, debug, trace, silent'],
  ] as const) {
    const r = run({ NATS_URL: nats.url, ...env });
    const [code] = await r.exited;
    assert.equal(code, 2, r.stderr());
    assert.equal(r.stderr(), `fixture: bad configuration: ${message}\n`);
    assert.equal(r.lines.find((l) => l['msg'] === 'bad configuration')?.['variable'], variable);
    assert.ok(!r.stdout().includes(PASSWORD) && !r.stderr().includes(PASSWORD), 'no secret in the output');
  }
});

void test('a signal during start-up: start() finishes, then the service is stopped and the process exits 0', async () => {
  const r = run({ ...natsEnv(), FIXTURE_HOLD_START: 'true' });
  await r.logged('fixture start begun');
  r.child.kill('SIGTERM');
  await r.logged('stopping');
  r.child.stdin.write('go\n');
  const [code, signal] = await r.exited;
  assert.deepEqual([code, signal], [0, null], r.stderr());
  const msgs = r.lines.map((l) => l['msg']);
  const order = ['fixture start begun', 'stopping', 'fixture start released', 'fixture stop begun', 'stopped'];
  assert.deepEqual(
    msgs.filter((m) => order.includes(m as string)),
    order,
  );
  assert.equal(r.lines.find((l) => l['msg'] === 'fixture start released')?.['aborted'], true, 'start() saw the stopping signal');
  assert.equal(r.lines.find((l) => l['msg'] === 'stopping')?.['reason'], 'SIGTERM');
  assert.ok(!msgs.includes('started'));
});

void test('logs are flushed before exit: after a burst of 3000 lines in stop(), "stopped" is the last line', async () => {
  const r = run({ ...natsEnv(), FIXTURE_STOP_LINES: '3000' });
  await r.logged('started');
  r.child.kill('SIGINT');
  const [code] = await r.exited;
  assert.equal(code, 0, r.stderr());
  assert.equal(r.lines.filter((l) => l['msg'] === 'fixture stop line').length, 3000);
  const last = r.lines[r.lines.length - 1];
  assert.equal(last?.['msg'], 'stopped');
  assert.deepEqual([last?.['reason'], last?.['code']], ['SIGINT', 0]);
});

void test('start() failing exits 1 after logging the error and stopping', async () => {
  const r = run({ ...natsEnv(), FIXTURE_START_FAIL: 'true' });
  const [code] = await r.exited;
  assert.equal(code, 1);
  const fatal = r.lines.find((l) => l['msg'] === 'fatal error');
  assert.ok(fatal, r.stdout());
  assert.equal(fatal['reason'], 'start failed');
  assert.match(JSON.stringify(fatal['err']), /fixture start failed on purpose/);
  assert.equal(r.lines[r.lines.length - 1]?.['msg'], 'stopped');
});

void test('a service that ends on its own exits 0', async () => {
  const r = run({ ...natsEnv(), FIXTURE_DONE: 'true' });
  const [code] = await r.exited;
  assert.equal(code, 0, r.stderr());
  assert.deepEqual(
    r.lines.filter((l) => l['msg'] === 'stopping').map((l) => l['reason']),
    ['finished'],
  );
});

void test('/healthz is 503 naming `started` while start() runs and 200 after; /metrics carries the meter with the service label', async () => {
  const port = await freePort();
  const r = run({ ...natsEnv(), FIXTURE_HOLD_START: 'true', FIXTURE_COUNT: '3', OWRL_METRICS_PORT: String(port), OWRL_METRICS_HOST: '127.0.0.1' });
  try {
    await r.logged('fixture start begun');
    const early = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.deepEqual([early.status, await early.text()], [503, 'unhealthy: started\n']);
    r.child.stdin.write('go\n');
    await r.logged('started');
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.deepEqual([ok.status, await ok.text()], [200, 'ok\n']);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metrics, /^owrl_fixture_starts_total\{kind="fixture",service="fixture"\} 3$/m);
    assert.match(metrics, /^owrl_process_resident_memory_bytes\{service="fixture"\} \d+/m);
    r.child.kill('SIGTERM');
    assert.equal((await r.exited)[0], 0);
  } finally {
    r.child.kill('SIGKILL');
  }
});

void test('NATS user/password authenticate; the password appears in no output; a wrong one exits 1 naming the refusal', async () => {
  const good = run({ ...natsEnv(), OWRL_LOG_LEVEL: 'debug' });
  const started = await good.logged('starting');
  assert.deepEqual(started['nats'], { servers: [nats.url], auth: 'user-password', user: 'owrl' });
  assert.equal((await good.logged('fixture start begun'))['bus'], true);
  good.child.kill('SIGTERM');
  assert.equal((await good.exited)[0], 0, good.stderr());
  assert.ok(!good.stdout().includes(PASSWORD) && !good.stderr().includes(PASSWORD));

  const bad = run({ ...natsEnv(), NATS_PASSWORD: 'wrong-password-123' });
  const [code] = await bad.exited;
  assert.equal(code, 1);
  const fatal = bad.lines.find((l) => l['msg'] === 'fatal error');
  assert.match(JSON.stringify(fatal?.['err']), /refused the credentials \(auth user-password\)/);
  assert.ok(!bad.stdout().includes('wrong-password-123') && !bad.stderr().includes('wrong-password-123'));
});

void test('waiting for a NATS that is not there ends on SIGTERM with exit 0; a service without NATS starts without one', async () => {
  const port = await freePort();
  const waiting = run({ NATS_URL: `nats://127.0.0.1:${port}`, FIXTURE_WAIT_NATS: 'true' });
  await waiting.logged('starting');
  waiting.child.kill('SIGTERM');
  const [code] = await waiting.exited;
  assert.equal(code, 0, waiting.stderr());
  assert.ok(!waiting.lines.some((l) => l['msg'] === 'fixture start begun'));
  assert.equal(waiting.lines[waiting.lines.length - 1]?.['msg'], 'stopped');

  const alone = run({ NATS_URL: `nats://127.0.0.1:${port}`, FIXTURE_BUS: 'false' });
  assert.equal((await alone.logged('fixture start begun'))['bus'], false);
  await alone.logged('started');
  alone.child.kill('SIGTERM');
  assert.equal((await alone.exited)[0], 0, alone.stderr());
  // It was running until the signal (nothing of its own kept it alive), not ending by itself.
  assert.equal(alone.lines[alone.lines.length - 1]?.['msg'], 'stopped');
});

void test('OWRL_RUN_FILE: the settings come from the run file (secrets from the variables it names), the environment wins, a bad file exits 2 at its line', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-runfile-'));
  try {
    const file = path.join(dir, 'run.yaml');
    fs.writeFileSync(file, ['log_level: debug', 'nats:', `  url: ${nats.url}`, '  user: owrl', '  password_env: FIXTURE_NATS_PW', 'tasks:', '  suites: [shop]', ''].join('\n'));
    const good = run({ OWRL_RUN_FILE: file, FIXTURE_NATS_PW: PASSWORD });
    const started = await good.logged('starting');
    assert.deepEqual(started['nats'], { servers: [nats.url], auth: 'user-password', user: 'owrl' });
    assert.equal(started['runFile'], file);
    assert.equal((await good.logged('fixture start begun'))['level'], 30, 'debug from the file: info lines are logged');
    good.child.kill('SIGTERM');
    assert.equal((await good.exited)[0], 0, good.stderr());
    assert.ok(!good.stdout().includes(PASSWORD) && !good.stderr().includes(PASSWORD));

    // the environment's NATS_URL wins over the file's (which names a port nothing listens on)
    fs.writeFileSync(file, ['nats:', '  url: nats://127.0.0.1:1', '  user: owrl', '  password_env: FIXTURE_NATS_PW', 'tasks:', '  suites: [shop]', ''].join('\n'));
    const over = run({ OWRL_RUN_FILE: file, FIXTURE_NATS_PW: PASSWORD, NATS_URL: nats.url });
    assert.deepEqual((await over.logged('starting'))['nats'], { servers: [nats.url], auth: 'user-password', user: 'owrl' });
    over.child.kill('SIGTERM');
    assert.equal((await over.exited)[0], 0, over.stderr());

    // a named secret that is not set, and a misspelt key: exit 2, each problem at its line
    fs.writeFileSync(file, ['nats:', `  url: ${nats.url}`, '  usr: owrl', 'tasks:', '  suites: [shop]', ''].join('\n'));
    const bad = run({ OWRL_RUN_FILE: file });
    assert.equal((await bad.exited)[0], 2);
    assert.equal(bad.stderr(), `fixture: bad configuration: OWRL_RUN_FILE=${file}:\n${file}:3:3: nats.usr: unknown key (did you mean user?)\n`);
    assert.equal(bad.lines.find((l) => l['msg'] === 'bad configuration')?.['variable'], 'OWRL_RUN_FILE');
    assert.ok(!bad.lines.some((l) => l['msg'] === 'fixture start begun'), 'nothing started');
    fs.writeFileSync(file, ['nats:', `  url: ${nats.url}`, '  user: owrl', '  password_env: FIXTURE_NATS_PW', 'tasks:', '  suites: [shop]', ''].join('\n'));
    const unset = run({ OWRL_RUN_FILE: file });
    assert.equal((await unset.exited)[0], 2);
    assert.match(unset.stderr(), new RegExp(`${file}:4:3: nats\\.password_env: names FIXTURE_NATS_PW, which is not set in the environment`));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
