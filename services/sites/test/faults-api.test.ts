// The fault control API of the sites server (real server, global fetch / node:http): adding,
// listing, deleting and validating rules; matching by host, site, path, session and per request;
// after_requests, count and seeded probability; startup rules; the API itself is never faulted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SitesError, startSitesServer, type SitesServer } from '../src/index.js';
import { readFaultFile } from '../src/faults/file.js';

let srv: SitesServer;

before(async () => {
  srv = await startSitesServer({ port: 0, seed: 2 });
});
after(async () => {
  await srv.close();
});

interface RuleView {
  id: string;
  match: Record<string, string>;
  fault: Record<string, unknown>;
  matched: number;
  applied: number;
  expired: boolean;
}

async function addRule(rule: unknown): Promise<string> {
  const res = await fetch(`${srv.url}/__owrl/faults`, { method: 'POST', body: JSON.stringify(rule) });
  const body = (await res.json()) as { id?: string; detail?: string };
  assert.equal(res.status, 201, body.detail);
  assert.ok(body.id);
  return body.id;
}

async function rules(): Promise<RuleView[]> {
  const res = await fetch(`${srv.url}/__owrl/faults`);
  assert.equal(res.status, 200);
  return ((await res.json()) as { rules: RuleView[] }).rules;
}

async function clear(): Promise<void> {
  const res = await fetch(`${srv.url}/__owrl/faults`, { method: 'DELETE' });
  assert.equal(res.status, 200);
}

/** Status of GET `path` on the sites server, reached under the Host header `host`. */
function statusVia(host: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: srv.port, path, headers: { host: `${host}:${srv.port}`, ...headers }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

async function status(path: string, init: RequestInit = {}): Promise<number> {
  const res = await fetch(`${srv.url}${path}`, { redirect: 'manual', ...init });
  await res.arrayBuffer();
  return res.status;
}

void test('rules are added, listed with hit counts, read, deleted one by one and cleared', async () => {
  await clear();
  const a = await addRule({ match: { path: '/shop/c/' }, fault: { kind: 'status', code: 502 } });
  const b = await addRule({ match: { site: 'shop' }, fault: { kind: 'latency', ms: 1 }, count: 2 });
  assert.notEqual(a, b);
  assert.equal(await status('/shop/c/kitchen'), 502);
  assert.equal(await status('/shop/'), 200);
  assert.equal(await status('/shop/cart'), 200);
  const list = await rules();
  assert.deepEqual(
    list.map((r) => [r.id, r.fault['kind'], r.matched, r.applied, r.expired]),
    [
      [a, 'status', 1, 1, false],
      [b, 'latency', 2, 2, true],
    ],
  );
  assert.deepEqual(list[0]?.match, { path: '/shop/c/' });
  assert.deepEqual(list[0]?.fault, { kind: 'status', code: 502 });

  const one = await fetch(`${srv.url}/__owrl/faults/${a}`);
  assert.equal(((await one.json()) as { rule: RuleView }).rule.id, a);
  const del = await fetch(`${srv.url}/__owrl/faults/${a}`, { method: 'DELETE' });
  assert.deepEqual(await del.json(), { ok: true, id: a });
  assert.equal(await status('/shop/c/kitchen'), 200, 'the deleted rule no longer applies');
  const again = await fetch(`${srv.url}/__owrl/faults/${a}`, { method: 'DELETE' });
  assert.equal(again.status, 404);
  assert.match(((await again.json()) as { detail: string }).detail, new RegExp(`no fault rule "${a}" \\(rules: ${b}\\)`));

  await addRule({ fault: { kind: 'reset' } });
  const cleared = await fetch(`${srv.url}/__owrl/faults`, { method: 'DELETE' });
  assert.deepEqual(await cleared.json(), { ok: true, removed: 2 });
  assert.deepEqual(await rules(), []);
  const put = await fetch(`${srv.url}/__owrl/faults`, { method: 'PUT', body: '{}' });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get('allow'), 'GET, POST, DELETE');
});

void test('bad rules get 400 naming the field, and nothing is added', async () => {
  await clear();
  const cases: Array<[string, string]> = [
    ['{"fault":{"kind":"meteor"}}', 'fault.kind'],
    ['{"fault":{"kind":"status","code":404}}', 'fault.code'],
    ['{"fault":{"kind":"status"}}', 'fault.code'],
    ['{"fault":{"kind":"latency","ms":-5}}', 'fault.ms'],
    ['{"fault":{"kind":"latency"}}', 'fault.ms'],
    ['{"fault":{"kind":"latency","ms":5,"jitter":3}}', 'fault.jitter'],
    ['{"fault":{"kind":"bot_wall","status":200}}', 'fault.status'],
    ['{"fault":{"kind":"captcha","provider":"turnstile"}}', 'fault.provider'],
    ['{"fault":{"kind":"redirect_loop","mode":"triangle"}}', 'fault.mode'],
    ['{"fault":{"kind":"reset","ms":1}}', 'fault.ms'],
    ['{"match":{"site":"bank"},"fault":{"kind":"reset"}}', 'match.site'],
    ['{"match":{"path":"~(["},"fault":{"kind":"reset"}}', 'match.path'],
    ['{"match":{"path":"shop"},"fault":{"kind":"reset"}}', 'match.path'],
    ['{"match":{"host":"localhost:8400"},"fault":{"kind":"reset"}}', 'match.host'],
    ['{"match":{"hostname":"x"},"fault":{"kind":"reset"}}', 'match.hostname'],
    ['{"fault":{"kind":"reset"},"probability":1.5}', 'probability'],
    ['{"fault":{"kind":"reset"},"count":0}', 'count'],
    ['{"fault":{"kind":"reset"},"after_requests":"2"}', 'after_requests'],
    ['{"fault":{"kind":"reset"},"when":"now"}', 'when'],
    ['{"match":{}}', 'fault'],
    ['[1]', 'rule'],
    ['{"fault":', 'body'],
    ['', 'body'],
  ];
  for (const [body, field] of cases) {
    const res = await fetch(`${srv.url}/__owrl/faults`, { method: 'POST', body });
    const out = (await res.json()) as { ok: boolean; field: string; detail: string };
    assert.equal(res.status, 400, body);
    assert.equal(out.field, field, `${body}: ${out.detail}`);
    assert.ok(out.detail.startsWith(`${field}: `), out.detail);
  }
  assert.deepEqual(await rules(), []);
  // A bad per-request fault is refused too, naming the parameter.
  const res = await fetch(`${srv.url}/shop/?owrl_fault=status:404`);
  assert.equal(res.status, 400);
  assert.match(((await res.json()) as { detail: string }).detail, /^owrl_fault: "status:404" is not a usable fault: owrl_fault\.code: must be one of 500, 502, 503, 504, 403, 429/);
  assert.equal(await status('/shop/?owrl_fault=reset:1'), 400);
  assert.equal(await status('/shop/?owrl_fault=latency:abc'), 400);
});

void test('a host rule splits one server into hosts: 127.0.0.2 vs 127.0.0.1 vs localhost', async () => {
  await clear();
  const id = await addRule({ match: { host: '127.0.0.2' }, fault: { kind: 'status', code: 503, retry_after: 7 } });
  assert.equal(await statusVia('127.0.0.2', '/shop/'), 503);
  assert.equal(await statusVia('127.0.0.1', '/shop/'), 200);
  assert.equal(await statusVia('localhost', '/shop/'), 200);
  await addRule({ match: { host: 'LOCALHOST' }, fault: { kind: 'status', code: 429 } });
  assert.equal(await statusVia('localhost', '/shop/'), 429, 'host names compare case-insensitively');
  assert.equal(await statusVia('127.0.0.2', '/'), 503, 'a host rule covers every path of the host');
  const r = (await rules()).find((x) => x.id === id);
  assert.deepEqual([r?.matched, r?.applied], [2, 2]);
});

void test('site, path prefix, path regex and session matching', async () => {
  await clear();
  await addRule({ match: { site: 'shop', path: '/shop/p/' }, fault: { kind: 'status', code: 500 } });
  await addRule({ match: { path: '~^/shop/search\\?q=mug' }, fault: { kind: 'status', code: 504 } });
  await addRule({ match: { session: 'sess-a' }, fault: { kind: 'status', code: 403 } });
  const product = srv.catalog.products[0]?.id ?? '';
  assert.equal(await status(`/shop/p/${product}`), 500);
  assert.equal(await status('/shop/c/kitchen'), 200);
  assert.equal(await status('/shop/search?q=mug'), 504, 'a regex sees path and query');
  assert.equal(await status('/shop/search?q=lamp'), 200);
  assert.equal(await status('/shop/?owrl_session=sess-a'), 403, 'session from the query');
  assert.equal(await status('/shop/', { headers: { cookie: 'owrl_session=sess-a' } }), 403, 'session from the cookie');
  assert.equal(await status('/shop/', { headers: { cookie: 'owrl_session=sess-b' } }), 200);
  assert.equal(await status('/'), 200, 'the portal is not under /shop/ and has no session');
});

void test('a per-request owrl_fault applies to that request only', async () => {
  await clear();
  assert.equal(await status('/shop/?owrl_fault=status:502'), 502);
  assert.equal(await status('/shop/'), 200);
  assert.equal(await status('/shop/?owrl_fault=status'), 503, 'status defaults to 503');
  const wall = await fetch(`${srv.url}/shop/?owrl_fault=bot_wall:403`);
  assert.equal(wall.status, 403);
  assert.match(await wall.text(), /<title>Just a moment\.\.\.<\/title>/);
  // A rule that answers wins over the parameter ("the site is down" whatever the request asks).
  await addRule({ match: { path: '/shop/cart' }, fault: { kind: 'status', code: 500 } });
  assert.equal(await status('/shop/cart?owrl_fault=status:429'), 500);
});

void test('after_requests skips the first matching requests, count expires the rule', async () => {
  await clear();
  const id = await addRule({ match: { path: '/shop/c/' }, fault: { kind: 'status', code: 503 }, after_requests: 2, count: 3 });
  const seen: number[] = [];
  for (let i = 0; i < 7; i++) seen.push(await status('/shop/c/toys'));
  assert.deepEqual(seen, [200, 200, 503, 503, 503, 200, 200]);
  const r = (await rules()).find((x) => x.id === id);
  assert.deepEqual([r?.matched, r?.applied, r?.expired], [5, 3, true], 'an expired rule stops counting');
});

void test('probability draws are seeded: the same rule and seed give the same hits', async () => {
  const run = async (): Promise<number[]> => {
    await clear();
    await addRule({ match: { path: '/shop/cart' }, fault: { kind: 'status', code: 500 }, probability: 0.5, seed: 42 });
    const out: number[] = [];
    for (let i = 0; i < 40; i++) out.push(await status('/shop/cart'));
    return out;
  };
  const first = await run();
  const second = await run();
  assert.deepEqual(first, second);
  const hits = first.filter((s) => s === 500).length;
  assert.ok(hits >= 10 && hits <= 30, `about half fault: ${hits}/40`);
  await clear();
  await addRule({ match: { path: '/shop/cart' }, fault: { kind: 'status', code: 500 }, probability: 0.5, seed: 43 });
  const other: number[] = [];
  for (let i = 0; i < 40; i++) other.push(await status('/shop/cart'));
  assert.notDeepEqual(other, first, 'another seed draws differently');
});

void test('the fault API and the control endpoints are not faulted by catch-all rules', async () => {
  await clear();
  await addRule({ fault: { kind: 'reset' } });
  assert.equal((await rules()).length, 1);
  const health = await fetch(`${srv.url}/__owrl/health`);
  assert.equal(health.status, 200);
  await assert.rejects(fetch(`${srv.url}/shop/`), /fetch failed/);
  await clear();
  // An explicit /__owrl/ prefix does reach a control endpoint (to fault the verifier on purpose).
  await addRule({ match: { path: '/__owrl/verify' }, fault: { kind: 'status', code: 503 } });
  assert.equal(await status('/__owrl/verify?session=x&spec=%7B%7D'), 503);
  assert.equal(await status('/__owrl/faults'), 200);
  await clear();
});

void test('startup rules: given to the server or read from a file; a bad one names its index and field', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'owrl-faults-'));
  const file = path.join(dir, 'faults.json');
  await writeFile(file, JSON.stringify({ rules: [{ match: { path: '/shop/cart' }, fault: { kind: 'status', code: 502 } }] }));
  const s2 = await startSitesServer({ port: 0, faults: await readFaultFile(file) });
  try {
    const res = await fetch(`${s2.url}/shop/cart`);
    assert.equal(res.status, 502);
    assert.deepEqual(
      s2.faults.list().map((r) => [r.id, r.applied]),
      [['f1', 1]],
    );
  } finally {
    await s2.close();
  }
  await assert.rejects(startSitesServer({ port: 0, faults: [{ fault: { kind: 'reset' } }, { fault: { kind: 'latency', ms: 'slow' } }] }), (e: unknown) => {
    assert.ok(e instanceof SitesError);
    assert.equal(e.code, 'SITES_BAD_OPTION');
    assert.match(e.message, /^faults\[1\]\.fault\.ms: must be an integer from 0 to 600000, got "slow"/);
    return true;
  });
  await writeFile(file, '{"match": {}}');
  await assert.rejects(readFaultFile(file), /must hold a JSON array of rules/);
  await assert.rejects(readFaultFile(path.join(dir, 'missing.json')), /cannot be read/);
});
