// The demo's actors run Debian's old headless shell on the bundled sites when it is installed
// (services/cli bundledSitesChromium): the same episode must come out the same in it as in the
// full Chromium — steps, effects, answer, termination — with the step screenshots taken, and the
// browser fence must hold in it as in the full Chromium.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { BrowserPool, type EpisodeResult } from '../src/index.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { byName, call, step, ScriptedPolicy } from './scripted-policy.js';

const SHELL = '/usr/bin/chromium-headless-shell';
const skip = fs.existsSync(SHELL) ? false : `${SHELL} is not installed (Debian package chromium-headless-shell)`;

let srv: FixtureServer;
/** A second local server, not allowlisted: the fence must keep the pages off it. */
let internal: FixtureServer;
void before(async () => {
  srv = await startFixtureServer();
  internal = await startFixtureServer();
});
void after(async () => {
  await srv.close();
  await internal.close();
});


async function episode(executablePath: string): Promise<EpisodeResult<string>> {
  const pool = new BrowserPool({ executablePath, allowHosts: [srv.hostPort] });
  await pool.start();
  try {
    const p = new ScriptedPolicy([
      (i) => step(call('click', { element_id: byName(i, 'Search page') })),
      (i) => step(call('write', { element_id: byName(i, 'Query'), message: 'blue mug' }), call('press_keys', { keys: ['enter'] })),
      step(call('done', { response: 'You searched: blue mug' })),
    ]);
    const r = await pool.runEpisode({ startUrl: `${srv.origin}/`, instruction: 'test', maxSteps: 5, stepScreenshots: true, pageExpression: "document.querySelector('#answer')?.textContent" }, p);
    return r;
  } finally {
    await pool.close();
  }
}

const summary = (r: EpisodeResult<string>) => ({
  termination: r.termination,
  finalAnswer: r.finalAnswer,
  pageEval: r.pageEval,
  finalUrl: r.finalUrl,
  steps: r.steps.map((s) => ({ urlAfter: s.urlAfter, effects: s.results.map((c) => c.effects.map((e) => e.line)) })),
});

void test('the headless shell runs an episode exactly as the full Chromium does, step screenshots included', { skip, timeout: 120_000 }, async () => {
  const full = await episode('/usr/bin/chromium');
  const shell = await episode(SHELL);
  assert.equal(full.termination.cls, 'COMPLETED');
  assert.equal(full.pageEval.valueJson, '"You searched: blue mug"');
  assert.deepEqual(summary(shell), summary(full));
  for (const s of shell.steps) {
    assert.ok(s.screenshot && s.screenshot.length > 1000, 'a step without its screenshot');
    assert.deepEqual([...s.screenshot.subarray(0, 2)], [0xff, 0xd8], 'a step screenshot that is not a JPEG');
  }
});

void test('the headless shell is behind the browser fence as the full Chromium is', { skip, timeout: 120_000 }, async () => {
  const port = internal.hostPort.split(':')[1] ?? '';
  const probe = async (executablePath: string): Promise<EpisodeResult<string>> => {
    const pool = new BrowserPool({ executablePath, allowHosts: [srv.hostPort] });
    try {
      const p = new ScriptedPolicy([(i) => step(call('click', { element_id: byName(i, 'Fetch internal') })), (i) => step(call('done', { response: i.observation.texts[0]?.text ?? '' }))]);
      return await pool.runEpisode({ startUrl: `${srv.origin}/ssrf?port=${port}`, instruction: 'test', maxSteps: 3, finalScreenshot: false }, p);
    } finally {
      await pool.close();
    }
  };
  const full = await probe('/usr/bin/chromium');
  const shell = await probe(SHELL);
  for (const r of [full, shell]) {
    assert.equal(r.termination.cls, 'COMPLETED', r.termination.message);
    assert.match(r.finalAnswer, /^fetch failed/);
    assert.deepEqual(r.diagnostics.blocked.map((b) => [b.url, b.reason, b.range]), [[`http://127.0.0.1:${port}/secret`, 'private_address', 'loopback']]);
  }
  assert.deepEqual(summary(shell), summary(full));
  assert.equal(internal.hits.get('/secret'), undefined, 'nothing reached the internal server');
});
