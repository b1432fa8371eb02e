// Faults seen through the browser environment (BrowserPool.runEpisode, real Chromium, scripted
// PlanPolicy): what the environment reports for 5xx, reset, bot walls, captchas, redirect loops,
// DOM mutation, slow rendering, a site going down mid-episode and latency under the step timeout.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { BrowserPool, PlanPolicy, type EpisodeResult, type EpisodeSpec, type PlanStep } from '@owrl/browser-env';
import { withSession } from '@owrl/tasks';
import { startSitesServer, type SitesServer } from '../src/index.js';

let srv: SitesServer;
let pool: BrowserPool;
let localhostUrl: string;

before(async () => {
  srv = await startSitesServer({ port: 0, seed: 6 });
  localhostUrl = `http://localhost:${srv.port}`;
  pool = new BrowserPool({
    allowHosts: [`127.0.0.1:${srv.port}`, `localhost:${srv.port}`],
    timeouts: { initNavigationMs: 5000, initRetries: 1, toolCallMs: 5000, stepMs: 15_000, taskMs: 60_000, closeMs: 5000 },
    initBackoffMs: 10,
    screenshots: 0,
  });
  await pool.start();
});
after(async () => {
  await pool.close();
  await srv.close();
});

async function addRule(rule: unknown): Promise<string> {
  const res = await fetch(`${srv.url}/__owrl/faults`, { method: 'POST', body: JSON.stringify(rule) });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

async function run(startUrl: string, plan: PlanStep[], extra: Partial<EpisodeSpec> = {}, onStep?: (i: number) => Promise<void>): Promise<EpisodeResult<undefined>> {
  const policy = new PlanPolicy(plan);
  const hooks = onStep === undefined ? {} : { onStep: (s: { index: number }) => onStep(s.index) };
  return await pool.runEpisode({ startUrl, instruction: 'test', maxSteps: plan.length + 1, finalScreenshot: false, ...extra }, policy, hooks);
}

const term = (r: EpisodeResult<undefined>): [string, string] => [r.termination.cls, r.termination.reason];
const effects = (r: EpisodeResult<undefined>, step: number): Array<[string, string]> =>
  (r.steps[step]?.results ?? []).flatMap((c) => c.effects.map((e): [string, string] => [e.kind, e.evidence['reason'] ?? e.evidence['code'] ?? '']));

void test('5xx at init: INIT_ERROR http_5xx after the retries, only on the faulted host', async () => {
  const id = await addRule({ match: { host: 'localhost', session: 'env-5xx' }, fault: { kind: 'status', code: 503 } });
  const r = await run(withSession(`${localhostUrl}/shop/`, 'env-5xx'), [{ done: 'x' }]);
  assert.deepEqual(term(r), ['INIT_ERROR', 'http_5xx']);
  assert.equal(r.diagnostics.initAttempts, 2);
  assert.equal(r.diagnostics.httpStatus, 503);
  assert.equal(srv.faults.get(id)?.applied, 2, 'every attempt hit the rule');
  // The same server reached as 127.0.0.1 is another, healthy host.
  const ok = await run(withSession(`${srv.url}/shop/`, 'env-5xx'), [{ done: 'fine' }]);
  assert.deepEqual(term(ok), ['COMPLETED', 'done']);
  srv.faults.clear();
});

void test('reset: INIT_ERROR connection_reset at init, ENV_ERROR connection_reset mid-episode', async () => {
  const init = await run(`${srv.url}/shop/?owrl_fault=reset`, [{ done: 'x' }]);
  assert.deepEqual(term(init), ['INIT_ERROR', 'connection_reset']);
  // Chromium sees the browser fence give up; the message says what the fence met at the site
  assert.match(init.diagnostics.errorMessage, /^the fence could not reach http:\/\/127\.0\.0\.1:\d+\/shop\/\?owrl_fault=reset: .*ECONNRESET/);
  const mid = await run(`${srv.url}/shop/`, [{ goto: `${srv.url}/shop/cart?owrl_fault=reset` }, { done: 'x' }]);
  assert.deepEqual(term(mid), ['ENV_ERROR', 'connection_reset']);
  assert.equal(mid.steps.length, 1);
});

void test('bot_wall: ENV_ERROR bot_wall (an interstitial) at init; mid-episode a blocked effect, then ENV_ERROR bot_wall', async () => {
  const init = await run(`${srv.url}/shop/?owrl_fault=bot_wall`, [{ done: 'x' }]);
  // The environment counts a wall at the start page as a site failure, not an init failure.
  assert.deepEqual(term(init), ['ENV_ERROR', 'bot_wall']);
  assert.match(init.termination.message, /^interstitial at .*\(#challenge-form\), HTTP 503$/);
  assert.equal(init.steps.length, 0);
  await addRule({ match: { path: '/shop/c/toys' }, fault: { kind: 'bot_wall', status: 403 } });
  const mid = await run(`${srv.url}/shop/`, [{ click: { name: 'Toys', role: 'link' } }, { done: 'x' }]);
  srv.faults.clear();
  assert.deepEqual(term(mid), ['ENV_ERROR', 'bot_wall']);
  const fx = effects(mid, 0);
  assert.ok(fx.some(([k, why]) => k === 'blocked' && why === 'interstitial'), JSON.stringify(fx));
  assert.equal(mid.diagnostics.httpStatus, 403);
});

void test('captcha: the step shows blocked{captcha}', async () => {
  const r = await run(`${srv.url}/shop/`, [{ goto: `${srv.url}/shop/cart?owrl_fault=captcha:hcaptcha` }, { done: 'x' }]);
  assert.deepEqual(term(r), ['ENV_ERROR', 'bot_wall']);
  assert.deepEqual(
    effects(r, 0).filter(([k]) => k === 'blocked'),
    [['blocked', 'captcha']],
  );
  assert.match(r.steps[0]?.results[0]?.errorCode ?? '', /^bot_wall$/);
});

void test('redirect_loop: too_many_redirects at init and mid-episode', async () => {
  const init = await run(`${srv.url}/shop/?owrl_fault=redirect_loop`, [{ done: 'x' }]);
  assert.deepEqual(term(init), ['INIT_ERROR', 'too_many_redirects']);
  const mid = await run(`${srv.url}/shop/`, [{ goto: `${srv.url}/shop/cart?owrl_fault=redirect_loop:self` }, { done: 'x' }]);
  assert.deepEqual(term(mid), ['ENV_ERROR', 'too_many_redirects']);
});

void test('dom_mutation: a wait step sees dom_changed (elements added and removed)', async () => {
  // The mutation fires 3 s after load, inside the one long wait that starts once the page is observed.
  await addRule({ match: { session: 'env-mutation' }, fault: { kind: 'dom_mutation', after_ms: 3000 } });
  const policy = new PlanPolicy([{ wait: 6 }]);
  const r = await pool.runEpisode({ startUrl: withSession(`${srv.url}/shop/c/kitchen`, 'env-mutation'), instruction: 'test', maxSteps: 1, finalScreenshot: false }, policy);
  srv.faults.clear();
  assert.equal(r.termination.cls, 'STEP_BUDGET_EXHAUSTED');
  const changed = (r.steps[0]?.results ?? []).flatMap((c) => c.effects).filter((e) => e.kind === 'dom_changed');
  assert.equal(changed.length, 1, JSON.stringify(r.steps.map((s) => s.results.map((c) => c.effects))));
  const names = (policy.inputs[0]?.observation.elements ?? []).map((e) => e.name);
  assert.ok(!names.includes('Accept all'), 'the consent dialog is not there before the mutation');
  assert.ok(Number(changed[0]?.evidence['added']) > 0 && Number(changed[0]?.evidence['removed']) > 0, JSON.stringify(changed[0]));
});

void test('slow_render: the first observation is a spinner; the page appears during a wait', async () => {
  const policy = new PlanPolicy([{ wait: 4 }]);
  const r = await pool.runEpisode(
    { startUrl: `${srv.url}/shop/c/outdoor?owrl_fault=slow_render:3000`, instruction: 'test', maxSteps: 2, finalScreenshot: false },
    policy,
  );
  assert.equal(r.termination.cls, 'COMPLETED');
  const first = policy.inputs[0]?.observation.elements ?? [];
  const second = policy.inputs[1]?.observation.elements ?? [];
  assert.ok(!first.some((e) => e.role === 'link'), `no links while rendering: ${JSON.stringify(first.map((e) => e.name))}`);
  assert.ok(second.filter((e) => e.role === 'link').length >= 5, `links after rendering: ${second.length}`);
  assert.ok(effects(r, 0).some(([k]) => k === 'dom_changed'), JSON.stringify(effects(r, 0)));
});

void test('the site goes down mid-episode: ENV_ERROR with a network reason at the next step', async () => {
  const session = 'env-down';
  let downId = '';
  const r = await run(
    withSession(`${srv.url}/shop/`, session),
    [{ click: { name: 'Kitchen', role: 'link' } }, { click: { name: 'Toys', role: 'link' } }, { done: 'x' }],
    {},
    async (i) => {
      if (i === 0) downId = await addRule({ match: { session }, fault: { kind: 'down' } });
    },
  );
  srv.faults.clear();
  assert.deepEqual(effects(r, 0), [['navigated', '']], 'step 1 ran before the site went down');
  assert.equal(r.termination.cls, 'ENV_ERROR');
  assert.match(r.termination.reason, /^(connection_reset|connection_closed|connection_refused)$/);
  assert.equal(r.steps.length, 2);
  assert.ok(downId !== '');
});

void test('latency under the step timeout still completes', async () => {
  await addRule({ match: { path: '/shop/c/' }, fault: { kind: 'latency', ms: 1200 } });
  const r = await run(`${srv.url}/shop/`, [{ click: { name: 'Office', role: 'link' } }, { done: 'ok' }]);
  srv.faults.clear();
  assert.deepEqual(term(r), ['COMPLETED', 'done']);
  assert.deepEqual(effects(r, 0), [['navigated', '']]);
  const t = r.steps[0]?.timing;
  assert.ok(t && t.actionMs + t.settleMs >= 1200, JSON.stringify(t));
  assert.match(r.finalUrl, /\/shop\/c\/office$/);
});
