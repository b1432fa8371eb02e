// The trainer process as deployed: settings checked (exit 2 naming the variable), the pointer
// trainer served on a real socket, a learner-side RemoteTrainer that trains it until rollouts
// from its artifacts succeed (real learning over gRPC), the token enforced, versions kept across
// a restart (a repeated batch is replayed, not trained again), and exit 0 on SIGTERM.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readToyArtifact, TOY_DIM, toyHeader, toyRollout, toTrainGroups } from '@owrl/pointer-trainer';
import type { TrainGroup } from '@owrl/proto';
import { initialModel } from '@owrl/policy';
import { freePort } from '@owrl/testkit';
import { RemoteTrainer, TrainerError, TrainerErrorCode } from '@owrl/trainer-rpc';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-trainer-main-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Proc {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  logged(msg: string): Promise<Record<string, unknown>>;
  stderr(): string;
}

function start(env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<{ msg: string; resolve: (l: Record<string, unknown>) => void }> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    lines.push(rec);
    for (const w of waiters.filter((x) => x.msg === rec['msg'])) w.resolve(rec);
  });
  const logged = (msg: string) =>
    Promise.race([
      new Promise<Record<string, unknown>>((resolve) => {
        const hit = lines.find((l) => l['msg'] === msg);
        if (hit) resolve(hit);
        else waiters.push({ msg, resolve });
      }),
      exited.then(([code]) => assert.fail(`trainer exited (${code}) before logging "${msg}": ${err}${JSON.stringify(lines)}`)),
    ]);
  return { child, exited, logged, stderr: () => err + lines.map((l) => JSON.stringify(l)).join('\n') };
}

async function stop(p: Proc): Promise<number | null> {
  p.child.kill('SIGTERM');
  const [code] = await p.exited;
  return code;
}

void describe('trainer main', () => {
  void it('exits 2 naming a bad or missing setting', async () => {
    for (const [env, name] of [
      [{}, 'OWRL_TRAINER_DIR'],
      [{ OWRL_TRAINER_DIR: dir, OWRL_TRAINER_PORT: '70000' }, 'OWRL_TRAINER_PORT'],
    ] as const) {
      const p = start(env);
      const [code] = await p.exited;
      assert.equal(code, 2, p.stderr());
      assert.match(p.stderr(), new RegExp(name));
    }
  });

  void it('trains over its socket until the policy succeeds, keeps versions across a restart, exits 0 on SIGTERM', async (t) => {
    const port = await freePort();
    const env = { OWRL_TRAINER_DIR: dir, OWRL_TRAINER_PORT: String(port), OWRL_TRAINER_HOST: '127.0.0.1', OWRL_TRAINER_TOKEN: 's3cret', OWRL_TRAINER_DIM: String(TOY_DIM), OWRL_LR: '0.2' };
    let p = start(env);
    t.after(() => void p.child.kill('SIGKILL'));
    const serving = await p.logged('trainer serving owrl.v1.Trainer');
    assert.equal(serving['service'], 'trainer');
    assert.equal(serving['port'], port);
    assert.doesNotMatch(p.stderr(), /s3cret/);

    const stranger = new RemoteTrainer(`127.0.0.1:${port}`, { token: 'wrong', retries: 0 });
    const e = await stranger.info().then(() => assert.fail('no token accepted'), (x: unknown) => x);
    assert.ok(e instanceof TrainerError && e.code === TrainerErrorCode.Unauthenticated, String(e));
    await stranger.close();

    let client = new RemoteTrainer(`127.0.0.1:${port}`, { token: 's3cret', backoffMs: 50 });
    const info = await client.info();
    assert.equal(info.name, 'owrl-pointer/0.1');
    assert.equal(info.artifactKind, 'onnx-pointer');
    assert.equal(info.latestVersion, 0n);
    let model = initialModel({ dim: TOY_DIM });
    const rates: number[] = [];
    let version = 0n;
    let lastBatch: TrainGroup[] = [];
    for (let round = 0; round < 12; round++) {
      const { groups, success } = toyRollout(model, { groups: 8, seed: 500 + round, round, version });
      rates.push(success);
      const kept = toTrainGroups(groups);
      if (kept.length === 0) continue;
      const r = await client.train(toyHeader(version), kept);
      assert.equal(r.version, version + 1n);
      model = readToyArtifact(r.artifact!);
      version = r.version;
      lastBatch = kept;
    }
    const first = (rates[0]! + rates[1]!) / 2;
    const last = (rates.at(-1)! + rates.at(-2)!) / 2;
    assert.ok(last >= 0.75 && last > first + 0.3, `success by round ${rates.map((x) => x.toFixed(2)).join(' ')}`);
    await client.close();
    assert.equal(await stop(p), 0, p.stderr());

    p = start(env);
    await p.logged('trainer serving owrl.v1.Trainer');
    client = new RemoteTrainer(`127.0.0.1:${port}`, { token: 's3cret', backoffMs: 50 });
    assert.equal((await client.info()).latestVersion, version);
    const replay = await client.train(toyHeader(version - 1n), lastBatch);
    assert.equal(replay.replayed, true);
    assert.deepEqual(readToyArtifact(replay.artifact!).weights, model.weights);
    await client.close();
    assert.equal(await stop(p), 0, p.stderr());
  });
});
