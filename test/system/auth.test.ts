// The whole system against a nats-server that requires a user and password: every service
// connects with NATS_USER/NATS_PASSWORD and a short run finishes; a client without credentials is
// refused; the learner's mutating RPCs need the control token; and no configured secret (the NATS
// password, the control token) appears in any line of any service's log. Episode lines carry the
// run, round, group, trajectory and actor fields, and no log line repeats a key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { RunPhase } from '@owrl/proto';
import { startSystem } from '@owrl/testkit';

/** Top-level keys of a JSON object line, in order, duplicates kept (JSON.parse would drop them). */
function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      if (depth === 1 && line[j + 1] === ':') keys.push(line.slice(i + 1, j));
      i = j;
    } else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') depth--;
  }
  return keys;
}

void test('every service runs with NATS user/password auth, control RPCs need the token, and no secret reaches a log line', { timeout: 5 * 60_000 }, async () => {
  const password = `pw-${process.pid}-Zq8Xv`;
  const token = `ctl-${process.pid}-Kp3Wn`;
  const sys = await startSystem({
    actors: 1,
    slots: 2,
    nats: { extraConfig: [`authorization { user: owrl, password: "${password}" }`] },
    natsClient: { user: 'owrl', pass: password },
    env: { NATS_USER: 'owrl', NATS_PASSWORD: password },
    learnerEnv: { OWRL_CONTROL_TOKEN: token, OWRL_ROUNDS: '1', OWRL_GROUPS_PER_ROUND: '1', OWRL_GROUP_SIZE: '2', OWRL_CURRICULUM: '1:3', OWRL_DIFFICULTIES: '1', OWRL_TASK_COUNT: '12' },
  });
  try {
    await assert.rejects(connect({ servers: sys.natsUrl, timeout: 3000 }), /Authorization|authorization|auth/i, 'a client without credentials is refused');
    await sys.waitForLearner();
    await assert.rejects(sys.learner().pauseRun('no token'), /UNAUTHENTICATED|control token/);
    await assert.rejects(sys.learner().pauseRun('wrong token', 'nope'), /UNAUTHENTICATED|control token/);
    const state = await sys.waitForPhase(RunPhase.FINISHED);
    assert.equal(state.counters?.inFlight, 0n);
    assert.ok((state.counters?.scoredIngested ?? 0n) >= 2n);
    // Every service's log: no secret, each key once per line, episode lines with their ids.
    let lines = 0;
    for (const f of fs.readdirSync(sys.logDir).filter((n) => n.endsWith('.log'))) {
      const text = fs.readFileSync(path.join(sys.logDir, f), 'utf8');
      assert.ok(!text.includes(password), `${f} holds the NATS password`);
      assert.ok(!text.includes(token), `${f} holds the control token`);
      for (const line of text.split('\n').filter((l) => l.startsWith('{'))) {
        lines++;
        const keys = topLevelKeys(line);
        assert.deepEqual(keys.filter((k, i) => keys.indexOf(k) !== i), [], `${f}: ${line.slice(0, 300)}`);
      }
    }
    const episode = sys.process('actor-1').jsonLines().find((l) => l['msg'] === 'episode finished' && 'trajectory' in l);
    assert.ok(episode, 'an episode line');
    for (const k of ['run', 'round', 'group', 'trajectory', 'actor']) assert.ok(k in episode, `episode line has ${k}`);
    console.log(JSON.stringify({ auth: 'user-password', log_lines_checked: lines, secrets_found: 0 }));
  } finally {
    await sys.dispose();
  }
});
