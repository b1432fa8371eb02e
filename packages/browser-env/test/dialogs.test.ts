// test-run: alone (dialog and file-chooser events must arrive within a step's settle window)
// What a page can throw at the agent that could hang an episode, against real Chromium: confirm
// and prompt dialogs (dismissed), beforeunload (accepted so the navigation proceeds), a popup from
// window.open (followed as new_tab) and a file chooser (dismissed) — each reported as an effect,
// each answered in well under a step's budget.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrowserPool, type EpisodeResult, type PolicyInput, type StepDecision } from '../src/index.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { call, step, ScriptedPolicy, type Script } from './scripted-policy.js';

let srv: FixtureServer;
let pool: BrowserPool;

void before(async () => {
  srv = await startFixtureServer();
  pool = new BrowserPool({ allowHosts: [srv.hostPort], timeouts: { initRetries: 0, toolCallMs: 5000, stepMs: 15_000, closeMs: 5000 } });
  await pool.start();
});

void after(async () => {
  await pool.close();
  await srv.close();
});

const clickOn =
  (name: string) =>
  (i: PolicyInput): StepDecision<string> => {
    const el = i.observation.elements.find((e) => e.name === name);
    assert.ok(el, `no element named ${name}`);
    return step(call('click', { element_id: el.id }));
  };
/** A call must come back well before its 5 s budget: nothing waited for a human. */
const QUICK_MS = 2500;

async function run(path: string, script: Script): Promise<{ r: EpisodeResult<string>; p: ScriptedPolicy }> {
  const p = new ScriptedPolicy(script);
  const r = await pool.runEpisode({ startUrl: srv.origin + path, instruction: 'test', maxSteps: script.length, finalScreenshot: false }, p);
  for (const s of r.steps) for (const c of s.results) assert.ok(c.latencyMs < QUICK_MS, `${c.call.name} took ${c.latencyMs} ms`);
  return { r, p };
}

void describe('dialogs, popups and file choosers', () => {
  void it('dismisses confirm and prompt dialogs and reports them', async () => {
    const { r, p } = await run('/dialogs', [clickOn('Confirm'), clickOn('Prompt'), step(call('done'))]);
    assert.equal(r.termination.cls, 'COMPLETED');
    const d0 = r.steps[0]?.results[0]?.effects.find((e) => e.kind === 'dialog');
    assert.deepEqual([d0?.evidence['type'], d0?.line], ['confirm', 'dialog confirm "Delete it?" dismissed']);
    assert.equal(p.inputs[1]?.observation.title, 'confirm=false', 'the page got the dismissal');
    const d1 = r.steps[1]?.results[0]?.effects.find((e) => e.kind === 'dialog');
    assert.deepEqual([d1?.evidence['type'], d1?.evidence['message']], ['prompt', 'Your name?']);
    assert.equal(p.inputs[2]?.observation.title, 'prompt=null');
  });

  void it('accepts beforeunload so that leaving the page works, and reports it', async () => {
    // a click first: Chromium asks beforeunload only of pages the user interacted with
    const { r, p } = await run('/dialogs', [clickOn('Confirm'), clickOn('Leave'), step(call('done'))]);
    assert.equal(r.termination.cls, 'COMPLETED');
    const fx = r.steps[1]?.results[0]?.effects ?? [];
    assert.deepEqual(
      fx.map((e) => [e.kind, e.evidence['type'] ?? '']),
      [
        ['navigated', ''],
        ['dialog', 'beforeunload'],
      ],
    );
    assert.equal(new URL(p.inputs[2]?.observation.url ?? '').pathname, '/tiny');
  });

  void it('follows a window.open popup as new_tab', async () => {
    const { r, p } = await run('/dialogs', [clickOn('Popup'), step(call('done'))]);
    const fx = r.steps[0]?.results[0]?.effects ?? [];
    assert.deepEqual(
      fx.map((e) => e.kind),
      ['new_tab'],
    );
    assert.match(fx[0]?.line ?? '', /^new_tab http:\/\/127\.0\.0\.1:\d+\/item\/red-mug opened \(tab 1, now active\)$/);
    assert.deepEqual(
      p.inputs[1]?.observation.tabs.map((t) => [new URL(t.url).pathname, t.active]),
      [
        ['/dialogs', false],
        ['/item/red-mug', true],
      ],
    );
    assert.equal(p.inputs[1]?.observation.title, 'Item red-mug');
  });

  void it('dismisses a file chooser instead of hanging, reports it, and can do it again', async () => {
    const { r, p } = await run('/upload', [clickOn('Attachment'), clickOn('Attachment'), step(call('done'))]);
    assert.equal(r.termination.cls, 'COMPLETED');
    for (const s of [0, 1]) {
      const res = r.steps[s]?.results[0];
      assert.equal(res?.ok, true);
      const d = res?.effects.find((e) => e.kind === 'dialog');
      assert.deepEqual([d?.evidence['type'], d?.evidence['multiple']], ['file_chooser', 'false'], JSON.stringify(res?.effects));
      assert.equal(d?.line, 'dialog file_chooser dismissed (file uploads are not available)');
    }
    const field = p.inputs[2]?.observation.elements.find((e) => e.name === 'Attachment');
    assert.equal(field?.value, '', 'no file was chosen');
  });
});
