// Isolation and safety against real Chromium: nothing an episode stores (cookies, local and
// session storage, IndexedDB, Cache Storage, service workers) reaches the next one, and a page
// cannot reach a loopback port outside the allowlist or the metadata endpoint, while the episode
// goes on and the agent is told.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrowserPool, type EpisodeResult } from '../src/index.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { byName, call, step, ScriptedPolicy, type Script } from './scripted-policy.js';

let srv: FixtureServer;
/** A second local server the pages must not reach: it is not in the allowlist. */
let internal: FixtureServer;
let pool: BrowserPool;

void before(async () => {
  srv = await startFixtureServer();
  internal = await startFixtureServer();
  pool = new BrowserPool({ allowHosts: [srv.hostPort], timeouts: { initRetries: 0, toolCallMs: 5000, stepMs: 15_000, closeMs: 5000 } });
  await pool.start();
});

void after(async () => {
  await pool.close();
  await srv.close();
  await internal.close();
});

const OUT = "document.getElementById('out').textContent";

/**
 * Waits (with `wait` steps) until the page says it is ready; then goes on to `next` when given and
 * still on the first page, else calls done. The page's #out text comes back as pageEval.
 */
const untilReady = (next?: string): Script => [
  (i) => {
    if (i.observation.title !== 'ready') return step(call('wait', { seconds: 0.2 }));
    if (next && !i.observation.url.endsWith(next)) return step(call('goto_url', { url: srv.origin + next }));
    return step(call('done'));
  },
];

async function run(path: string, script: Script, maxSteps = 12): Promise<{ r: EpisodeResult<string>; out: string }> {
  const r = await pool.runEpisode({ startUrl: srv.origin + path, instruction: 'test', maxSteps, finalScreenshot: false, pageExpression: OUT }, new ScriptedPolicy(script));
  assert.equal(r.termination.cls, 'COMPLETED', r.termination.message);
  return { r, out: JSON.parse(r.pageEval.valueJson || '""') as string };
}

interface IsoState {
  cookie: string;
  local: string | null;
  session: string | null;
  idb: string[];
  caches: string[];
  sw: number;
  controlled: boolean;
}

const NOTHING: IsoState = { cookie: '', local: null, session: null, idb: [], caches: [], sw: 0, controlled: false };

void describe('isolation between episodes', () => {
  void it('cookies, localStorage, sessionStorage, IndexedDB, Cache Storage and service workers do not cross episodes', async () => {
    const w = await run('/iso-write', untilReady());
    // everything was written; the service worker registration was swallowed by the pool's block
    assert.equal(w.out, 'written sw=undefined registrations=0');
    // within one episode the reader page sees what the writer page left
    const same = await run('/iso-write', untilReady('/iso-read'));
    const inside = JSON.parse(same.out) as IsoState;
    assert.deepEqual([inside.cookie, inside.local, inside.session, inside.idb, inside.caches], ['iso=1', 'local', 'session', ['iso'], ['iso']]);
    // the next episode sees none of it
    const r = await run('/iso-read', untilReady());
    assert.deepEqual(JSON.parse(r.out), NOTHING);
  });

  void it('concurrent episodes do not see each other', async () => {
    // The reader starts once the writer's page has written everything, and the writer's episode
    // stays open (waiting) until the reader is done: both contexts are alive at the same time.
    let written = (): void => {};
    const hasWritten = new Promise<void>((res) => (written = res));
    let readerDone = false;
    const writer: Script = [
      (i) => {
        if (i.observation.title !== 'ready') return step(call('wait', { seconds: 0.2 }));
        written();
        return readerDone ? step(call('done')) : step(call('wait', { seconds: 0.2 }));
      },
    ];
    const reading = hasWritten.then(() => run('/iso-read', untilReady())).finally(() => (readerDone = true));
    // (up to 150 waits of 0.2 s for the reader, far more than it needs even on a loaded machine)
    const [w, r] = await Promise.all([run('/iso-write', writer, 150), reading]);
    assert.equal(w.out, 'written sw=undefined registrations=0');
    assert.deepEqual(JSON.parse(r.out), NOTHING);
  });
});

void describe('safety', () => {
  void it('a fetch to a loopback port outside the allowlist is blocked and reported; the episode goes on', async () => {
    const port = internal.hostPort.split(':')[1] ?? '';
    const r = await pool.runEpisode(
      { startUrl: `${srv.origin}/ssrf?port=${port}`, instruction: 'test', maxSteps: 3, finalScreenshot: false },
      new ScriptedPolicy([(i) => step(call('click', { element_id: byName(i, 'Fetch internal') })), (i) => step(call('done', { response: i.observation.texts[0]?.text ?? '' }))]),
    );
    assert.deepEqual([r.termination.cls, r.termination.reason], ['COMPLETED', 'done']);
    const res = r.steps[0]?.results[0];
    assert.equal(res?.ok, true, 'a blocked request of the page does not fail the click');
    const blocked = res?.effects.find((e) => e.kind === 'blocked');
    assert.ok(blocked, JSON.stringify(res?.effects));
    assert.deepEqual([blocked.evidence['reason'], blocked.evidence['url'], blocked.evidence['request']], ['private_address', `http://127.0.0.1:${port}/secret`, 'subresource']);
    assert.match(blocked.line, /^blocked: page request to http:\/\/127\.0\.0\.1:\d+\/secret \(private address\)$/);
    assert.match(r.finalAnswer, /^fetch failed/, 'the page saw its fetch fail');
    assert.equal(internal.hits.get('/secret'), undefined, 'nothing reached the internal server');
  });

  void it('a page navigating to the metadata endpoint is blocked and reported; the episode goes on', async () => {
    const r = await pool.runEpisode(
      { startUrl: `${srv.origin}/ssrf?port=9`, instruction: 'test', maxSteps: 3, finalScreenshot: false },
      new ScriptedPolicy([(i) => step(call('click', { element_id: byName(i, 'Metadata') })), step(call('go_back')), (i) => step(call('done', { response: i.observation.url }))]),
    );
    assert.deepEqual([r.termination.cls, r.termination.reason], ['COMPLETED', 'done']);
    const res = r.steps[0]?.results[0];
    assert.deepEqual([res?.ok, res?.errorCode], [false, 'blocked']);
    const b = res?.effects[0];
    assert.deepEqual([b?.kind, b?.evidence['reason'], b?.evidence['url']], ['blocked', 'private_address', 'http://169.254.169.254/latest/meta-data/']);
    assert.equal(b?.line, 'blocked: http://169.254.169.254/latest/meta-data/ (private address)');
    assert.equal(r.finalAnswer, `${srv.origin}/ssrf?port=9`, 'the agent went back to the page');
  });
});
