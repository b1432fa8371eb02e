// test-run: alone (asserts bounds on timeout durations)
// Episodes against real Chromium and a local fixture site: completion, budgets, format errors,
// init failures, observation, screenshots, and the effect of every kind of action.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from '@owrl/testkit';
import { BrowserPool, type EpisodeResult, type EpisodeSpec, type PolicyInput, type StepDecision } from '../src/index.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { byName, call, step, ScriptedPolicy, type Script } from './scripted-policy.js';

let srv: FixtureServer;
let pool: BrowserPool;
let deadPort: number;

void before(async () => {
  srv = await startFixtureServer();
  deadPort = await freePort();
  pool = new BrowserPool({
    allowHosts: [srv.hostPort, `127.0.0.1:${deadPort}`],
    timeouts: { initNavigationMs: 5000, initRetries: 2, toolCallMs: 5000, stepMs: 15_000, taskMs: 60_000, closeMs: 5000 },
    initBackoffMs: 10,
  });
  await pool.start();
});

void after(async () => {
  await pool.close();
  await srv.close();
});

const kinds = (r: EpisodeResult<string>, s: number): string[][] => (r.steps[s]?.results ?? []).map((c) => c.effects.map((e) => e.kind));

async function run(path: string, script: Script, extra: Partial<EpisodeSpec> = {}, needsScreenshot = false): Promise<{ r: EpisodeResult<string>; p: ScriptedPolicy }> {
  const p = new ScriptedPolicy(script, needsScreenshot);
  const r = await pool.runEpisode({ startUrl: srv.origin + path, instruction: 'test', maxSteps: script.length, ...extra }, p);
  return { r, p };
}

void describe('episodes', () => {
  void it('completes a 3-step episode with the expected effect per call', async () => {
    const { r, p } = await run(
      '/',
      [
        (i) => step(call('click', { element_id: byName(i, 'Search page') })),
        (i) => step(call('write', { element_id: byName(i, 'Query'), message: 'blue mug' }), call('press_keys', { keys: ['enter'] })),
        step(call('done', { response: 'You searched: blue mug' })),
      ],
      { maxSteps: 5, pageExpression: "document.querySelector('#answer')?.textContent" },
    );
    assert.deepEqual(r.termination, { cls: 'COMPLETED', reason: 'done', message: 'the policy called done' });
    assert.equal(r.finalAnswer, 'You searched: blue mug');
    assert.equal(r.calledDone, true);
    assert.equal(r.steps.length, 3);
    assert.deepEqual(kinds(r, 0), [['navigated']]);
    assert.deepEqual(kinds(r, 1), [['value_set'], ['navigated']]);
    assert.deepEqual(kinds(r, 2), [['done']]);
    assert.equal(r.steps[1]?.results[0]?.effects[0]?.line, 'value_set "blue mug" in Query');
    assert.equal(r.steps[0]?.results[0]?.effects[0]?.line, 'navigated to /form');
    assert.equal(new URL(r.finalUrl).pathname, '/result');
    assert.deepEqual(r.pageEval, { evaluated: true, truthy: true, valueJson: '"You searched: blue mug"', error: '' });
    assert.ok(r.finalScreenshot && r.finalScreenshot[0] === 0xff && r.finalScreenshot[1] === 0xd8, 'final screenshot is a JPEG');
    assert.equal(r.diagnostics.initAttempts, 1);
    assert.equal(r.diagnostics.httpStatus, 200);
    assert.ok(r.diagnostics.chromiumRssBytes > 10e6);
    // PSS shares the pages mapped by several Chromium processes out: well below the summed RSS
    assert.ok(r.diagnostics.chromiumPssBytes > 10e6 && r.diagnostics.chromiumPssBytes < r.diagnostics.chromiumRssBytes, JSON.stringify(r.diagnostics));
    // the policy saw the previous step's effects and the history
    assert.deepEqual(p.inputs[1]?.observation.lastEffects, ['navigated to /form']);
    assert.deepEqual(p.inputs[2]?.history.map((h) => h.effects), [['navigated to /form'], ['value_set "blue mug" in Query', 'navigated to /result?q=blue+mug&qty=']]);
    // every phase is timed (the speed itself is measured by `npm run bench -- env`, not asserted here)
    for (const s of r.steps) assert.ok(s.timing.actionMs >= 0 && s.timing.settleMs >= 0 && s.timing.observeMs >= 0 && s.timing.actionMs + s.timing.settleMs + s.timing.observeMs > 0, JSON.stringify(s.timing));
  });

  void it('ends with STEP_BUDGET_EXHAUSTED after maxSteps', async () => {
    const { r } = await run('/long', [step(call('scroll', { direction: 'down' }))], { maxSteps: 2 });
    assert.equal(r.termination.cls, 'STEP_BUDGET_EXHAUSTED');
    assert.equal(r.termination.reason, 'max_steps');
    assert.equal(r.steps.length, 2);
    assert.deepEqual(kinds(r, 0), [['scrolled']]);
    assert.match(r.steps[0]?.results[0]?.effects[0]?.line ?? '', /^scrolled down 400px/);
  });

  void it('ends with FORMAT_ERROR after 3 consecutive parse errors, and a valid step resets the count', async () => {
    const bad: StepDecision<string> = { reasoning: '', calls: [], parseError: true, raw: 'garbage' };
    const { r } = await run('/', [bad, bad, bad], { maxSteps: 10 });
    assert.equal(r.termination.cls, 'FORMAT_ERROR');
    assert.equal(r.steps.length, 3);
    assert.equal(r.steps[2]?.raw, 'garbage');
    const { r: r2 } = await run('/', [bad, bad, step(call('wait', { seconds: 0 })), bad, bad], { maxSteps: 5 });
    assert.equal(r2.termination.cls, 'STEP_BUDGET_EXHAUSTED');
    // the third unparseable output in a row ends the episode even on the last allowed step
    const { r: r3 } = await run('/', [step(call('wait', { seconds: 0 })), bad, bad, bad], { maxSteps: 4 });
    assert.deepEqual([r3.termination.cls, r3.steps.length], ['FORMAT_ERROR', 4]);
  });

  void it('shows the policy why its output could not be parsed, and hands its raw output back as history', async () => {
    const bad: StepDecision<string> = { reasoning: 'hmm', calls: [], parseError: true, parseErrorDetail: 'no tool call in the reply', raw: '<think>hmm</think> nothing' };
    const { r, p } = await run('/', [bad, step(call('wait', { seconds: 0 })), step(call('done'))], { maxSteps: 3 });
    assert.equal(r.termination.cls, 'COMPLETED');
    const line = 'error: output could not be parsed, no action taken: no tool call in the reply';
    assert.deepEqual(p.inputs[1]?.observation.lastEffects, [line]);
    assert.deepEqual(p.inputs[1]?.history.map((h) => [h.effects, h.raw]), [[[line], '<think>hmm</think> nothing']]);
    assert.equal(r.steps[0]?.parseErrorLine, line);
  });

  void it('ends with GENERATION_LIMIT, with the policy reason for a context overflow', async () => {
    const { r } = await run('/', [{ reasoning: 'long', calls: [], generationLimit: true }], { maxSteps: 3 });
    assert.equal(r.termination.cls, 'GENERATION_LIMIT');
    assert.equal(r.termination.reason, 'generation_limit');
    assert.equal(r.steps.length, 1);
    const { r: r2 } = await run('/', [step(call('wait', { seconds: 0 })), { reasoning: '', calls: [], generationLimit: true, limitReason: 'context_overflow' }], { maxSteps: 3 });
    assert.deepEqual([r2.termination.cls, r2.termination.reason, r2.steps.length], ['GENERATION_LIMIT', 'context_overflow', 2]);
  });

  void it('ends with SANDBOX_ERROR and the policy reason when its backend is unavailable', async () => {
    const unavailable = Object.assign(new Error('server answered 503 three times'), { code: 'POLICY_UNAVAILABLE', reason: 'policy_unavailable' });
    const p = new ScriptedPolicy([]);
    p.decide = () => Promise.reject(unavailable);
    const r = await pool.runEpisode({ startUrl: srv.origin + '/', instruction: 'test', maxSteps: 2 }, p);
    assert.deepEqual([r.termination.cls, r.termination.reason], ['SANDBOX_ERROR', 'policy_unavailable']);
    assert.match(r.termination.message, /503 three times/);
    assert.equal(r.steps.length, 0);
  });

  void it('gives INIT_ERROR connection_refused after retries', async () => {
    const { r, p } = await run('', [step(call('done'))], { startUrl: `http://127.0.0.1:${deadPort}/` });
    assert.equal(r.termination.cls, 'INIT_ERROR');
    assert.equal(r.termination.reason, 'connection_refused');
    assert.equal(r.diagnostics.initAttempts, 3);
    assert.equal(p.inputs.length, 0);
    // Chromium sees the fence give up; the message says what the fence met at the upstream
    assert.match(r.diagnostics.errorMessage, new RegExp(`could not reach http://127\\.0\\.0\\.1:${deadPort}/: .*ECONNREFUSED`));
  });

  void it('gives INIT_ERROR http_5xx after retries', async () => {
    const before = srv.hits.get('/500') ?? 0;
    const { r } = await run('/500', [step(call('done'))]);
    assert.equal(r.termination.cls, 'INIT_ERROR');
    assert.equal(r.termination.reason, 'http_5xx');
    assert.equal(r.diagnostics.initAttempts, 3);
    assert.equal(r.diagnostics.httpStatus, 500);
    assert.equal((srv.hits.get('/500') ?? 0) - before, 3);
  });

  void it('gives INIT_ERROR for bad and private start URLs, ENV_ERROR for a walled one', async () => {
    const p = new ScriptedPolicy([step(call('done'))]);
    const bad = await pool.runEpisode({ startUrl: 'file:///etc/passwd', instruction: '', maxSteps: 1 }, p);
    assert.deepEqual([bad.termination.cls, bad.termination.reason], ['INIT_ERROR', 'bad_url']);
    const priv = await pool.runEpisode({ startUrl: 'http://127.0.0.1:1/', instruction: '', maxSteps: 1 }, p);
    assert.deepEqual([priv.termination.cls, priv.termination.reason], ['INIT_ERROR', 'blocked_url']);
    const wall = await pool.runEpisode({ startUrl: srv.origin + '/captcha', instruction: '', maxSteps: 1 }, p);
    assert.deepEqual([wall.termination.cls, wall.termination.reason], ['ENV_ERROR', 'bot_wall']);
    assert.equal(p.inputs.length, 0);
  });

  void it('observes elements with names, roles, boxes and contexts, including shadow DOM and iframes', async () => {
    const { p } = await run('/', [step(call('done'))]);
    const obs = p.inputs[0]!.observation;
    assert.equal(obs.title, 'Shop');
    assert.deepEqual(obs.viewport, { width: 1280, height: 800 });
    assert.deepEqual(obs.tabs.map((t) => [t.index, t.title, t.active]), [[0, 'Shop', true]]);
    const mug = obs.elements.find((e) => e.name === 'Blue mug');
    assert.ok(mug);
    assert.equal(mug.role, 'link');
    assert.equal(mug.href, `${srv.origin}/item/blue-mug`);
    assert.equal(mug.context, 'Blue mug $12.50');
    assert.ok(mug.box.width > 10 && mug.box.height > 5 && mug.box.y > 0 && mug.inViewport);
    assert.ok(obs.texts.some((t) => t.text === '$12.50' && t.context === 'Blue mug $12.50'));
    assert.ok(obs.texts.some((t) => t.text === 'Mug shop' && t.tag === 'h1'));
    const ids = [...obs.elements.map((e) => e.id), ...obs.texts.map((t) => t.id)];
    assert.equal(new Set(ids).size, ids.length, 'ids are unique');

    const shadow = await run('/shadow', [
      (i) => step(call('click', { element_id: byName(i, 'Frame button') })),
      (i) => step(call('click', { element_id: byName(i, 'Shadow button') })),
      step(call('done')),
    ]);
    const o = shadow.p.inputs[0]!.observation;
    const sb = o.elements.find((e) => e.name === 'Shadow button');
    const fb = o.elements.find((e) => e.name === 'Frame button');
    assert.equal(sb?.frame, 'shadow');
    assert.equal(fb?.frame, 'iframe[0]');
    const frameTop = (sb?.box.y ?? 0) + (sb?.box.height ?? 0);
    assert.ok((fb?.box.y ?? 0) >= frameTop, 'iframe element boxes are offset by the frame position');
    // clicking an element inside the iframe by id reached it: its text changed
    assert.deepEqual(kinds(shadow.r, 0), [['dom_changed']]);
    assert.ok(shadow.p.inputs[1]!.observation.elements.some((e) => e.name === 'Clicked in frame'));
    // and clicking inside the open shadow root changed it, seen by the diff and the next observation
    assert.equal(shadow.r.steps[1]?.results[0]?.ok, true);
    assert.deepEqual(kinds(shadow.r, 1), [['dom_changed']]);
    assert.ok(shadow.p.inputs[2]!.observation.elements.some((e) => e.name === 'Clicked in shadow' && e.frame === 'shadow'));
  });

  void it('takes screenshots only for policies that read them (K=1)', async () => {
    const script: Script = [step(call('scroll', { direction: 'down' })), step(call('done'))];
    const without = await run('/long', script, {}, false);
    assert.deepEqual(without.p.inputs.map((i) => i.observation.screenshots.length), [0, 0]);
    const withShots = await run('/long', script, {}, true);
    assert.deepEqual(withShots.p.inputs.map((i) => i.observation.screenshots.length), [1, 1]);
    const jpeg = withShots.p.inputs[1]!.observation.screenshots[0]!;
    assert.deepEqual([jpeg[0], jpeg[1]], [0xff, 0xd8]);
    assert.notDeepEqual(withShots.p.inputs[0]!.observation.screenshots[0], jpeg, 'the latest screenshot replaced the first');
  });

  void it('reports scroll_blocked at the bottom and top', async () => {
    const { r } = await run('/long', [step(call('scroll', { direction: 'up' }), call('scroll', { direction: 'down', amount: 10 })), step(call('scroll', { direction: 'down' }))], { maxSteps: 2 });
    assert.deepEqual(kinds(r, 0), [['scroll_blocked'], ['scrolled']]);
    assert.equal(r.steps[0]?.results[0]?.effects[0]?.line, 'scroll_blocked: already at the top');
    assert.deepEqual(kinds(r, 1), [['scroll_blocked']]);
    assert.equal(r.steps[1]?.results[0]?.effects[0]?.line, 'scroll_blocked: already at the bottom');
  });
});

void describe('effects of actions', () => {
  void it('new_tab from a target=_blank link, then close_tab', async () => {
    const { r, p } = await run('/blank', [(i) => step(call('click', { element_id: byName(i, 'Open in new tab') })), step(call('close_tab')), step(call('done'))]);
    assert.deepEqual(kinds(r, 0), [['new_tab']]);
    const tabs = p.inputs[1]!.observation.tabs;
    assert.deepEqual(tabs.map((t) => t.active), [false, true]);
    assert.equal(new URL(tabs[1]!.url).pathname, '/item/blue-mug');
    assert.equal(p.inputs[1]!.observation.title, 'Item blue-mug');
    assert.deepEqual(kinds(r, 1), [['tab_closed']]);
    assert.equal(p.inputs[2]!.observation.tabs.length, 1);
    assert.equal(new URL(p.inputs[2]!.observation.url).pathname, '/blank');
  });

  void it('new_tab, goto_url and switch_tab move between tabs', async () => {
    const { r, p } = await run('/', [
      step(call('new_tab')),
      step(call('goto_url', { url: `${srv.origin}/form` })),
      step(call('switch_tab', { tab_index: 0 })),
      step(call('switch_tab', { tab_index: 5 })),
      step(call('done')),
    ]);
    assert.deepEqual(kinds(r, 0), [['new_tab']]);
    assert.deepEqual(
      p.inputs[1]!.observation.tabs.map((t) => [t.url, t.active]),
      [
        [`${srv.origin}/`, false],
        ['about:blank', true],
      ],
    );
    assert.deepEqual(kinds(r, 1), [['navigated']]);
    assert.deepEqual(kinds(r, 2), [['navigated']]);
    assert.match(r.steps[2]?.results[0]?.effects[0]?.line ?? '', /^switched to tab showing http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.equal(p.inputs[3]!.observation.title, 'Shop');
    assert.deepEqual([r.steps[3]?.results[0]?.ok, r.steps[3]?.results[0]?.errorCode], [false, 'bad_args']);
  });

  void it('hover opens a CSS menu; drag moves a slider; keys and wait work', async () => {
    const { r } = await run('/hover', [
      step(call('hover', { point_2d: [30, 20] })),
      step(call('drag', { start_point_2d: [22, 208], end_point_2d: [250, 208] })),
      step(call('press_keys', { keys: ['ArrowLeft'], presses: 3 }), call('wait', { seconds: 0.1 })),
    ]);
    assert.equal(r.steps[0]?.results[0]?.effects[0]?.kind, 'dom_changed');
    assert.equal(r.steps[0]?.results[0]?.effects[0]?.evidence['added'], '1');
    const drag = r.steps[1]?.results[0]?.effects ?? [];
    assert.ok(drag.some((e) => e.kind === 'dom_changed' && /focused slider/.test(e.line)), JSON.stringify(drag));
    const keys = r.steps[2]?.results[0]?.effects[0];
    assert.equal(keys?.kind, 'value_set');
    assert.equal(Number(keys?.evidence['before']) - Number(keys?.evidence['value']), 3);
    assert.deepEqual(kinds(r, 2)[1], ['no_effect']);
  });

  void it('waits for fetches an action started before measuring its effect', async () => {
    const { r } = await run('/fetch', [(i) => step(call('click', { element_id: byName(i, 'Load more') }))]);
    const e = r.steps[0]?.results[0]?.effects[0];
    assert.equal(e?.kind, 'dom_changed');
    assert.equal(e?.evidence['added'], '3');
  });

  void it('value_mismatch when the page rewrites the input', async () => {
    const { r } = await run('/rewrite', [(i) => step(call('write', { element_id: byName(i, 'Code'), message: 'abc' }))]);
    const e = r.steps[0]?.results[0]?.effects[0];
    assert.equal(e?.kind, 'value_mismatch');
    assert.deepEqual([e?.evidence['expected'], e?.evidence['actual']], ['abc', 'ABC']);
  });

  void it('write clears the field first; without focus it fails with not_editable and stops the chain', async () => {
    const { r } = await run('/form', [
      (i) => step(call('write', { element_id: byName(i, 'Quantity'), message: '5' }), call('write', { element_id: byName(i, 'Quantity'), message: '2' })),
      step(call('press_keys', { keys: ['Escape'] })),
    ]);
    assert.equal(r.steps[0]?.results[1]?.effects[0]?.line, 'value_set "2" in Quantity');
    const { r: r2 } = await run('/noop', [step(call('write', { message: 'x' }), call('press_keys', { keys: ['Enter'] }))]);
    assert.equal(r2.steps[0]?.results.length, 1);
    assert.equal(r2.steps[0]?.results[0]?.ok, false);
    assert.equal(r2.steps[0]?.results[0]?.errorCode, 'not_editable');
  });

  void it('no_effect for a dead button, dom_changed for a menu, focus for a field', async () => {
    const { r } = await run('/noop', [(i) => step(call('click', { element_id: byName(i, 'Nothing') }), call('hover', { point_2d: [600, 700] }))]);
    assert.deepEqual(kinds(r, 0), [['dom_changed'], ['no_effect']]); // clicking a button focuses it
    assert.match(r.steps[0]?.results[0]?.effects[0]?.line ?? '', /focused button "Nothing"/);
    const { r: t } = await run('/toggle', [(i) => step(call('click', { element_id: byName(i, 'Menu') }))]);
    const d = t.steps[0]?.results[0]?.effects[0];
    assert.equal(d?.kind, 'dom_changed');
    assert.equal(d?.evidence['added'], '2');
    const { r: f } = await run('/noop', [step(call('click', { point_2d: [1000, 700] }))]);
    assert.deepEqual(kinds(f, 0), [['no_effect']]);
  });

  void it('dismisses dialogs and reports downloads', async () => {
    const { r, p } = await run('/dialog', [(i) => step(call('click', { element_id: byName(i, 'Alert') })), step(call('done'))]);
    const dlg = r.steps[0]?.results[0]?.effects.find((e) => e.kind === 'dialog');
    assert.equal(dlg?.line, 'dialog alert "hello there" dismissed');
    assert.equal(p.inputs[1]?.observation.title, 'after alert');
    const { r: d } = await run('/download', [(i) => step(call('click', { element_id: byName(i, 'Get file') }))]);
    const dl = d.steps[0]?.results[0]?.effects.find((e) => e.kind === 'download');
    assert.equal(dl?.evidence['filename'], 'file.txt');
  });

  void it('blocks private addresses and non-http schemes, and the episode goes on', async () => {
    const { r } = await run('/private', [
      (i) => step(call('click', { element_id: byName(i, 'Internal') })),
      step(call('goto_url', { url: 'file:///etc/passwd' })),
      step(call('goto_url', { url: 'http://169.254.169.254/latest/meta-data' })),
      step(call('goto_url', { url: `http://localhost:${srv.hostPort.split(':')[1]}/` })),
      step(call('done', { response: 'ok' })),
    ]);
    assert.equal(r.termination.cls, 'COMPLETED');
    assert.equal(r.steps[0]?.results[0]?.errorCode, 'blocked');
    assert.deepEqual(kinds(r, 0)[0]?.slice(0, 1), ['blocked']);
    assert.equal(r.steps[0]?.results[0]?.effects[0]?.evidence['reason'], 'private_address');
    assert.equal(r.steps[1]?.results[0]?.errorCode, 'bad_url');
    assert.equal(r.steps[2]?.results[0]?.effects[0]?.kind, 'blocked');
    assert.equal(r.steps[3]?.results[0]?.effects[0]?.kind, 'blocked', 'localhost with an allowlisted port of 127.0.0.1 is still blocked');
  });

  void it('shows HTTP 5xx mid-episode as an effect; a reset connection ends with ENV_ERROR', async () => {
    const { r } = await run('/', [step(call('goto_url', { url: `${srv.origin}/500` })), step(call('go_back')), step(call('done'))]);
    assert.equal(r.termination.cls, 'COMPLETED');
    const e = r.steps[0]?.results[0]?.effects.map((x) => [x.kind, x.evidence['code'] ?? '']);
    assert.deepEqual(e, [['navigated', ''], ['error', 'http_5xx']]);
    assert.deepEqual(kinds(r, 1), [['navigated']]);
    const { r: reset } = await run('/', [step(call('goto_url', { url: `${srv.origin}/reset` })), step(call('done'))]);
    assert.equal(reset.termination.cls, 'ENV_ERROR');
    assert.equal(reset.termination.reason, 'connection_closed');
    assert.equal(reset.steps.length, 1);
  });

  void it('ends with ENV_ERROR bot_wall when a captcha appears mid-episode', async () => {
    const { r } = await run('/', [(i) => step(call('click', { element_id: byName(i, 'Captcha') })), step(call('done'))]);
    assert.deepEqual([r.termination.cls, r.termination.reason], ['ENV_ERROR', 'bot_wall']);
    assert.deepEqual(kinds(r, 0), [['navigated', 'blocked']]);
  });

  void it('builds history in the requested mode', async () => {
    const script: Script = [(i) => step(call('click', { element_id: byName(i, 'Search page') })), step(call('done'))];
    const full = await run('/', script, { historyMode: 'full' });
    assert.deepEqual(full.p.inputs[1]?.history, [{ step: 0, reasoning: 'r', calls: [call('click', { element_id: 1 })], effects: ['navigated to /form'], url: `${srv.origin}/` }]);
    const hide = await run('/', script, { historyMode: 'hide_thinking' });
    assert.deepEqual([hide.p.inputs[1]?.history[0]?.reasoning, hide.p.inputs[1]?.history[0]?.effects], ['', ['navigated to /form']]);
    const act = await run('/', script, { historyMode: 'action_only' });
    assert.deepEqual(act.p.inputs[1]?.history[0]?.effects, []);
  });
});

void describe('timeouts and aborts', () => {
  void it('ends with ENV_ERROR task_timeout; its time per phase includes the step it was cut off in', async () => {
    const t0 = Date.now();
    const { r } = await run('/', [step(call('wait', { seconds: 1 }))], { maxSteps: 50, timeouts: { taskMs: 1500 } });
    assert.deepEqual([r.termination.cls, r.termination.reason], ['ENV_ERROR', 'task_timeout']);
    assert.ok(Date.now() - t0 < 6000);
    // the policy answered at once: the time went into the page (the wait is an action)
    const t = r.diagnostics.latencyTotal;
    assert.ok(t.actionMs > 10 * t.policyMs, `actionMs ${t.actionMs}, policyMs ${t.policyMs}`);
    assert.ok(t.policyMs < 0.2 * r.diagnostics.wallMs, `policy ${t.policyMs} of ${r.diagnostics.wallMs} ms`);
  });

  void it('a task timeout while the policy is still deciding counts that decision as policy time', async () => {
    const slow = {
      needsScreenshot: false,
      decide: (_i: PolicyInput, signal: AbortSignal) =>
        new Promise<StepDecision<string>>((_res, rej) => {
          signal.addEventListener('abort', () => rej(new Error('aborted')));
        }),
    };
    const r = await pool.runEpisode({ startUrl: srv.origin + '/', instruction: '', maxSteps: 3, timeouts: { taskMs: 4000, policyStepMs: 60_000, stepMs: 60_000 } }, slow);
    assert.deepEqual([r.termination.cls, r.termination.reason, r.steps.length], ['ENV_ERROR', 'task_timeout', 0]);
    const t = r.diagnostics.latencyTotal;
    // the start page loaded, then the policy held the episode until the task timeout
    assert.ok(t.policyMs >= 0.5 * r.diagnostics.wallMs && t.policyMs <= r.diagnostics.wallMs, `policy ${t.policyMs} of ${r.diagnostics.wallMs} ms`);
  });

  void it('ends with SANDBOX_ERROR policy_timeout and aborts the policy', async () => {
    let aborted = false;
    const policy = {
      needsScreenshot: false,
      decide: (_i: PolicyInput, signal: AbortSignal) =>
        new Promise<StepDecision<string>>((_res, rej) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            rej(new Error('aborted'));
          });
        }),
    };
    const r = await pool.runEpisode({ startUrl: srv.origin + '/', instruction: '', maxSteps: 3, timeouts: { policyStepMs: 300 } }, policy);
    assert.deepEqual([r.termination.cls, r.termination.reason], ['SANDBOX_ERROR', 'policy_timeout']);
    assert.equal(aborted, true);
  });

  void it('ends with SANDBOX_ERROR aborted when the caller aborts', async () => {
    const ac = new AbortController();
    const policy = new ScriptedPolicy([
      () => {
        ac.abort();
        return step(call('wait', { seconds: 5 }));
      },
    ]);
    const r = await pool.runEpisode({ startUrl: srv.origin + '/', instruction: '', maxSteps: 3, signal: ac.signal }, policy);
    assert.deepEqual([r.termination.cls, r.termination.reason], ['SANDBOX_ERROR', 'aborted']);
  });
});
