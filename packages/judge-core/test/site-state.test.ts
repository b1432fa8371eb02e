// test-run: alone (asserts bounds on a timeout duration)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { make, SiteStateCheckSchema, VerifierSchema, VerdictSource } from '@owrl/proto';
import { checkSiteState, createVerifiers, judgeTrajectory, siteStateUrl } from '@owrl/judge-core';
import { traj } from './helpers.js';

// A tiny verifier API: /ok, /notok, /500, /hang, /garbage, /404-like paths; records what it got.
let server: http.Server;
let base = '';
const seen: Array<{ path: string; session: string | null; spec: string | null }> = [];

before(async () => {
  server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: u.pathname, session: u.searchParams.get('session'), spec: u.searchParams.get('spec') });
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    switch (u.pathname) {
      case '/api/verify/ok':
        return json(200, { ok: true, detail: 'cart has 2 items' });
      case '/api/verify/notok':
        return json(200, { ok: false, detail: 'cart is empty' });
      case '/api/verify/500':
        return json(500, { error: 'boom' });
      case '/api/verify/garbage':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>login</html>');
      case '/api/verify/redirect':
        res.writeHead(302, { location: '/api/verify/ok' });
        return res.end();
      case '/api/verify/hang':
        return; // never answers
      default:
        return json(404, { error: 'no such check' });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const check = (endpoint: string, specJson = '{"items":[{"sku":"A 1","qty":2}]}') => make(SiteStateCheckSchema, { endpoint, specJson });
const opts = { sessionId: 'sess/42 x', timeoutMs: 1000, allowHosts: ['127.0.0.1'] };

void test('siteStateUrl appends session and encoded spec, resolving relative endpoints', () => {
  const u = siteStateUrl(check('http://h:1/v', '{"a":"b c"}'), 's1');
  assert.deepEqual(u, { url: 'http://h:1/v?session=s1&spec=%7B%22a%22%3A%22b%20c%22%7D' });
  assert.deepEqual(siteStateUrl(check('/api/v?x=1#frag', '{}'), 's', 'http://shop.local:8080/start'), {
    url: 'http://shop.local:8080/api/v?x=1&session=s&spec=%7B%7D',
  });
  assert.ok('error' in siteStateUrl(check('/api/v'), 's'));
  assert.ok('error' in siteStateUrl(check('file:///etc/passwd'), 's'));
});

void test('ok → pass with the detail; the server receives session and spec', async () => {
  seen.length = 0;
  const r = await checkSiteState(check(`${base}/api/verify/ok`), opts);
  assert.deepEqual(r, { status: 'pass', detail: 'site state ok: cart has 2 items' });
  assert.deepEqual(seen, [{ path: '/api/verify/ok', session: 'sess/42 x', spec: '{"items":[{"sku":"A 1","qty":2}]}' }]);
});

void test('not ok → fail', async () => {
  assert.deepEqual(await checkSiteState(check(`${base}/api/verify/notok`), opts), { status: 'fail', detail: 'site state not reached: cart is empty' });
});

void test('500 → unavailable (verifier_unavailable), never a failure', async () => {
  const r = await checkSiteState(check(`${base}/api/verify/500`), opts);
  assert.equal(r.status, 'unavailable');
  assert.equal(r.status === 'unavailable' && r.reason, 'judge:verifier_unavailable');
  assert.match(r.detail, /HTTP 500/);
});

void test('a hanging server times out → unavailable within the deadline', async () => {
  const t0 = performance.now();
  const r = await checkSiteState(check(`${base}/api/verify/hang`), { ...opts, timeoutMs: 150 });
  const took = performance.now() - t0;
  assert.equal(r.status, 'unavailable');
  assert.equal(r.status === 'unavailable' && r.reason, 'judge:verifier_unavailable');
  assert.match(r.detail, /timed out after 150 ms/);
  assert.ok(took >= 140 && took < 1500, `took ${took} ms`);
});

void test('connection refused → unavailable with the socket error code', async () => {
  // A port that was just free: listen on 0, note it, close.
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const r = await checkSiteState(check(`http://127.0.0.1:${port}/api/verify/ok`), opts);
  assert.equal(r.status === 'unavailable' && r.reason, 'judge:verifier_unavailable');
  assert.match(r.detail, /ECONNREFUSED/);
});

void test('a non-JSON 200 or a 404 is a bad response, not a verdict', async () => {
  const g = await checkSiteState(check(`${base}/api/verify/garbage`), opts);
  assert.equal(g.status === 'unavailable' && g.reason, 'judge:verifier_bad_response');
  const nf = await checkSiteState(check(`${base}/api/verify/missing`), opts);
  assert.equal(nf.status === 'unavailable' && nf.reason, 'judge:verifier_bad_response');
  assert.match(nf.detail, /HTTP 404/);
});

void test('through the pipeline: ok 1, not ok 0, 500 and hang excluded as judge:verifier_unavailable', async () => {
  const v = (path: string) => make(VerifierSchema, { kind: { case: 'siteState', value: check(path) } });
  const deps = { verifiers: createVerifiers({ verifyHosts: [new URL(base).host] }), judgeVersion: 'v-site', timeoutMs: 200 };
  // Relative endpoint resolved against the task's start URL.
  const ok = await judgeTrajectory(traj({ verifier: v('/api/verify/ok'), startUrl: `${base}/shop/` }), deps);
  assert.equal(ok.kind === 'scored' && ok.verdict.reward, 1);
  assert.equal(ok.kind === 'scored' && ok.verdict.source, VerdictSource.VERIFIER);
  const no = await judgeTrajectory(traj({ verifier: v(`${base}/api/verify/notok`) }), deps);
  assert.equal(no.kind === 'scored' && no.verdict.reward, 0);
  for (const path of ['/api/verify/500', '/api/verify/hang']) {
    const o = await judgeTrajectory(traj({ verifier: v(`${base}${path}`) }), deps);
    assert.deepEqual([o.kind, o.kind === 'excluded' && o.reason], ['excluded', 'judge:verifier_unavailable'], path);
  }
});

void test('site-state checks are fetched only from allowed hosts (OWRL_VERIFY_HOSTS, else the task\'s own host), never through a redirect', async () => {
  const before = seen.length;
  const other = await checkSiteState(check('http://169.254.169.254/latest/meta-data'), { ...opts, allowHosts: [new URL(base).host] });
  assert.equal(other.status === 'unavailable' && other.reason, 'judge:invalid_verifier');
  assert.match(other.detail, /169\.254\.169\.254 is not in OWRL_VERIFY_HOSTS/);
  // No list: the task's own start host only.
  const own = await checkSiteState(check('/api/verify/ok'), { sessionId: 's', timeoutMs: 1000, baseUrl: `${base}/shop/` });
  assert.equal(own.status, 'pass');
  const elsewhere = await checkSiteState(check(`${base}/api/verify/ok`), { sessionId: 's', timeoutMs: 1000, baseUrl: 'http://shop.test/' });
  assert.equal(elsewhere.status === 'unavailable' && elsewhere.reason, 'judge:invalid_verifier');
  assert.match(elsewhere.detail, /not the task's own host/);
  assert.equal(seen.length, before + 1, 'refused checks are never fetched');
  // A redirect (even to an allowed host) is not followed.
  const r = await checkSiteState(check(`${base}/api/verify/redirect`), opts);
  assert.equal(r.status === 'unavailable' && r.reason, 'judge:verifier_bad_response');
});
