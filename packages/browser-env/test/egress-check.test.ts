// The fence's verdicts without a browser: address classes (hand-written expectations from the
// IANA special-purpose registries), host parsing of the odd literal forms, one look-up per
// check, the allowlist, and failures of the resolver.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyAddress, EgressCheck, parseAuthority, parseHttpTarget, type EgressVerdict, type HostLookup } from '../src/index.js';

void describe('address classes', () => {
  void it('names the class of every special range, v4-mapped and NAT64 addresses by their IPv4', () => {
    const expected: Record<string, string> = {
      '127.0.0.1': 'loopback',
      '127.255.0.9': 'loopback',
      '10.2.3.4': 'private',
      '172.16.0.1': 'private',
      '172.31.255.255': 'private',
      '192.168.1.1': 'private',
      '169.254.1.1': 'link_local',
      '169.254.169.254': 'metadata',
      '100.64.0.1': 'cgnat',
      '100.127.255.254': 'cgnat',
      '100.100.100.200': 'metadata',
      '224.0.0.1': 'multicast',
      '239.255.255.250': 'multicast',
      '0.0.0.0': 'unspecified',
      '0.1.2.3': 'unspecified',
      '255.255.255.255': 'broadcast',
      '192.0.2.7': 'reserved',
      '198.18.0.1': 'reserved',
      '240.0.0.1': 'reserved',
      '::1': 'loopback',
      '[::1]': 'loopback',
      '::': 'unspecified',
      'fc00::1': 'unique_local',
      'fd12:3456::1': 'unique_local',
      'fd00:ec2::254': 'metadata',
      'fe80::1': 'link_local',
      'ff02::1': 'multicast',
      '::ffff:127.0.0.1': 'loopback',
      '::ffff:7f00:1': 'loopback',
      '::ffff:10.1.2.3': 'private',
      '::ffff:169.254.169.254': 'metadata',
      '64:ff9b::7f00:1': 'loopback',
      '64:ff9b::a00:1': 'private',
      '::7f00:1': 'reserved',
      '2002:7f00:1::1': 'reserved',
      '2001:db8::1': 'reserved',
      '8.8.8.8': 'public',
      '172.32.0.1': 'public',
      '100.128.0.1': 'public',
      '93.184.216.34': 'public',
      '::ffff:8.8.8.8': 'public',
      '64:ff9b::808:808': 'public',
      '2606:4700::1111': 'public',
    };
    const got = Object.fromEntries(Object.keys(expected).map((ip) => [ip, classifyAddress(ip)]));
    assert.deepEqual(got, expected);
    for (const notIp of ['example.com', '127.1', '2130706433', '', '1.2.3.4.5']) assert.equal(classifyAddress(notIp), null, notIp);
  });
});

void describe('targets', () => {
  void it('parses hosts as a browser does: every odd form of 127.0.0.1 is 127.0.0.1', () => {
    for (const a of ['2130706433:80', '127.1:80', '0x7f.1:80', '0177.0.0.1:80', '0x7f000001:80', '127.0.1:80', '127.0.0.1.:80']) {
      assert.deepEqual(parseAuthority(a), { host: '127.0.0.1', port: 80 }, a);
    }
    assert.deepEqual(parseAuthority('0:443'), { host: '0.0.0.0', port: 443 });
    assert.deepEqual(parseAuthority('[::ffff:127.0.0.1]:443'), { host: '::ffff:7f00:1', port: 443 });
    assert.deepEqual(parseAuthority('[0:0:0:0:0:0:0:1]:8080'), { host: '::1', port: 8080 });
    assert.deepEqual(parseAuthority('Example.COM:443'), { host: 'example.com', port: 443 });
    for (const bad of ['example.com', 'example.com:', 'user@example.com:443', 'example.com:443/x', 'example.com:99999', 'example.com:0', '[::1:443', ':443']) {
      assert.equal(parseAuthority(bad), null, bad);
    }
    assert.deepEqual(parseHttpTarget('http://2130706433/x?y'), { host: '127.0.0.1', port: 80 });
    assert.deepEqual(parseHttpTarget('http://[::1]:9000/'), { host: '::1', port: 9000 });
    assert.equal(parseHttpTarget('https://example.com/'), null, 'https comes as CONNECT, never in absolute form');
    assert.equal(parseHttpTarget('/relative'), null);
  });
});

/** A resolver answering from a table, counting questions; a name not in it does not exist. */
function stub(table: Record<string, string[] | (() => Promise<string[]>)>): { lookup: HostLookup; asked: Map<string, number> } {
  const asked = new Map<string, number>();
  return {
    asked,
    lookup: async (name) => {
      asked.set(name, (asked.get(name) ?? 0) + 1);
      const a = table[name];
      if (a === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return (typeof a === 'function' ? await a() : a).map((address) => ({ address }));
    },
  };
}

const brief = (v: EgressVerdict): string => (v.ok ? `ok ${v.address}${v.allowlisted ? ' allowlisted' : ''}` : v.refused ? `refused ${v.reason} ${v.range}` : `unreachable ${v.code}`);

void describe('egress check', () => {
  void it('refuses non-public literals and answers, and connects to the address it checked', async () => {
    const { lookup, asked } = stub({ 'public.test': ['93.184.216.34'], 'inner.test': ['10.0.0.7'], 'mixed.test': ['93.184.216.34', 'fd00::1'], 'meta.test': ['169.254.169.254'] });
    const c = new EgressCheck([], lookup);
    const cases: Array<[string, number, string]> = [
      ['127.0.0.1', 80, 'refused private_address loopback'],
      ['0.0.0.0', 80, 'refused private_address unspecified'],
      ['::ffff:7f00:1', 443, 'refused private_address loopback'],
      ['169.254.169.254', 80, 'refused private_address metadata'],
      ['public.test', 443, 'ok 93.184.216.34'],
      ['inner.test', 443, 'refused private_address private'],
      ['mixed.test', 443, 'refused private_address unique_local'],
      ['meta.test', 80, 'refused private_address metadata'],
      ['localhost', 80, 'refused private_address loopback'],
      ['app.localhost', 80, 'refused private_address loopback'],
      ['metadata.google.internal', 80, 'refused private_address metadata'],
      ['8.8.8.8', 53, 'ok 8.8.8.8'],
    ];
    const got: string[] = [];
    for (const [host, port] of cases) got.push(brief(await c.check({ host, port })));
    assert.deepEqual(got, cases.map((x) => x[2]));
    // literals and the names that always mean this machine or its cloud are never looked up
    assert.deepEqual([...asked.keys()].sort(), ['inner.test', 'meta.test', 'mixed.test', 'public.test']);
    const v = await c.check({ host: 'inner.test', port: 443 });
    assert.ok(!v.ok && v.refused && v.detail === 'inner.test:443 is a private address (inner.test resolves to 10.0.0.7)', JSON.stringify(v));
  });

  void it('resolves once per check: a name that changes its answer is judged on the answer it will be connected to', async () => {
    let n = 0;
    const { lookup, asked } = stub({ 'rebind.test': async () => (++n === 1 ? ['93.184.216.34'] : ['127.0.0.1']) });
    const c = new EgressCheck([], lookup);
    assert.equal(brief(await c.check({ host: 'rebind.test', port: 80 })), 'ok 93.184.216.34');
    assert.equal(brief(await c.check({ host: 'rebind.test', port: 80 })), 'refused private_address loopback');
    assert.equal(asked.get('rebind.test'), 2);
  });

  void it('lets the allowlist through at its port (or any port for a bare host), whatever the host resolves to', async () => {
    const { lookup } = stub({ sites: ['172.18.0.5'] });
    const c = new EgressCheck(['sites:8400', '127.0.0.1:8400', 'localhost', '[::1]:9000'], lookup);
    const got = await Promise.all(
      [
        ['sites', 8400],
        ['sites', 8401],
        ['127.0.0.1', 8400],
        ['127.0.0.1', 8401],
        ['localhost', 3000],
        ['::1', 9000],
        ['::1', 9001],
      ].map(async ([host, port]) => brief(await c.check({ host: String(host), port: Number(port) }))),
    );
    assert.deepEqual(got, [
      'ok 172.18.0.5 allowlisted',
      'refused private_address private',
      'ok 127.0.0.1 allowlisted',
      'refused private_address loopback',
      'unreachable dns', // allowlisted, so looked up: the stub does not know it
      'ok ::1 allowlisted',
      'refused private_address loopback',
    ]);
  });

  void it('a name that does not resolve, or whose answer does not come in time, is unreachable (dns), not refused', async () => {
    const { lookup } = stub({ 'slow.test': () => new Promise<string[]>(() => {}), 'empty.test': [] });
    const c = new EgressCheck([], lookup, 100);
    assert.equal(brief(await c.check({ host: 'gone.test', port: 80 })), 'unreachable dns');
    assert.equal(brief(await c.check({ host: 'empty.test', port: 80 })), 'unreachable dns');
    const t = performance.now();
    const slow = await c.check({ host: 'slow.test', port: 80 });
    assert.equal(brief(slow), 'unreachable dns');
    assert.ok(performance.now() - t < 2000, 'bounded by the look-up timeout');
    assert.ok(!slow.ok && !slow.refused && /no answer within 100 ms/.test(slow.detail), JSON.stringify(slow));
  });

  void it('an answer that is not an address is refused', async () => {
    const { lookup } = stub({ 'weird.test': ['not-an-address'] });
    assert.equal(brief(await new EgressCheck([], lookup).check({ host: 'weird.test', port: 80 })), 'refused private_address reserved');
  });
});
