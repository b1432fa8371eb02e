// One fence listener spoken to as Chromium speaks to a proxy, over real sockets, without a browser:
// plain requests in absolute form are forwarded (hop-by-hop headers dropped, the upstream
// connection kept alive), CONNECT is tunnelled both ways, refusals close a plain request
// unanswered and answer a tunnel 403 — told once, also when Chromium resends — upstreams that
// cannot be had are told with the reason Chromium would have given, and nothing an upstream or
// the dialer does takes the listener down.
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '@owrl/core';
import { EgressCheck, EgressProxy, type FenceEvent } from '../src/index.js';

let upstream: http.Server;
let upPort = 0;
/** What the upstream received: request line and the headers the tests look at. */
const seen: Array<{ line: string; host: string; connection: string; proxyConnection: string; remotePort: number }> = [];
/** A raw upstream that answers with a header Node will not write. */
let broken: net.Server;
let brokenPort = 0;
/** A port nothing listens on. */
let deadPort = 0;

before(async () => {
  upstream = http.createServer((req, res) => {
    seen.push({ line: `${req.method} ${req.url}`, host: req.headers.host ?? '', connection: req.headers.connection ?? '', proxyConnection: String(req.headers['proxy-connection'] ?? ''), remotePort: req.socket.remotePort ?? 0 });
    res.writeHead(200, { 'content-type': 'text/plain', 'x-up': 'yes', connection: 'keep-alive, x-hop', 'x-hop': 'drop me' }).end(`hello ${req.url}`);
  });
  upstream.on('connect', () => assert.fail('the upstream never sees CONNECT'));
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  upPort = (upstream.address() as AddressInfo).port;
  broken = net.createServer((s) => {
    s.once('data', () => s.end('HTTP/1.1 200 OK\r\nX-Bad: a\u0001b\r\nContent-Length: 2\r\n\r\nok'));
    s.on('error', () => {});
  });
  await new Promise<void>((r) => broken.listen(0, '127.0.0.1', () => r()));
  brokenPort = (broken.address() as AddressInfo).port;
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  deadPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
});

after(async () => {
  upstream.closeAllConnections();
  await new Promise<void>((r) => upstream.close(() => r()));
  await new Promise<void>((r) => broken.close(() => r()));
});

async function listener(dial?: (to: { address: string; port: number }) => net.Socket): Promise<{ p: EgressProxy; events: FenceEvent[] }> {
  const events: FenceEvent[] = [];
  const check = new EgressCheck([`127.0.0.1:${upPort}`, `127.0.0.1:${brokenPort}`, `127.0.0.1:${deadPort}`], {
    lookup: async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    },
  });
  const p = await EgressProxy.start({ check, onEvent: (e) => events.push(e), log: silentLogger, ...(dial ? { dial } : {}) });
  return { p, events };
}

/** Sends `text` on one connection and collects everything until the proxy closes it or `until` matches (the answers here are chunked: they end in `0\r\n\r\n`). */
function exchange(port: number, text: string, until?: RegExp, socket?: net.Socket): Promise<{ got: string; closed: boolean; s: net.Socket }> {
  return new Promise((resolve, reject) => {
    const s = socket ?? net.connect({ host: '127.0.0.1', port });
    let got = '';
    const done = (closed: boolean): void => {
      s.off('data', onData);
      resolve({ got, closed, s });
    };
    const onData = (d: Buffer): void => {
      got += d.toString('latin1');
      if (until?.test(got)) done(false);
    };
    s.on('data', onData);
    s.once('close', () => done(true));
    s.once('error', reject);
    s.write(text);
  });
}

const get = (url: string, extra = ''): string => `GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nProxy-Connection: keep-alive\r\n${extra}\r\n`;

void describe('egress proxy', () => {
  void it('forwards plain requests without hop-by-hop headers and keeps the upstream connection for the next', async () => {
    const { p } = await listener();
    try {
      seen.length = 0;
      const url = `http://127.0.0.1:${upPort}/a?b=1`;
      const first = await exchange(p.port, get(url, 'Connection: keep-alive, x-secret\r\nX-Secret: hop\r\n'), /hello \/a\?b=1\r\n0\r\n\r\n$/);
      assert.match(first.got, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(first.got, /\r\nx-up: yes\r\n/i);
      assert.doesNotMatch(first.got, /x-hop/i, 'a header the upstream named in Connection is not relayed');
      const second = await exchange(p.port, get(`http://127.0.0.1:${upPort}/c`), /hello \/c\r\n0\r\n\r\n$/, first.s);
      assert.equal(second.closed, false);
      first.s.destroy();
      assert.deepEqual(
        seen.map((x) => [x.line, x.host, x.proxyConnection]),
        [
          ['GET /a?b=1', `127.0.0.1:${upPort}`, ''],
          ['GET /c', `127.0.0.1:${upPort}`, ''],
        ],
        'origin-form request lines, the Host header kept, the proxy headers dropped',
      );
      assert.equal(seen[0]?.remotePort, seen[1]?.remotePort, 'the second request rode the same upstream connection');
    } finally {
      await p.close();
    }
  });

  void it('tunnels CONNECT both ways to the approved address', async () => {
    const { p } = await listener();
    try {
      seen.length = 0;
      const t = await exchange(p.port, `CONNECT 127.0.0.1:${upPort} HTTP/1.1\r\nHost: 127.0.0.1:${upPort}\r\n\r\n`, /\r\n\r\n$/);
      assert.equal(t.got, 'HTTP/1.1 200 Connection Established\r\n\r\n');
      const inside = await exchange(p.port, `GET /tunnelled HTTP/1.1\r\nHost: inside\r\n\r\n`, /hello \/tunnelled\r\n0\r\n\r\n$/, t.s);
      assert.match(inside.got, /^HTTP\/1\.1 200 OK/);
      t.s.destroy();
      assert.deepEqual(seen.map((x) => x.line), ['GET /tunnelled']);
    } finally {
      await p.close();
    }
  });

  void it('closes a refused plain request unanswered and answers a refused tunnel 403, telling each refusal once', async () => {
    const { p, events } = await listener();
    try {
      const plain = await exchange(p.port, get('http://10.1.2.3/x'));
      assert.deepEqual([plain.got, plain.closed], ['', true]);
      // Chromium's resend of the same request on a fresh connection: refused again, told once
      const again = await exchange(p.port, get('http://10.1.2.3/x'));
      assert.deepEqual([again.got, again.closed], ['', true]);
      const tunnel = await exchange(p.port, 'CONNECT [::ffff:a9fe:a9fe]:443 HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.match(tunnel.got, /^HTTP\/1\.1 403 Forbidden\r\nX-Owrl-Fence: private_address\r\n/);
      const bad = await exchange(p.port, 'CONNECT user@host:443 HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.match(bad.got, /^HTTP\/1\.1 400 /);
      assert.deepEqual(
        events.map((e) => [e.url, e.via, e.outcome, e.reason, e.range]),
        [
          ['http://10.1.2.3/x', 'http', 'refused', 'private_address', 'private'],
          ['[::ffff:a9fe:a9fe]:443', 'connect', 'refused', 'private_address', 'metadata'],
          ['user@host:443', 'connect', 'refused', 'bad_target', ''],
        ],
      );
    } finally {
      await p.close();
    }
  });

  void it("tells an upstream it cannot have with Chromium's reason: refused connection, unknown name", async () => {
    const { p, events } = await listener();
    try {
      assert.deepEqual((await exchange(p.port, get(`http://127.0.0.1:${deadPort}/`))).got, '');
      assert.match((await exchange(p.port, `CONNECT 127.0.0.1:${deadPort} HTTP/1.1\r\nHost: x\r\n\r\n`)).got, /^HTTP\/1\.1 502 /);
      assert.match((await exchange(p.port, 'CONNECT nowhere.test:443 HTTP/1.1\r\nHost: x\r\n\r\n')).got, /^HTTP\/1\.1 502 /);
      assert.deepEqual(
        events.map((e) => [e.via, e.outcome, e.reason]),
        [
          ['http', 'unreachable', 'connection_refused'],
          ['connect', 'unreachable', 'connection_refused'],
          ['connect', 'unreachable', 'dns'],
        ],
      );
    } finally {
      await p.close();
    }
  });

  void it('survives an upstream answer it cannot relay and a dialer that throws, and goes on serving', async () => {
    let throwing = true;
    const { p, events } = await listener(({ address, port }) => {
      if (throwing && port === upPort) throw new Error('no route');
      return net.connect({ host: address, port });
    });
    try {
      const odd = await exchange(p.port, get(`http://127.0.0.1:${brokenPort}/`));
      assert.deepEqual([odd.got, odd.closed], ['', true]);
      const thrown = await exchange(p.port, get(`http://127.0.0.1:${upPort}/t`));
      assert.deepEqual([thrown.got, thrown.closed], ['', true]);
      const tunnel = await exchange(p.port, `CONNECT 127.0.0.1:${upPort} HTTP/1.1\r\nHost: x\r\n\r\n`);
      assert.match(tunnel.got, /^HTTP\/1\.1 502 /);
      throwing = false;
      const ok = await exchange(p.port, get(`http://127.0.0.1:${upPort}/after`), /hello \/after\r\n0\r\n\r\n$/);
      ok.s.destroy();
      assert.deepEqual(
        events.map((e) => [e.via, e.reason]),
        [
          ['http', 'invalid_response'],
          ['http', 'network'],
          ['connect', 'network'],
        ],
      );
    } finally {
      await p.close();
    }
  });
});
