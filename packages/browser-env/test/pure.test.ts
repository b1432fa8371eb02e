// Pure logic of browser-env without a browser: URL safety, error/status classification, wall
// detection, effect classification, tool arguments, history modes, /proc parsing, options.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BrowserEnvError,
  checkUrl,
  classifyHttpStatus,
  classifyNetError,
  computeEffects,
  detectWall,
  emptyEvents,
  historyEntry,
  isPrivateAddress,
  multisetDiff,
  normalizeKey,
  parseCall,
  resolveOptions,
  ToolCallError,
  type EpisodeStep,
  type RawSnapshot,
} from '../src/index.js';

void describe('net policy', () => {
  void it('classifies private and public addresses', () => {
    for (const ip of ['127.0.0.1', '10.2.3.4', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '[::1]']) {
      assert.equal(isPrivateAddress(ip), true, ip);
    }
    for (const ip of ['8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700::1111', '1.1.1.1']) assert.equal(isPrivateAddress(ip), false, ip);
  });

  void it('checks URLs against scheme, private hosts and the allowlist', () => {
    assert.deepEqual(checkUrl('https://example.com/x', []), { ok: true, host: 'example.com' });
    const cases: Array<[string, string]> = [
      ['ftp://example.com/', 'scheme'],
      ['file:///etc/passwd', 'scheme'],
      ['javascript:alert(1)', 'scheme'],
      ['not a url', 'bad_url'],
      ['http://localhost:8080/', 'private_address'],
      ['http://app.localhost/', 'private_address'],
      ['http://127.0.0.1:4222/', 'private_address'],
      ['http://2130706433/', 'private_address'], // 127.0.0.1 in decimal
      ['http://[::1]:9000/', 'private_address'],
      ['http://169.254.169.254/latest/meta-data', 'private_address'],
      ['http://metadata.google.internal/', 'private_address'],
    ];
    for (const [url, reason] of cases) {
      const v = checkUrl(url, []);
      assert.equal(v.ok, false, url);
      if (!v.ok) assert.equal(v.reason, reason, url);
    }
    assert.equal(checkUrl('http://127.0.0.1:8400/shop', ['127.0.0.1:8400']).ok, true);
    assert.equal(checkUrl('http://127.0.0.1:8401/shop', ['127.0.0.1:8400']).ok, false);
    assert.equal(checkUrl('http://localhost/', ['localhost:80']).ok, true);
    assert.equal(checkUrl('http://localhost:3000/', ['localhost']).ok, true);
  });
});

void describe('classification', () => {
  void it('maps Chromium errors to reason codes and transience', () => {
    assert.deepEqual(classifyNetError('page.goto: net::ERR_CONNECTION_REFUSED at http://x/'), { code: 'connection_refused', transient: true });
    assert.deepEqual(classifyNetError('net::ERR_NAME_NOT_RESOLVED'), { code: 'dns', transient: true });
    assert.deepEqual(classifyNetError('net::ERR_CONNECTION_RESET'), { code: 'connection_reset', transient: true });
    assert.deepEqual(classifyNetError('net::ERR_HTTP2_PROTOCOL_ERROR'), { code: 'http2_protocol_error', transient: true });
    assert.deepEqual(classifyNetError('page.goto: Timeout 20000ms exceeded.'), { code: 'timeout', transient: true });
    assert.deepEqual(classifyNetError('net::ERR_CERT_AUTHORITY_INVALID'), { code: 'tls', transient: false });
    assert.deepEqual(classifyNetError('net::ERR_BLOCKED_BY_CLIENT'), { code: 'blocked', transient: false });
    assert.equal(classifyNetError('net::ERR_SOMETHING_NEW').code, 'navigation_failed', 'a code outside the reason enum gets the generic reason');
    assert.equal(classifyNetError('weird').code, 'navigation_failed');
  });

  void it('maps statuses', () => {
    assert.equal(classifyHttpStatus(200), '');
    assert.equal(classifyHttpStatus(302), '');
    assert.equal(classifyHttpStatus(404), 'http_4xx');
    assert.equal(classifyHttpStatus(403), 'http_403');
    assert.equal(classifyHttpStatus(429), 'rate_limited');
    assert.equal(classifyHttpStatus(503), 'http_5xx');
  });

  void it('detects walls without flagging a link that says captcha', () => {
    assert.deepEqual(detectWall({ title: 'Shop', selector: '.g-recaptcha', smallText: '' }), { kind: 'captcha', marker: '.g-recaptcha' });
    assert.equal(detectWall({ title: 'Just a moment...', selector: '', smallText: '' })?.kind, 'interstitial');
    assert.equal(detectWall({ title: 'x', selector: '', smallText: 'Please verify you are human to continue' })?.kind, 'captcha');
    assert.equal(detectWall({ title: 'Shop', selector: '', smallText: 'Mug shop Search page Captcha Private' }), null);
    // challenge-page markers are interstitials, widget markers captchas
    assert.deepEqual(detectWall({ title: 'x', selector: '#challenge-form', smallText: '' }), { kind: 'interstitial', marker: '#challenge-form' });
    assert.equal(detectWall({ title: 'x', selector: '.cf-turnstile', smallText: '' })?.kind, 'captcha');
  });
});

function snap(over: Partial<RawSnapshot> = {}): RawSnapshot {
  return {
    url: 'http://s/a',
    title: 't',
    focus: null,
    scrollX: 0,
    scrollY: 0,
    scrollMaxX: 0,
    scrollMaxY: 1000,
    probe: null,
    sigs: [1, 2, 3],
    wall: { title: 't', selector: '', smallText: '' },
    ...over,
  };
}

void describe('effects', () => {
  const ev = emptyEvents(1);
  void it('navigated with a short line', () => {
    const fx = computeEffects({ tool: 'click' }, snap(), snap({ url: 'http://s/shop/p/blue-mug' }), ev);
    assert.deepEqual(
      fx.map((e) => [e.kind, e.line]),
      [['navigated', 'navigated to /shop/p/blue-mug']],
    );
    assert.equal(fx[0]?.evidence['url_before'], 'http://s/a');
  });

  void it('no_effect, dom_changed and focus', () => {
    assert.deepEqual(computeEffects({ tool: 'click' }, snap(), snap(), ev).map((e) => e.line), ['no_effect']);
    const d = computeEffects({ tool: 'click' }, snap(), snap({ sigs: [1, 2, 3, 4, 4] }), ev);
    assert.equal(d[0]?.kind, 'dom_changed');
    assert.equal(d[0]?.evidence['added'], '2');
    assert.equal(multisetDiff([1, 1, 2], [1, 3]).removed, 2);
    const focus = { token: 7, tag: 'input', role: 'textbox', name: 'Search', value: '', editable: true };
    const f = computeEffects({ tool: 'click' }, snap(), snap({ focus }), ev);
    assert.deepEqual(f.map((e) => e.kind), ['dom_changed']);
    assert.match(f[0]?.line ?? '', /focused textbox "Search"/);
  });

  void it('value_set and value_mismatch for write', () => {
    const f = { token: 7, tag: 'input', role: 'spinbutton', name: 'Quantity', value: '2', editable: true };
    assert.deepEqual(
      computeEffects({ tool: 'write', expected: '2' }, snap({ focus: { ...f, value: '' } }), snap({ focus: f }), ev).map((e) => e.line),
      ['value_set "2" in Quantity'],
    );
    const m = computeEffects({ tool: 'write', expected: 'abc' }, snap(), snap({ focus: { ...f, name: 'Code', value: 'ABC' } }), ev);
    assert.equal(m[0]?.kind, 'value_mismatch');
    assert.deepEqual([m[0]?.evidence['expected'], m[0]?.evidence['actual']], ['abc', 'ABC']);
  });

  void it('scrolled and scroll_blocked', () => {
    const s = computeEffects({ tool: 'scroll', direction: 'down' }, snap(), snap({ scrollY: 400 }), ev);
    assert.deepEqual(s.map((e) => e.line), ['scrolled down 400px (page y 400 of 1000)']);
    const b = computeEffects({ tool: 'scroll', direction: 'down' }, snap({ scrollY: 1000 }), snap({ scrollY: 1000 }), ev);
    assert.deepEqual(b.map((e) => e.line), ['scroll_blocked: already at the bottom']);
  });

  void it('tabs, dialogs, downloads, blocks, HTTP errors and walls', () => {
    const e = { ...emptyEvents(1), tabsAfter: 2, newTabs: ['http://s/x'], activeChanged: true, dialogs: [{ type: 'alert', message: 'hi' }], downloads: [{ filename: 'f.txt', url: 'http://s/f.txt' }] };
    assert.deepEqual(computeEffects({ tool: 'click' }, snap(), snap({ url: 'http://s/x' }), e).map((x) => x.kind), ['new_tab', 'dialog', 'download']);
    const closed = { ...emptyEvents(2), tabsAfter: 1, activeChanged: true };
    assert.deepEqual(computeEffects({ tool: 'close_tab' }, snap(), snap(), closed).map((x) => x.kind), ['tab_closed']);
    const blocked = { ...emptyEvents(1), blocked: [{ url: 'http://10.0.0.1/', reason: 'private_address' }] };
    assert.deepEqual(computeEffects({ tool: 'click' }, snap(), snap(), blocked).map((x) => x.kind), ['blocked']);
    const s500 = { ...emptyEvents(1), navStatus: 503 };
    const r = computeEffects({ tool: 'goto_url' }, snap(), snap({ url: 'http://s/500' }), s500);
    assert.deepEqual(r.map((x) => [x.kind, x.evidence['code'] ?? '']), [['navigated', ''], ['error', 'http_5xx']]);
    const s429 = { ...emptyEvents(1), navStatus: 429 };
    assert.equal(computeEffects({ tool: 'goto_url' }, snap(), snap({ url: 'http://s/b' }), s429)[1]?.evidence['reason'], 'http_status');
    const wall = computeEffects({ tool: 'click' }, snap(), snap({ url: 'http://s/c', wall: { title: 'x', selector: '#px-captcha', smallText: '' } }), ev);
    assert.deepEqual(wall.map((x) => [x.kind, x.evidence['reason'] ?? '']), [['navigated', ''], ['blocked', 'captcha']]);
  });

  void it('a challenge served with 503 is one wall effect, not a server error', () => {
    const challenge = snap({ url: 'http://s/c', wall: { title: 'Just a moment...', selector: '', smallText: '' } });
    const fx = computeEffects({ tool: 'goto_url' }, snap(), challenge, { ...emptyEvents(1), navStatus: 503 });
    assert.deepEqual(
      fx.map((x) => [x.kind, x.line]),
      [
        ['navigated', 'navigated to /c'],
        ['blocked', 'blocked: interstitial on http://s/c (HTTP 503)'],
      ],
    );
    assert.deepEqual([fx[1]?.evidence['status'], fx[1]?.evidence['marker']], ['503', 'just a moment...']);
  });

  void it('blocked page requests and file choosers', () => {
    const e = {
      ...emptyEvents(1),
      blockedRequests: [
        { url: 'http://127.0.0.1:4222/x', reason: 'private_address' },
        { url: 'http://10.0.0.1/y', reason: 'private_address' },
      ],
      fileChoosers: [{ multiple: true }],
    };
    const fx = computeEffects({ tool: 'click' }, snap(), snap(), e);
    assert.deepEqual(
      fx.map((x) => [x.kind, x.line]),
      [
        ['blocked', 'blocked: page request to http://127.0.0.1:4222/x (private address) and 1 more'],
        ['dialog', 'dialog file_chooser dismissed (file uploads are not available)'],
      ],
    );
    assert.deepEqual([fx[0]?.evidence['request'], fx[0]?.evidence['count'], fx[1]?.evidence['multiple']], ['subresource', '2', 'true']);
  });
});

void describe('tool arguments', () => {
  void it('parses targets, defaults and keys', () => {
    assert.deepEqual(parseCall({ name: 'click', args: { point_2d: [10, 20] } }), { tool: 'click', target: { kind: 'point', x: 10, y: 20 }, clicks: 1, button: 'left' });
    assert.deepEqual(parseCall({ name: 'click', args: { element_id: '4', point_2d: [1, 1] } }), { tool: 'click', target: { kind: 'element', id: 4 }, clicks: 1, button: 'left' });
    assert.deepEqual(parseCall({ name: 'hover', args: { point_2d: '(5, 6)' } }), { tool: 'hover', target: { kind: 'point', x: 5, y: 6 } });
    assert.deepEqual(parseCall({ name: 'scroll', args: {} }), { tool: 'scroll', direction: 'down', amount: 0.5, target: null });
    assert.deepEqual(parseCall({ name: 'press_keys', args: { keys: ['ctrl+a'] } }), { tool: 'press_keys', keys: ['Control', 'a'], hotkey: true, presses: 1 });
    assert.deepEqual(parseCall({ name: 'press_keys', args: { keys: 'enter', presses: 2 } }), { tool: 'press_keys', keys: ['Enter'], hotkey: false, presses: 2 });
    assert.deepEqual(parseCall({ name: 'goto_url', args: { url: 'example.com/a' } }), { tool: 'goto_url', url: 'https://example.com/a' });
    assert.deepEqual(parseCall({ name: 'drag', args: { start_point_2d: [1, 2], end_element_id: 3 } }), {
      tool: 'drag',
      start: { kind: 'point', x: 1, y: 2 },
      end: { kind: 'element', id: 3 },
      steps: 10,
    });
    assert.equal(normalizeKey('ArrowDown'), 'ArrowDown');
    assert.equal(normalizeKey('cmd'), 'Meta');
    assert.equal(normalizeKey('f5'), 'F5');
  });

  void it('rejects bad arguments with the parameter named', () => {
    const bad = (name: string, args: Record<string, unknown>, re: RegExp, code = 'bad_args'): void =>
      assert.throws(
        () => parseCall({ name: name as 'click', args }),
        (e: unknown) => e instanceof ToolCallError && e.code === code && re.test(e.message),
      );
    bad('click', {}, /point_2d/);
    bad('click', { point_2d: [1] }, /point_2d=\[1\]/);
    bad('click', { point_2d: [1, 2], button: 'side' }, /button="side"/);
    bad('scroll', { direction: 'sideways' }, /direction="sideways"/);
    bad('write', {}, /message/);
    bad('press_keys', { keys: [] }, /keys/);
    bad('press_keys', { keys: ['hyperdrive'] }, /hyperdrive/);
    bad('switch_tab', {}, /tab_index/);
    bad('teleport', {}, /teleport/, 'unknown_tool');
  });
});

void describe('history', () => {
  const step: EpisodeStep<string> = {
    index: 2,
    reasoning: 'I should search',
    results: [{ call: { name: 'click', args: { element_id: 1 } }, ok: true, errorCode: '', effects: [{ kind: 'navigated', line: 'navigated to /form', evidence: {} }], latencyMs: 5 }],
    urlBefore: 'http://s/',
    urlAfter: 'http://s/form',
    trace: undefined,
    raw: '',
    parseError: false,
    timing: { policyMs: 0, actionMs: 0, settleMs: 0, observeMs: 0 },
  };
  void it('keeps what each mode asks for', () => {
    assert.deepEqual(historyEntry(step, 'full'), { step: 2, reasoning: 'I should search', calls: [{ name: 'click', args: { element_id: 1 } }], effects: ['navigated to /form'], url: 'http://s/' });
    assert.equal(historyEntry(step, 'hide_thinking').reasoning, '');
    assert.deepEqual(historyEntry(step, 'hide_thinking').effects, ['navigated to /form']);
    assert.deepEqual(historyEntry(step, 'action_only').effects, []);
  });
});

void describe('options', () => {
  void it('validates options naming the field', () => {
    const o = resolveOptions({});
    assert.equal(o.executablePath, '/usr/bin/chromium');
    assert.equal(o.timeouts.initRetries, 3);
    assert.equal(o.screenshots, 1);
    assert.equal(resolveOptions({ executablePath: '/opt/c' }).executablePath, '/opt/c');
    assert.throws(() => resolveOptions({ maxEpisodesPerBrowser: 0 }), (e: unknown) => e instanceof BrowserEnvError && /maxEpisodesPerBrowser=0/.test(e.message));
    assert.throws(() => resolveOptions({ timeouts: { stepMs: -1 } }), /timeouts.stepMs=-1/);
    assert.throws(() => resolveOptions({ timeouts: { bogus: 1 } as never }), /timeouts.bogus/);
    assert.throws(() => resolveOptions({ allowHosts: ['http://x/'] }), /allowHosts/);
    // the switches the browser fence owns cannot come in through extraArgs
    for (const a of ['--proxy-server=direct://', '--no-proxy-server', '--host-resolver-rules=MAP * 127.0.0.1', '--webrtc-ip-handling-policy=default', '--enable-quic']) {
      assert.throws(
        () => resolveOptions({ extraArgs: ['--mute-audio', a] }),
        (e: unknown) => e instanceof BrowserEnvError && e.code === 'BROWSER_ENV_BAD_OPTION' && e.message.includes(JSON.stringify(a)) && /browser fence/.test(e.message),
        a,
      );
    }
    assert.deepEqual(resolveOptions({ extraArgs: ['--mute-audio'] }).extraArgs, ['--mute-audio']);
    assert.equal(resolveOptions({}).serviceWorkers, 'block');
    assert.throws(() => resolveOptions({ serviceWorkers: 'sometimes' as never }), /serviceWorkers="sometimes" must be 'allow' or 'block'/);
    assert.throws(() => resolveOptions({ dial: 'net.connect' as never }), /dial="string" must be a function/);
  });
});
