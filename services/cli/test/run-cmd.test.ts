// owrl watch / pause / resume / groups / trajectory against a real learner gRPC server over a
// socket: the learner's own server in its own process (services/learner/test/grpc-fixture.ts,
// started by path: services do not import each other).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { RunPhase, ScoredTrajectorySchema, fromJson, type JsonValue } from '@owrl/proto';
import { runRunCommand } from '../src/run-cmd.js';
import { UsageError } from '../src/usage.js';

const TID = 'run-c/0/1/0/0';
const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../learner/dist/test/grpc-fixture.js');

async function setup() {
  const child = spawn(process.execPath, [FIXTURE], { stdio: ['pipe', 'pipe', 'inherit'] });
  const replies = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse(((await replies.next()).value as string | undefined) ?? 'null') as { port?: number; resourceVersion?: number } | null;
  const first = await next();
  if (!first?.port) throw new Error('the learner gRPC fixture did not start');
  const lines: string[] = [];
  const printed = new EventEmitter();
  const io = {
    out: (l: string) => {
      lines.push(l);
      printed.emit('line');
    },
    defaultLearner: () => `127.0.0.1:${first.port}`,
    env: {},
  };
  const send = async (cmd: object) => {
    child.stdin.write(JSON.stringify(cmd) + '\n');
    return (await next())?.resourceVersion;
  };
  const server = {
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
  return { server, lines, printed, io, send };
}

void test('owrl pause / resume need the token and change the phase', async () => {
  const { server, lines, io, send } = await setup();
  try {
    await assert.rejects(runRunCommand('pause', [], io), (e: Error) => e instanceof UsageError && /control token/.test(e.message));
    await assert.rejects(runRunCommand('pause', ['--token', 'wrong'], io), /missing or wrong control token .*\(gRPC UNAUTHENTICATED\)/);
    assert.equal(await runRunCommand('pause', ['--token', 'tok', '--reason', 'disk full'], io), 0);
    assert.match(lines.pop() ?? '', /^run run-c: phase PAUSED \(paused: disk full\)/);
    assert.equal(await send({ op: 'message', text: 'x' }), 2, 'one change for the pause');
    assert.equal(await runRunCommand('resume', ['--json'], { ...io, env: { OWRL_CONTROL_TOKEN: 'tok' } }), 0);
    assert.equal((JSON.parse(lines.pop() ?? '{}') as { phase: number }).phase, RunPhase.RUNNING);
  } finally {
    await server.close();
  }
});

void test('owrl groups ROUND and owrl trajectory ID, as text and --json', async () => {
  const { server, lines, io } = await setup();
  try {
    await runRunCommand('groups', ['0'], io);
    assert.match(lines.join('\n'), /group {3}1 {2}kept .*task shop-price-3 \(d2\) {2}rewards 1\.00 0\.00 {2}advantages 0\.70 -0\.70/);
    assert.ok(lines.includes(`      ${TID}`));
    lines.length = 0;
    await runRunCommand('groups', ['0', '--json'], io);
    const groups = JSON.parse(lines.pop() ?? '[]') as { taskId: string; fate: string; rewards: number[] }[];
    assert.deepEqual(groups.map((g) => [g.taskId, g.fate, g.rewards]), [['shop-price-3', 'kept', [1, 0]]]);
    await runRunCommand('groups', ['7'], io);
    assert.match(lines.pop() ?? '', /round 7: no groups held/);
    await assert.rejects(runRunCommand('groups', ['x'], io), UsageError);

    lines.length = 0;
    await runRunCommand('trajectory', [TID], io);
    assert.match(lines.join('\n'), /task shop-price-3: Find the price of the red kettle[\s\S]*reward 1[\s\S]*answer: 42\.00/);
    lines.length = 0;
    await runRunCommand('trajectory', [TID, '--json'], io);
    const back = fromJson(ScoredTrajectorySchema, JSON.parse(lines.pop() ?? '{}') as JsonValue);
    assert.equal(back.trajectory?.finalAnswer, '42.00');
    await assert.rejects(runRunCommand('trajectory', ['nope'], io), /"nope" is not held by the learner .*\(gRPC NOT_FOUND\)/);
  } finally {
    await server.close();
  }
});

void test('owrl watch --json prints the snapshot and each change until the run finishes', async () => {
  const { server, lines, printed, io, send } = await setup();
  try {
    const watching = runRunCommand('watch', ['--json'], io);
    const until = async (n: number) => {
      const signal = AbortSignal.timeout(10_000);
      try {
        while (lines.length < n) await once(printed, 'line', { signal });
      } catch {
        throw new Error(`only ${lines.length} lines: ${lines.join('\n')}`);
      }
    };
    await until(1);
    await send({ op: 'round', round: 1 });
    await until(2);
    await send({ op: 'phase', phase: RunPhase.FINISHED });
    assert.equal(await watching, 0, 'watch ends with the run');
    const events = lines.map((l) => JSON.parse(l) as { resourceVersion: number; kind: string; state: { round?: number; phase?: number } });
    assert.deepEqual(events.map((e) => [e.resourceVersion, e.kind]), [[0, 'snapshot'], [1, 'round'], [2, 'phase']]);
    assert.equal(events[2]?.state.phase, RunPhase.FINISHED);

    // --since the current version: nothing until the next change (a snapshot of v3 if the stream
    // opens only after the change, on a loaded machine); --count stops early.
    lines.length = 0;
    const next = runRunCommand('watch', ['--since', '2', '--count', '1'], io);
    // Absence window: nothing may be printed before the next change (no event shows "nothing").
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(lines.length, 0);
    await send({ op: 'message', text: 'still serving' });
    assert.equal(await next, 0);
    assert.match(lines.join('\n'), /^--- v3 (progress|snapshot)\nrun run-c {2}phase FINISHED/);
  } finally {
    await server.close();
  }
});
