// The request guard in real Chromium (DESIGN §5 Safety) for what goes past plain page requests:
// WebSockets and DNS answers. Chromium is told (--host-resolver-rules) that rebind.test and
// broken.test live on the local server, and the guard's resolver gives the same answer for
// rebind.test (a private address) and fails for broken.test. The page then opens WebSockets and
// fetches to each: only the allowlisted server is reached (the server counts what arrives by Host),
// a name answering with a private address is refused, and a name whose answer cannot be had is
// refused too (fail closed), for WebSockets as for fetches.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { DnsVerdicts, installGuard, type BlockedRequest, type HostLookup } from '../src/guard.js';

let server: http.Server;
let port = 0;
let browser: Browser;
/** Host headers of the requests and WebSocket upgrades the server received. */
const seen: string[] = [];
const sockets = new Set<Socket>();

const PAGE = `<!doctype html><title>fence</title><script>
window.__r = {};
function ws(name, url) {
  return new Promise((resolve) => {
    let s;
    try { s = new WebSocket(url); } catch (e) { window.__r[name] = 'throw'; return resolve(); }
    const t = setTimeout(() => { window.__r[name] = 'timeout'; resolve(); }, 4000);
    s.onmessage = (m) => { window.__r[name] = 'message:' + m.data; clearTimeout(t); s.close(); resolve(); };
    s.onclose = (e) => { window.__r[name] ??= 'closed:' + e.code; clearTimeout(t); resolve(); };
  });
}
async function get(name, url) {
  try { const r = await fetch(url); window.__r[name] = 'status:' + r.status; } catch (e) { window.__r[name] = 'failed'; }
}
window.__done = Promise.all([
  ws('ws_allowed', 'ws://127.0.0.1:PORT/ws'),
  ws('ws_private_literal', 'ws://10.255.255.1:PORT/ws'),
  ws('ws_rebind', 'ws://rebind.test:PORT/ws'),
  ws('ws_broken_dns', 'ws://broken.test:PORT/ws'),
  get('fetch_rebind', 'http://rebind.test:PORT/data'),
  get('fetch_broken_dns', 'http://broken.test:PORT/data'),
]);
</script>`;

before(async () => {
  server = http.createServer((req, res) => {
    seen.push(`http ${req.headers.host ?? ''}`);
    res.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' }).end(PAGE.replaceAll('PORT', String(port)));
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req, socket: Socket) => {
    seen.push(`ws ${req.headers.host ?? ''}`);
    const accept = crypto
      .createHash('sha1')
      .update(`${String(req.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    // One unmasked text frame "hello".
    socket.write(Buffer.concat([Buffer.from([0x81, 5]), Buffer.from('hello')]));
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const a = server.address();
  port = typeof a === 'object' && a ? a.port : 0;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', `--host-resolver-rules=MAP rebind.test 127.0.0.1, MAP broken.test 127.0.0.1`],
  });
});

after(async () => {
  await browser?.close();
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

void test('WebSockets and DNS answers pointing to private addresses are refused, and a failed answer fails closed', { timeout: 60_000 }, async () => {
  const lookup: HostLookup = async (h) => {
    if (h === 'rebind.test') return [{ address: '127.0.0.1' }];
    const e = new Error(`queryA ETIMEOUT ${h}`) as NodeJS.ErrnoException;
    e.code = 'ETIMEOUT';
    throw e;
  };
  const context = await browser.newContext();
  const blocked: BlockedRequest[] = [];
  try {
    await installGuard(context, [`127.0.0.1:${port}`], new DnsVerdicts(lookup, 1000), (b) => blocked.push(b));
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.evaluate(() => (window as unknown as { __done: Promise<unknown> }).__done);
    const r = await page.evaluate(() => (window as unknown as { __r: Record<string, string> }).__r);
    assert.equal(r['ws_allowed'], 'message:hello', 'the allowlisted WebSocket is connected to its server');
    for (const k of ['ws_private_literal', 'ws_rebind', 'ws_broken_dns']) assert.ok(!String(r[k]).startsWith('message'), `${k}: ${r[k]}`);
    for (const k of ['fetch_rebind', 'fetch_broken_dns']) assert.equal(r[k], 'failed', k);
    // What reached the server: the page and the allowed WebSocket only (by Host header).
    assert.deepEqual(seen.filter((s) => !s.includes(`127.0.0.1:${port}`)), [], seen.join(', '));
    assert.ok(seen.includes(`ws 127.0.0.1:${port}`));
    const reasons = Object.fromEntries(blocked.map((b) => [new URL(b.url).host + (b.url.startsWith('ws') ? ' ws' : ' http'), b.reason]));
    assert.deepEqual(reasons, {
      [`10.255.255.1:${port} ws`]: 'private_address',
      [`rebind.test:${port} ws`]: 'private_address',
      [`broken.test:${port} ws`]: 'dns_unverified',
      [`rebind.test:${port} http`]: 'private_address',
      [`broken.test:${port} http`]: 'dns_unverified',
    });
  } finally {
    await context.close();
  }
});

void test('DnsVerdicts: private answers block, a missing name passes (Chromium reports dns), a timeout or server failure blocks and is asked again', async () => {
  let calls = 0;
  const d = new DnsVerdicts(async (h) => {
    calls++;
    if (h === 'gone.test') throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
    if (h === 'slow.test') return await new Promise(() => {});
    if (h === 'servfail.test') throw Object.assign(new Error('sf'), { code: 'ESERVFAIL' });
    return [{ address: h === 'inner.test' ? '192.168.1.9' : '93.184.216.34' }, ...(h === 'mixed.test' ? [{ address: 'fd00::1' }] : [])];
  }, 200);
  assert.equal(await d.verdict('inner.test'), 'private_address');
  assert.equal(await d.verdict('mixed.test'), 'private_address');
  assert.equal(await d.verdict('public.test'), '');
  assert.equal(await d.verdict('gone.test'), '');
  assert.equal(await d.verdict('slow.test'), 'dns_unverified');
  assert.equal(await d.verdict('servfail.test'), 'dns_unverified');
  const before = calls;
  assert.equal(await d.verdict('servfail.test'), 'dns_unverified');
  assert.equal(await d.verdict('public.test'), '');
  assert.equal(calls, before + 1, 'failures are asked again, answers are cached');
});
