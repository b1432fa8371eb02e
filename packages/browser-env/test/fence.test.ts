// The browser fence in real Chromium (DESIGN §5 Safety): every way a page can get to a loopback
// port outside the allowlist — redirect hops (302, 307, a chain, meta refresh, a script's
// location), fetches and WebSockets from the page, from dedicated, shared and service workers,
// the odd literal forms of 127.0.0.1, a name that answers a public address first and 127.0.0.1
// next, WebRTC's STUN (UDP) and TURN (TCP) — leaves zero TCP connections on that port's listener and a `blocked` effect naming the
// URL, in an episode that goes on. In the same runs the allowed paths work: the allowlisted site,
// and a public-looking name. Names are answered by a stub resolver (the pool's dnsLookup); the
// fence's dialer connects to the real servers on loopback, except that it stands the public site
// in for the public-looking address (nothing here leaves the machine: any other address throws).
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Counter, Meter } from '@owrl/core';
import { BrowserPool, type EffectRecord, type EpisodeResult, type PolicyInput, type StepDecision } from '../src/index.js';
import { startFenceSite, startInternal, startPublicSite, type TestServer } from './fence-sites.js';
import { byName, call, step, ScriptedPolicy, type Script } from './scripted-policy.js';

/** The public-looking address the stub resolver answers (a real public address; the dialer never dials it). */
const PUBLIC = '93.184.216.34';

let site: TestServer;
let internal: TestServer;
let publicSite: TestServer;
let pool: BrowserPool;
/** Every look-up the fence made, by name. */
const lookups = new Map<string, number>();
/** Every address:port the fence dialed. */
const dials: string[] = [];
/** What the pool counted on owrl_fence_refusals_total, by `reason range`. */
const refusals = new Map<string, number>();
/** Every episode's result, for the count the metrics must agree with. */
const results: Array<EpisodeResult<string>> = [];

const recordingMeter: Meter = {
  counter: <L extends string>() =>
    ({
      inc: (labels: Record<string, string>, n = 1) => {
        const k = `${labels['reason']} ${labels['range']}`;
        refusals.set(k, (refusals.get(k) ?? 0) + n);
      },
    }) as unknown as Counter<L>,
  gauge: () => {
    throw new Error('no gauges here');
  },
  histogram: () => {
    throw new Error('no histograms here');
  },
};

void before(async () => {
  site = await startFenceSite();
  internal = await startInternal();
  publicSite = await startPublicSite();
  pool = new BrowserPool({
    allowHosts: [site.hostPort],
    serviceWorkers: 'allow',
    timeouts: { initRetries: 0, toolCallMs: 5000, stepMs: 15_000, closeMs: 5000 },
    meter: recordingMeter,
    dnsLookup: async (name) => {
      const n = (lookups.get(name) ?? 0) + 1;
      lookups.set(name, n);
      if (name === 'public.test') return [{ address: PUBLIC }];
      if (name === 'rebind.test') return [{ address: n === 1 ? PUBLIC : '127.0.0.1' }];
      if (name === 'loop.test') return [{ address: '127.0.0.1' }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    },
    dial: ({ address, port }) => {
      dials.push(`${address}:${port}`);
      if (address === PUBLIC) return net.connect({ host: '127.0.0.1', port: publicSite.port });
      if (address === '127.0.0.1') return net.connect({ host: address, port });
      throw new Error(`the test dialer does not leave the machine (asked for ${address}:${port})`);
    },
  });
  await pool.start();
});

void after(async () => {
  await pool?.close();
  await site?.close();
  await internal?.close();
  await publicSite?.close();
});

void beforeEach(() => {
  internal.connections = 0;
  internal.requests.length = 0;
});

const secret = (): string => `http://127.0.0.1:${internal.port}/secret`;

/**
 * Clicks `name`, then waits (0.2 s at a time) until the page's title is "ready" or `waits` run
 * out, then makes one more call before done: a refusal told between two calls shows in the next
 * call's effects, and `done` is not a call on the page.
 */
function clickAndWait(name: string, waits = 10): Script {
  return [
    (i) => step(call('click', { element_id: byName(i, name) })),
    (i) => {
      if (i.observation.title !== 'ready' && i.step <= waits) return step(call('wait', { seconds: 0.2 }));
      const last = i.history[i.history.length - 1]?.calls[0];
      if (last?.name === 'wait' && last.args['seconds'] === 0) return step(call('done'));
      return step(call('wait', { seconds: 0 }));
    },
  ];
}

/** Waits (0.2 s at a time, at most 20 times) until the agent has been shown a blocked effect, then done. */
const untilBlockedShown = (i: PolicyInput): StepDecision<string> =>
  i.history.some((h) => h.effects.some((l) => l.startsWith('blocked'))) || i.observation.lastEffects.some((l) => l.startsWith('blocked')) || i.step > 20 ? step(call('done')) : step(call('wait', { seconds: 0.2 }));

async function run(startUrl: string, script: Script, maxSteps = 14): Promise<EpisodeResult<string>> {
  const r = await pool.runEpisode({ startUrl, instruction: 'test', maxSteps, finalScreenshot: false, pageExpression: "document.getElementById('out')?.textContent ?? ''" }, new ScriptedPolicy(script));
  results.push(r);
  return r;
}

function effects(r: EpisodeResult<string>): EffectRecord[] {
  return r.steps.flatMap((s) => s.results.flatMap((c) => c.effects));
}

/** The page's #out text at the end. */
function out(r: EpisodeResult<string>): string {
  return JSON.parse(r.pageEval.valueJson || '""') as string;
}

function assertNothingReachedInternal(): void {
  assert.equal(internal.connections, 0, `the internal listener accepted ${internal.connections} connections (requests: ${internal.requests.join(', ') || 'none'})`);
  assert.ok(!dials.some((d) => d.endsWith(`:${internal.port}`) && d.startsWith('127.')), `the fence dialed the internal port: ${dials.join(', ')}`);
}

function assertCompleted(r: EpisodeResult<string>): void {
  assert.deepEqual([r.termination.cls, r.termination.reason], ['COMPLETED', 'done'], `${r.termination.message} ${r.diagnostics.errorMessage}`);
}

void describe('redirect hops from the allowlisted site to loopback', () => {
  for (const link of ['Redirect 302', 'Redirect 307', 'Redirect chain', 'Meta refresh', 'Script location']) {
    void it(`${link}: refused at the hop, the agent sees blocked, the episode goes on`, async () => {
      const r = await run(`${site.origin}/leave?to=${encodeURIComponent(secret())}`, [(i) => step(call('click', { element_id: byName(i, link) })), untilBlockedShown]);
      assertNothingReachedInternal();
      assertCompleted(r);
      const b = effects(r).find((e) => e.kind === 'blocked');
      assert.ok(b, JSON.stringify(effects(r)));
      assert.deepEqual([b.evidence['url'], b.evidence['reason'], b.evidence['range']], [secret(), 'private_address', 'loopback']);
      assert.equal(b.line, `blocked: ${secret()} (private address)`);
      assert.deepEqual(r.diagnostics.blocked.map((x) => [x.url, x.reason, x.range]), [[secret(), 'private_address', 'loopback']]);
      if (link.startsWith('Redirect')) {
        // the hop was the click's own navigation: the click failed as blocked
        assert.deepEqual([r.steps[0]?.results[0]?.ok, r.steps[0]?.results[0]?.errorCode], [false, 'blocked']);
      }
    });
  }

  void it('a fetch that the allowed site redirects (307) to loopback fails in the page and shows as a blocked page request', async () => {
    const r = await run(`${site.origin}/leave?to=${encodeURIComponent(secret())}`, [(i) => step(call('click', { element_id: byName(i, 'Fetch through redirect') })), untilBlockedShown]);
    assertNothingReachedInternal();
    assertCompleted(r);
    assert.equal(out(r), 'fetch failed');
    const b = effects(r).find((e) => e.kind === 'blocked');
    assert.deepEqual([b?.evidence['url'], b?.evidence['reason'], b?.evidence['request']], [secret(), 'private_address', 'subresource']);
    assert.ok(site.requests.includes('GET /hop'), 'the first hop, on the allowed site, was served');
  });

  void it('a start URL that redirects to loopback ends the episode as INIT_ERROR blocked_url', async () => {
    const r = await pool.runEpisode({ startUrl: `${site.origin}/hop?code=302&to=${encodeURIComponent(secret())}`, instruction: 'test', maxSteps: 1, finalScreenshot: false }, new ScriptedPolicy([step(call('done'))]));
    results.push(r);
    assertNothingReachedInternal();
    assert.deepEqual([r.termination.cls, r.termination.reason], ['INIT_ERROR', 'blocked_url'], r.termination.message);
    assert.deepEqual(r.diagnostics.blocked.map((x) => x.url), [secret()]);
  });
});

void describe('workers', () => {
  for (const [kind, name] of [['worker', 'dedicated'], ['shared', 'shared'], ['service', 'service']]) {
    void it(`a ${name} worker's fetch (a loopback literal) and WebSocket (a name for 127.0.0.1) are refused`, async () => {
      const ws = `ws://loop.test:${internal.port}/ws`;
      const r = await run(`${site.origin}/probe?kind=${kind}&fetch=${encodeURIComponent(secret())}&ws=${encodeURIComponent(ws)}`, clickAndWait('Run'));
      assertNothingReachedInternal();
      assertCompleted(r);
      const result = JSON.parse(out(r)) as { fetch?: string; ws?: string };
      assert.equal(result.fetch, 'failed', out(r));
      assert.notEqual(result.ws, 'open', out(r));
      const listed = r.diagnostics.blocked.map((x) => `${x.url} ${x.reason} ${x.range}`).sort();
      assert.deepEqual(listed, [`${secret()} private_address loopback`, `loop.test:${internal.port} private_address loopback`].sort());
      const shown = effects(r).filter((e) => e.kind === 'blocked');
      assert.ok(shown.length > 0, `a blocked effect: ${JSON.stringify(effects(r))}`);
      const count = shown.reduce((n, e) => n + Number(e.evidence['count'] ?? '1'), 0);
      assert.equal(count, 2, `both refusals are shown: ${JSON.stringify(shown)}`);
    });
  }
});

void describe('literal forms of loopback', () => {
  void it('decimal, short, hex, octal, unspecified, v4-mapped and IPv6 loopback are each refused', async () => {
    const p = internal.port;
    const forms: Record<string, string> = {
      a: `http://2130706433:${p}/a`,
      b: `http://127.1:${p}/b`,
      c: `http://0x7f.1:${p}/c`,
      d: `http://0177.0.0.1:${p}/d`,
      e: `http://0.0.0.0:${p}/e`,
      f: `http://[::ffff:127.0.0.1]:${p}/f`,
      g: `http://[::1]:${p}/g`,
      h: `https://127.1:${p}/h`,
    };
    const r = await run(`${site.origin}/fetch-all?urls=${encodeURIComponent(JSON.stringify(Object.values(forms)))}`, clickAndWait('Run'));
    assertNothingReachedInternal();
    assertCompleted(r);
    const outcome = JSON.parse(out(r)) as Record<string, string>;
    for (const u of Object.values(forms)) assert.equal(outcome[u], 'failed', `${u}: ${outcome[u]}`);
    // Chromium sends the canonical form (http://127.0.0.1:p/a ...); the https one is a tunnel, named by host:port
    const byPath = new Map(r.diagnostics.blocked.map((x) => [x.url.startsWith('http') ? new URL(x.url).pathname : x.url, `${x.reason} ${x.range}`]));
    assert.deepEqual(Object.fromEntries(byPath), {
      '/a': 'private_address loopback',
      '/b': 'private_address loopback',
      '/c': 'private_address loopback',
      '/d': 'private_address loopback',
      '/e': 'private_address unspecified',
      '/f': 'private_address loopback',
      '/g': 'private_address loopback',
      [`127.0.0.1:${p}`]: 'private_address loopback',
    });
    assert.ok(effects(r).some((e) => e.kind === 'blocked' && e.evidence['count'] === '8'), JSON.stringify(effects(r)));
  });
});

/** Gathers ICE candidates in `p` against a STUN server (UDP) and a TURN server (TCP) on loopback. */
async function webrtcProbe(p: BrowserPool): Promise<{ r: EpisodeResult<string>; datagrams: number }> {
  const udp = dgram.createSocket('udp4');
  let datagrams = 0;
  udp.on('message', () => datagrams++);
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
  try {
    const ice = [{ urls: `stun:127.0.0.1:${udp.address().port}` }, { urls: `turn:127.0.0.1:${internal.port}?transport=tcp`, username: 'u', credential: 'p' }];
    const r = await p.runEpisode(
      { startUrl: `${site.origin}/webrtc?ice=${encodeURIComponent(JSON.stringify(ice))}`, instruction: 'test', maxSteps: 40, finalScreenshot: false, pageExpression: "document.getElementById('out')?.textContent ?? ''" },
      new ScriptedPolicy(clickAndWait('Run', 30)),
    );
    if (p === pool) results.push(r);
    return { r, datagrams };
  } finally {
    udp.close();
  }
}

const SHELL = '/usr/bin/chromium-headless-shell';

void describe('WebRTC', () => {
  for (const [browser, exe] of [['Chromium', ''], ['the headless shell', SHELL]] as const) {
    const skip = exe && !fs.existsSync(exe) ? `${exe} is not installed` : false;
    void it(`${browser} gathers no UDP candidate and sends nothing to a STUN or TURN server on loopback`, { skip }, async () => {
      const p = exe ? new BrowserPool({ executablePath: exe, allowHosts: [site.hostPort], timeouts: { initRetries: 0 } }) : pool;
      try {
        const { r, datagrams } = await webrtcProbe(p);
        assertNothingReachedInternal();
        assertCompleted(r);
        assert.equal(datagrams, 0, 'no STUN request left the browser over UDP');
        const cands = JSON.parse(out(r)) as string[];
        assert.ok(!cands.some((c) => / udp /i.test(c)), `UDP candidates were gathered: ${cands.join(' | ')}`);
        // TURN over TCP goes through the proxy like any connection, and is refused there
        assert.deepEqual(r.diagnostics.blocked.map((b) => [b.url, b.reason, b.range]), [[`127.0.0.1:${internal.port}`, 'private_address', 'loopback']]);
      } finally {
        if (p !== pool) await p.close();
      }
    });
  }
});

void describe('names', () => {
  void it('a name that answers a public address first and 127.0.0.1 next is resolved once per connection and never reaches loopback', async () => {
    const url = `http://rebind.test:${internal.port}/`;
    const r = await run(url, clickAndWait('Fetch data'));
    assertNothingReachedInternal();
    assertCompleted(r);
    assert.equal(r.steps[0]?.urlBefore, url, 'the page came from the public address (the first answer)');
    assert.ok(publicSite.requests.includes(`GET / rebind.test:${internal.port}`), publicSite.requests.join(', '));
    assert.equal(out(r), 'fetch failed', 'the same-origin fetch after the answer changed was refused');
    assert.ok(
      r.diagnostics.blocked.some((x) => x.url === `http://rebind.test:${internal.port}/data` && x.range === 'loopback' && /resolves to 127\.0\.0\.1/.test(x.detail)),
      JSON.stringify(r.diagnostics.blocked),
    );
    // the click's effects show the refusals of its call (Chromium may ask for the favicon first)
    const b = r.steps[0]?.results[0]?.effects.find((e) => e.kind === 'blocked');
    assert.ok(b && [`http://rebind.test:${internal.port}/data`, `http://rebind.test:${internal.port}/favicon.ico`].includes(b.evidence['url'] ?? ''), JSON.stringify(effects(r)));
    assert.ok((lookups.get('rebind.test') ?? 0) >= 2, 'each connection asked the resolver once');
  });

  void it('a public-looking name is reached at the address it resolved to, and its fetches work', async () => {
    const before = publicSite.requests.length;
    const r = await run('http://public.test:8080/', clickAndWait('Fetch data'));
    assertCompleted(r);
    assert.equal(out(r), 'got public data');
    assert.deepEqual(r.diagnostics.blocked, []);
    assert.ok(publicSite.requests.slice(before).includes('GET /data public.test:8080'), publicSite.requests.slice(before).join(', '));
    assert.ok(dials.includes(`${PUBLIC}:8080`), 'the fence connected to the address it checked');
  });

  void it('a name that does not resolve is the site failing (error dns), not the fence refusing', async () => {
    const r = await run(`${site.origin}/`, [step(call('goto_url', { url: 'http://nowhere.test/' })), step(call('done'))]);
    assertCompleted(r);
    const res = r.steps[0]?.results[0];
    assert.deepEqual([res?.ok, res?.errorCode], [false, 'dns'], JSON.stringify(res?.effects));
    assert.deepEqual(r.diagnostics.blocked, []);
  });
});

void describe('metrics', () => {
  void it('every refusal of the episodes above is counted by reason and address class', () => {
    const listed = new Map<string, number>();
    for (const r of results) for (const b of r.diagnostics.blocked) listed.set(`${b.reason} ${b.range}`, (listed.get(`${b.reason} ${b.range}`) ?? 0) + 1);
    assert.deepEqual(Object.fromEntries(refusals), Object.fromEntries(listed));
    assert.equal(refusals.get('private_address unspecified'), 1, 'the one 0.0.0.0 of the literal forms');
  });
});
