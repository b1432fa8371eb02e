// BrowserPool lifecycle against real Chromium: recycling by episode count and by memory, crash
// replacement, concurrency, launch failure, misuse errors, and no process left after close().
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { BrowserEnvError, BrowserPool, type EpisodeResult, type EpisodeSpec, type PolicyInput, type StepDecision } from '../src/index.js';
import { listProcesses } from '@owrl/core';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { ScriptedPolicy } from './scripted-policy.js';

let srv: FixtureServer;
void before(async () => {
  srv = await startFixtureServer();
});
void after(async () => {
  await srv.close();
});

const done: StepDecision<string> = { reasoning: '', calls: [{ name: 'done', args: { response: 'ok' } }] };
const spec = (path = '/'): EpisodeSpec => ({ startUrl: srv.origin + path, instruction: 'x', maxSteps: 3 });
const alive = (pid: number): boolean => {
  try {
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
/** Direct children of this process that are Chromium, and any zombie child. */
const chromiumChildren = (): string[] =>
  listProcesses()
    .filter((p) => p.ppid === process.pid && (/chrom/i.test(p.comm) || p.state === 'Z'))
    .map((p) => `${p.pid} ${p.comm} ${p.state}`);

void describe('BrowserPool lifecycle', () => {
  void it('launches Chromium with the omnibox WebUI off and every feature Playwright disables still off', async () => {
    const pool = new BrowserPool({ allowHosts: [srv.hostPort] });
    try {
      await pool.start();
      const pid = pool.stats().browserPid;
      assert.ok(pid !== null);
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const lists = argv.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice('--disable-features='.length).split(','));
      // Playwright's own switch comes first and ours last; Chromium applies only the last one.
      assert.ok(lists.length >= 2, `expected Playwright's --disable-features and ours: ${JSON.stringify(lists)}`);
      const effective = new Set(lists[lists.length - 1]);
      for (const f of ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup']) assert.ok(effective.has(f), `${f} is not disabled`);
      const lost = lists.slice(0, -1).flat().filter((f) => !effective.has(f));
      assert.deepEqual(lost, [], 'features Playwright disables that our --disable-features switch turns back on');
      assert.ok(effective.has('PaintHolding'), 'a feature Playwright disables, as seen in playwright-core');
    } finally {
      await pool.close();
    }
  });

  void it('recycles Chromium after maxEpisodesPerBrowser and closes the old one', async () => {
    const pool = new BrowserPool({ allowHosts: [srv.hostPort], maxEpisodesPerBrowser: 2 });
    try {
      const r: EpisodeResult<string>[] = [];
      const pids: Array<number | null> = [];
      for (let i = 0; i < 3; i++) {
        r.push(await pool.runEpisode(spec(), new ScriptedPolicy([done])));
        pids.push(pool.stats().browserPid);
      }
      assert.deepEqual(
        r.map((x) => x.termination.cls),
        ['COMPLETED', 'COMPLETED', 'COMPLETED'],
      );
      assert.deepEqual(
        r.map((x) => x.diagnostics.browserEpisodes),
        [1, 2, 1],
      );
      const st = pool.stats();
      assert.equal(st.launches, 2);
      assert.equal(st.active, 0);
      assert.ok(pids[0] && pids[2] && pids[0] !== pids[2], `a new Chromium after 2 episodes: ${pids.join(',')}`);
      assert.equal(alive(pids[0]), false, 'the recycled Chromium is gone');
    } finally {
      await pool.close();
    }
  });

  void it('recycles above the memory ceiling', async () => {
    const pool = new BrowserPool({ allowHosts: [srv.hostPort], memoryCeilingBytes: 1 });
    try {
      const a = await pool.runEpisode(spec(), new ScriptedPolicy([done]));
      const b = await pool.runEpisode(spec(), new ScriptedPolicy([done]));
      assert.equal(a.termination.cls, 'COMPLETED');
      assert.equal(b.termination.cls, 'COMPLETED');
      assert.equal(b.diagnostics.browserEpisodes, 1);
      assert.equal(pool.stats().launches, 2);
    } finally {
      await pool.close();
    }
  });

  void it('runs concurrent episodes in isolated contexts on one Chromium', async () => {
    const pool = new BrowserPool({ allowHosts: [srv.hostPort] });
    try {
      await pool.start();
      const peak: number[] = [];
      const seen: string[] = [];
      const policy = {
        needsScreenshot: false,
        decide: (i: PolicyInput): Promise<StepDecision<string>> => {
          peak.push(pool.stats().active);
          if (i.step === 0) seen.push(i.observation.texts.find((t) => t.text.startsWith('cookie='))?.text ?? '?');
          return Promise.resolve(i.step === 0 ? { reasoning: '', calls: [{ name: 'goto_url', args: { url: `${srv.origin}/cookie-set` } }] } : done);
        },
      };
      const rs = await Promise.all([0, 1, 2].map(() => pool.runEpisode({ ...spec('/cookie-show'), pageExpression: "document.getElementById('c').textContent" }, policy)));
      assert.deepEqual(
        rs.map((r) => r.termination.cls),
        ['COMPLETED', 'COMPLETED', 'COMPLETED'],
      );
      assert.equal(Math.max(...peak), 3);
      const st = pool.stats();
      assert.ok(st.chromiumPssBytes > 10e6 && st.chromiumPssBytes < st.chromiumRssBytes, JSON.stringify(st));
      assert.deepEqual(seen, ['cookie=[] ls=[]', 'cookie=[] ls=[]', 'cookie=[] ls=[]'], 'no episode sees the cookie another one set');
      assert.equal(pool.stats().launches, 1);
      assert.equal(pool.stats().active, 0);
    } finally {
      await pool.close();
    }
  });

  void it('ends running episodes with SANDBOX_ERROR browser_crash when Chromium dies, then recovers', async () => {
    const pool = new BrowserPool({ allowHosts: [srv.hostPort] });
    try {
      await pool.start();
      const pid = pool.stats().browserPid;
      assert.ok(pid, 'the browser pid is known');
      const policy = {
        needsScreenshot: false,
        decide: (_i: PolicyInput, signal: AbortSignal): Promise<StepDecision<string>> => {
          process.kill(pid, 'SIGKILL');
          // a well-behaved policy stops when the episode is aborted
          return new Promise((_res, rej) => signal.addEventListener('abort', () => rej(new Error('aborted'))));
        },
      };
      const r = await pool.runEpisode(spec(), policy);
      assert.deepEqual([r.termination.cls, r.termination.reason], ['SANDBOX_ERROR', 'browser_crash']);
      const next = await pool.runEpisode(spec(), new ScriptedPolicy([done]));
      assert.equal(next.termination.cls, 'COMPLETED');
      assert.equal(pool.stats().launches, 2);
      assert.notEqual(pool.stats().browserPid, pid);
    } finally {
      await pool.close();
    }
  });

  void it('close() leaves no Chromium child and no zombie', async () => {
    const pool = new BrowserPool({ allowHosts: [srv.hostPort] });
    await pool.runEpisode(spec(), new ScriptedPolicy([done]));
    const pid = pool.stats().browserPid;
    assert.ok(pid);
    assert.ok(chromiumChildren().length >= 1, 'Chromium runs as a child of this process');
    const tree = listProcesses().filter((p) => p.pid === pid || p.ppid === pid).map((p) => p.pid);
    await pool.close();
    assert.deepEqual(chromiumChildren(), []);
    assert.deepEqual(tree.filter(alive), [], 'no process of the Chromium tree survives');
    await assert.rejects(pool.runEpisode(spec(), new ScriptedPolicy([done])), (e: unknown) => e instanceof BrowserEnvError && e.code === 'BROWSER_ENV_POOL_CLOSED');
  });

  void it('close() during an episode ends it with SANDBOX_ERROR browser_closed', async () => {
    const pool = new BrowserPool({ allowHosts: [srv.hostPort] });
    let closing: Promise<void> | undefined;
    const policy = {
      needsScreenshot: false,
      decide: (_i: PolicyInput, signal: AbortSignal): Promise<StepDecision<string>> => {
        closing = pool.close();
        return new Promise((_res, rej) => signal.addEventListener('abort', () => rej(new Error('aborted'))));
      },
    };
    const r = await pool.runEpisode(spec(), policy);
    await closing;
    assert.deepEqual([r.termination.cls, r.termination.reason], ['SANDBOX_ERROR', 'browser_closed']);
    assert.deepEqual(chromiumChildren(), []);
  });

  void it('reports a launch failure as SANDBOX_ERROR browser_launch, and bad input as errors', async () => {
    const pool = new BrowserPool({ executablePath: '/nonexistent/chromium' });
    await assert.rejects(pool.start(), (e: unknown) => e instanceof BrowserEnvError && e.code === 'BROWSER_ENV_LAUNCH_FAILED' && /nonexistent/.test(e.message));
    const r = await pool.runEpisode(spec(), new ScriptedPolicy([done]));
    assert.deepEqual([r.termination.cls, r.termination.reason], ['SANDBOX_ERROR', 'browser_launch']);
    await assert.rejects(pool.runEpisode({ ...spec(), maxSteps: 0 }, new ScriptedPolicy([done])), /maxSteps=0/);
    await assert.rejects(pool.runEpisode({ ...spec(), historyMode: 'verbose' as never }, new ScriptedPolicy([done])), /historyMode="verbose"/);
    await pool.close();
    assert.throws(() => new BrowserPool({ viewport: { width: 10, height: 800 } }), /viewport.width=10/);
  });
});
