// Per-host failure counting (pure): which outcomes count against a host, the sliding window, the
// threshold, the dominant cause and the fresh start after a trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostFailureCause, REASON_HOST_BLACKLISTED as HOST_BLACKLISTED } from '@owrl/core';
import { HostFailureWindow } from '../src/host-failures.js';

void test('site failures count, our side and trainable outcomes never do', () => {
  assert.equal(hostFailureCause('INIT_ERROR', 'dns'), 'init_error:dns');
  assert.equal(hostFailureCause('INIT_ERROR', 'http_5xx'), 'init_error:http_5xx');
  assert.equal(hostFailureCause('INIT_ERROR', 'timeout'), 'init_error:timeout');
  assert.equal(hostFailureCause('INIT_ERROR', ''), 'init_error:unknown');
  assert.equal(hostFailureCause('INIT_ERROR', 'bot_wall'), 'bot_wall');
  assert.equal(hostFailureCause('ENV_ERROR', 'bot_wall'), 'bot_wall');
  assert.equal(hostFailureCause('ENV_ERROR', 'connection_reset'), 'env_error:connection_reset');
  assert.equal(hostFailureCause('ENV_ERROR', 'http_5xx'), 'env_error:http_5xx');
  // A skip by the actor, our allowlist and malformed task URLs are not the site's fault.
  assert.equal(hostFailureCause('INIT_ERROR', HOST_BLACKLISTED), null);
  assert.equal(hostFailureCause('INIT_ERROR', 'blocked_url'), null);
  assert.equal(hostFailureCause('INIT_ERROR', 'bad_url'), null);
  // Timeouts and crashes mid-episode may be the policy's or ours.
  for (const r of ['task_timeout', 'step_timeout', 'page_unresponsive', 'page_crash', 'timeout']) assert.equal(hostFailureCause('ENV_ERROR', r), null, r);
  for (const r of ['browser_crash', 'browser_launch', 'actor_error', 'bot_wall']) assert.equal(hostFailureCause('SANDBOX_ERROR', r), null, r);
  for (const c of ['COMPLETED', 'STEP_BUDGET_EXHAUSTED', 'FORMAT_ERROR', 'GENERATION_LIMIT']) assert.equal(hostFailureCause(c, 'done'), null, c);
});

void test('a host trips at the threshold within the window, with the dominant cause, then starts afresh', () => {
  const w = new HostFailureWindow({ threshold: 3, windowMs: 1000 });
  assert.equal(w.record('a.example', 'init_error:dns', 0), null);
  assert.equal(w.record('b.example', 'bot_wall', 10), null, 'hosts are counted apart');
  assert.equal(w.record('a.example', 'bot_wall', 500), null);
  assert.deepEqual(w.record('a.example', 'init_error:dns', 999), { host: 'a.example', reason: 'init_error:dns', failures: 3 });
  // The window restarted: two more failures do not trip it again.
  assert.equal(w.record('a.example', 'bot_wall', 1000), null);
  assert.equal(w.record('a.example', 'bot_wall', 1001), null);
  assert.deepEqual(w.record('a.example', 'init_error:dns', 1002), { host: 'a.example', reason: 'bot_wall', failures: 3 });
});

void test('failures older than the window fall out of it', () => {
  const w = new HostFailureWindow({ threshold: 3, windowMs: 1000 });
  w.record('slow.example', 'env_error:http_5xx', 0);
  w.record('slow.example', 'env_error:http_5xx', 600);
  // at 1000 the first one (age 1000) is out: 2 in the window
  assert.equal(w.record('slow.example', 'env_error:http_5xx', 1000), null);
  assert.deepEqual(w.record('slow.example', 'env_error:dns', 1500), { host: 'slow.example', reason: 'env_error:http_5xx', failures: 3 });
  // Spread out failures never trip.
  for (let t = 10_000; t < 30_000; t += 600) assert.equal(w.record('rare.example', 'init_error:dns', t), null, `t=${t}`);
});

void test('equal counts go to the cause that reached the count last; bad options are refused', () => {
  const w = new HostFailureWindow({ threshold: 4, windowMs: 60_000 });
  w.record('x', 'bot_wall', 1);
  w.record('x', 'init_error:dns', 2);
  w.record('x', 'init_error:dns', 3);
  assert.deepEqual(w.record('x', 'bot_wall', 4), { host: 'x', reason: 'bot_wall', failures: 4 });
  const one = new HostFailureWindow({ threshold: 1, windowMs: 1 });
  assert.deepEqual(one.record('y', 'init_error:tls', 5), { host: 'y', reason: 'init_error:tls', failures: 1 });
  assert.throws(() => new HostFailureWindow({ threshold: 0, windowMs: 1 }), /threshold=0/);
  assert.throws(() => new HostFailureWindow({ threshold: 2.5, windowMs: 1 }), /threshold=2.5/);
  assert.throws(() => new HostFailureWindow({ threshold: 2, windowMs: 0 }), /windowMs=0/);
});
