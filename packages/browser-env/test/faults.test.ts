// test-run: alone (asserts bounds on retry and timeout durations)
// Faults of the site and the page against real Chromium, each provoked for real: DNS failure,
// a flaky start page retried with backoff, a stalled start page, Cloudflare-style and captcha
// walls at init and mid-episode, a renderer crash, and the step and tool-call timeouts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Logger } from '@owrl/core';
import { BrowserPool, type EpisodeResult, type EpisodeSpec, type PolicyInput, type StepDecision } from '../src/index.js';
import { processTree } from '@owrl/core';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { call, step, ScriptedPolicy, type Script } from './scripted-policy.js';

let srv: FixtureServer;
let pool: BrowserPool;

/** Waiters for a message of the pool's log: tests await what the environment reports, not a guessed time. */
const logWaiters: { msg: string; resolve: () => void }[] = [];
const log = (_obj: object, msg?: string): void => {
  for (let i = logWaiters.length - 1; i >= 0; i--) {
    if (logWaiters[i]?.msg === msg) logWaiters.splice(i, 1)[0]?.resolve();
  }
};
const eventLogger: Logger = { debug: log, info: log, warn: log, error: log, child: () => eventLogger };
/** Resolves on the next `msg` logged by the pool; rejects after `ms`. */
function nextLog(msg: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no log line ${JSON.stringify(msg)} within ${ms} ms`)), ms);
    logWaiters.push({ msg, resolve: () => (clearTimeout(t), resolve()) });
  });
}

void before(async () => {
  srv = await startFixtureServer();
  pool = new BrowserPool({
    allowHosts: [srv.hostPort],
    timeouts: { initNavigationMs: 5000, initRetries: 2, toolCallMs: 5000, stepMs: 15_000, taskMs: 60_000, closeMs: 5000 },
    initBackoffMs: 200,
    logger: eventLogger,
  });
  await pool.start();
});

void after(async () => {
  await pool.close();
  await srv.close();
});

const NOWHERE = 'http://owrl-nonexistent.invalid/';
const effectsOf = (r: EpisodeResult<string>, s: number, c = 0): Array<[string, Record<string, string>]> => (r.steps[s]?.results[c]?.effects ?? []).map((e) => [e.kind, e.evidence]);

async function run(startUrl: string, script: Script, extra: Partial<EpisodeSpec> = {}, on: BrowserPool = pool): Promise<{ r: EpisodeResult<string>; p: ScriptedPolicy }> {
  const p = new ScriptedPolicy(script);
  const r = await on.runEpisode({ startUrl, instruction: 'test', maxSteps: script.length, ...extra }, p);
  return { r, p };
}

/** Renderer processes of the pool's Chromium (only ours: found through the browser's process tree). */
function renderersOf(browserPid: number): number[] {
  return processTree(browserPid)
    .map((p) => p.pid)
    .filter((pid) => {
      try {
        // Chromium rewrites its process titles: the switches may be separated by spaces, not NULs
        return /(^|[\0 ])--type=renderer([\0 ]|$)/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    });
}

void describe('init faults', () => {
  void it('a host name that does not resolve ends with INIT_ERROR dns after the retries', async () => {
    const { r, p } = await run(NOWHERE, [step(call('done'))]);
    assert.deepEqual([r.termination.cls, r.termination.reason], ['INIT_ERROR', 'dns']);
    assert.equal(r.diagnostics.initAttempts, 3, 'dns failures are transient: retried');
    assert.match(r.diagnostics.errorMessage, /could not reach http:\/\/owrl-nonexistent\.invalid\/: owrl-nonexistent\.invalid does not resolve/);
    assert.equal(p.inputs.length, 0, 'the policy never ran');
  });

  void it('retries a start page that resets, then answers 503, then works (backoff), and runs the episode', async () => {
    const t0 = performance.now();
    const { r, p } = await run(`${srv.origin}/flaky/a`, [step(call('done', { response: 'up' }))]);
    assert.deepEqual([r.termination.cls, r.termination.reason], ['COMPLETED', 'done']);
    assert.equal(r.diagnostics.initAttempts, 3);
    assert.equal(srv.attempts.get('/flaky/a'), 3, 'three load attempts reached the server');
    assert.equal(r.diagnostics.httpStatus, 200);
    assert.equal(p.inputs[0]?.observation.title, 'Flaky');
    // backoff 200 ms then 400 ms before attempts 2 and 3
    assert.ok(performance.now() - t0 >= 600, 'the retries waited');
  });

  void it('a start page that never answers ends with INIT_ERROR timeout after initNavigationMs per attempt', async () => {
    const t0 = performance.now();
    const { r } = await run(`${srv.origin}/stall`, [step(call('done'))], { timeouts: { initNavigationMs: 600, initRetries: 1 } });
    const ms = performance.now() - t0;
    assert.deepEqual([r.termination.cls, r.termination.reason], ['INIT_ERROR', 'timeout']);
    assert.equal(r.diagnostics.initAttempts, 2);
    assert.ok(ms >= 1200 && ms < 8000, `two attempts of 600 ms took ${Math.round(ms)} ms`);
  });

  void it('a Cloudflare-style challenge (503) or a captcha as start page ends with ENV_ERROR bot_wall, not retried', async () => {
    const before = srv.hits.get('/challenge') ?? 0;
    const { r, p } = await run(`${srv.origin}/challenge`, [step(call('done'))]);
    assert.deepEqual([r.termination.cls, r.termination.reason], ['ENV_ERROR', 'bot_wall']);
    assert.match(r.termination.message, /^interstitial at .*\/challenge \(#challenge-form\), HTTP 503$/);
    assert.equal((srv.hits.get('/challenge') ?? 0) - before, 1, 'a wall is not retried');
    assert.equal(p.inputs.length, 0);
    const { r: c } = await run(`${srv.origin}/captcha`, [step(call('done'))]);
    assert.deepEqual([c.termination.cls, c.termination.reason], ['ENV_ERROR', 'bot_wall']);
    assert.match(c.termination.message, /^captcha at /);
  });
});

void describe('mid-episode faults', () => {
  void it('an unresolvable host the agent tries is an error{dns} effect and the episode goes on', async () => {
    const { r, p } = await run(`${srv.origin}/`, [step(call('goto_url', { url: NOWHERE })), step(call('done', { response: 'ok' }))]);
    assert.deepEqual([r.termination.cls, r.termination.reason], ['COMPLETED', 'done']);
    const res = r.steps[0]?.results[0];
    assert.deepEqual([res?.ok, res?.errorCode], [false, 'dns']);
    assert.deepEqual(effectsOf(r, 0)[0], ['error', { code: 'dns', url: NOWHERE }]);
    assert.match(p.inputs[1]?.observation.lastEffects[0] ?? '', /^error: dns/);
  });

  void it('a challenge interstitial mid-episode shows blocked{interstitial} and ends with ENV_ERROR bot_wall', async () => {
    const { r } = await run(`${srv.origin}/`, [step(call('goto_url', { url: `${srv.origin}/challenge` })), step(call('done'))]);
    assert.deepEqual([r.termination.cls, r.termination.reason], ['ENV_ERROR', 'bot_wall']);
    assert.equal(r.steps.length, 1);
    assert.equal(r.steps[0]?.results[0]?.errorCode, 'bot_wall');
    const fx = effectsOf(r, 0);
    assert.deepEqual(
      fx.map(([k, e]) => [k, e['reason'] ?? e['code'] ?? '']),
      [
        ['navigated', ''],
        ['blocked', 'interstitial'],
      ],
      'one wall effect, no separate HTTP 503 error',
    );
    assert.equal(fx[1]?.[1]['status'], '503');
    assert.equal(r.diagnostics.httpStatus, 503);
  });

  void it("with botWall 'effect' the agent sees the wall and the episode goes on", async () => {
    const lenient = new BrowserPool({ allowHosts: [srv.hostPort], botWall: 'effect', timeouts: { initRetries: 0, closeMs: 5000 } });
    try {
      const { r, p } = await run(`${srv.origin}/`, [step(call('goto_url', { url: `${srv.origin}/challenge` })), step(call('go_back')), step(call('done'))], {}, lenient);
      assert.deepEqual([r.termination.cls, r.termination.reason], ['COMPLETED', 'done']);
      assert.match(p.inputs[1]?.observation.lastEffects.join('; ') ?? '', /blocked: interstitial on .*\/challenge \(HTTP 503\)/);
      assert.equal(p.inputs[2]?.observation.title, 'Shop');
    } finally {
      await lenient.close();
    }
  });

  void it('a renderer crash ends with ENV_ERROR page_crash', async () => {
    const pid = pool.stats().browserPid;
    assert.ok(pid, 'the browser pid is known');
    let killed = 0;
    const policy = {
      needsScreenshot: false,
      async decide(i: PolicyInput): Promise<StepDecision<string>> {
        if (i.step === 1) {
          // kill the renderers of our Chromium as the OOM killer would, and wait until the
          // environment has seen the page crash (its log line), as a real step would find it
          const crashed = nextLog('page crashed', 10_000);
          const victims = renderersOf(pid);
          for (const v of victims) process.kill(v, 'SIGKILL');
          killed = victims.length;
          await crashed;
        }
        return i.step < 2 ? step(call('scroll', { direction: 'down' })) : step(call('done'));
      },
    };
    const r = await pool.runEpisode({ startUrl: `${srv.origin}/long`, instruction: 'test', maxSteps: 3 }, policy);
    assert.ok(killed >= 1, 'a renderer was found and killed');
    assert.deepEqual([r.termination.cls, r.termination.reason], ['ENV_ERROR', 'page_crash']);
    assert.equal(r.steps.length, 1, 'the crashed step is not recorded as a completed step');
    assert.equal(r.finalScreenshot, undefined, 'no screenshot of a crashed page');
    // the browser survived: the next episode runs on it
    const next = await run(`${srv.origin}/`, [step(call('done'))]);
    assert.equal(next.r.termination.cls, 'COMPLETED');
    assert.equal(pool.stats().browserPid, pid);
  });
});

void describe('tiered timeouts', () => {
  void it('a call that exhausts the step budget ends with ENV_ERROR step_timeout', async () => {
    const byName = (i: PolicyInput, name: string): number => i.observation.elements.find((e) => e.name === name)?.id ?? -1;
    const t0 = performance.now();
    const { r } = await run(`${srv.origin}/hang`, [(i) => step(call('click', { element_id: byName(i, 'Freeze') }), call('done'))], {
      timeouts: { toolCallMs: 5000, stepMs: 1500 },
      finalScreenshot: false,
    });
    assert.deepEqual([r.termination.cls, r.termination.reason], ['ENV_ERROR', 'step_timeout']);
    assert.match(r.termination.message, /^step 0 exceeded 1500 ms/);
    const res = r.steps[0]?.results[0];
    assert.deepEqual([res?.errorCode, res?.effects[0]?.evidence['limit']], ['timeout', 'step']);
    assert.equal(r.steps[0]?.results.length, 1, 'done was never reached');
    assert.ok(performance.now() - t0 < 12_000);
  });

  void it('a call that exhausts its own budget is a timeout effect and the episode goes on', async () => {
    const byName = (i: PolicyInput, name: string): number => i.observation.elements.find((e) => e.name === name)?.id ?? -1;
    const { r, p } = await run(`${srv.origin}/hang`, [(i) => step(call('click', { element_id: byName(i, 'Freeze') }), call('done')), step(call('done', { response: 'after' }))], {
      timeouts: { toolCallMs: 800, stepMs: 15_000 },
    });
    const res = r.steps[0]?.results[0];
    assert.deepEqual([res?.ok, res?.errorCode, res?.effects[0]?.evidence['limit']], [false, 'timeout', 'tool_call']);
    assert.equal(r.steps[0]?.results.length, 1, 'the chain stopped at the failed call');
    assert.deepEqual([r.termination.cls, r.finalAnswer], ['COMPLETED', 'after']);
    assert.match(p.inputs[1]?.observation.lastEffects[0] ?? '', /^error: timeout/);
  });
});
