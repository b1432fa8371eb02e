// `owrl blacklist` as a child process against a real nats-server: add (creating the topology on a
// fresh server), list as a table and as JSON, remove, and the exit statuses of bad input (2) and
// of failures (1); plus the pure parsers of hosts, durations and remaining time.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Blacklist, connectBus, type Bus } from '@owrl/bus';
import { startNatsServer, type NatsServer } from '@owrl/testkit';
import { formatRemaining, parseHost, parseTtl } from '../src/blacklist-cmd.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/owrl.js');

let nats: NatsServer;

before(async () => {
  nats = await startNatsServer();
});

after(async () => {
  await nats?.dispose();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function owrl(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

void test('hosts, durations and remaining times parse and print as documented', () => {
  assert.equal(parseHost('Shop.Example.com:8443'), 'shop.example.com:8443');
  assert.equal(parseHost(' https://Walled.example/path?q=1 '), 'walled.example');
  assert.equal(parseHost('http://a.example:8080/x'), 'a.example:8080');
  assert.equal(parseHost('[::1]:3000'), '[::1]:3000');
  for (const bad of ['', '   ', 'a b', 'host/path', 'user@host', 'host?x']) assert.throws(() => parseHost(bad), /HOST/, JSON.stringify(bad));
  assert.equal(parseTtl('30m'), 1_800_000);
  assert.equal(parseTtl('90s'), 90_000);
  assert.equal(parseTtl('45'), 45_000);
  assert.equal(parseTtl('1.5h'), 5_400_000);
  assert.equal(parseTtl('2d'), 172_800_000);
  assert.equal(parseTtl('250ms'), 250);
  for (const bad of ['', '0', '0s', '-5m', '5q', 'm', '1e3s']) assert.throws(() => parseTtl(bad), /--ttl .* is not a positive duration/, JSON.stringify(bad));
  assert.equal(formatRemaining(0), 'expired');
  assert.equal(formatRemaining(-5), 'expired');
  assert.equal(formatRemaining(12_000), '12s');
  assert.equal(formatRemaining(249_000), '4m 09s');
  assert.equal(formatRemaining(3_900_000), '1h 05m');
  assert.equal(formatRemaining(90_000_000), '1d 01h');
});

void test('bad input exits with status 2 and says what is wrong, before touching NATS', async () => {
  const unreachable = { NATS_URL: 'nats://127.0.0.1:1' };
  const cases: Array<[string[], RegExp]> = [
    [['blacklist', 'add', '--reason', 'bot_wall'], /HOST is missing/],
    [['blacklist', 'add', 'x.example', '--reason', 'r', '--ttl', 'soon'], /--ttl "soon" is not a positive duration/],
    [['blacklist', 'add', 'x.example'], /--reason R is required/],
    [['blacklist', 'remove'], /HOST is missing/],
    [['blacklist', 'list', '--ttl', '5m'], /takes no --ttl/],
    [['blacklist', 'purge'], /unknown blacklist subcommand "purge"/],
    [['blacklist', 'add', 'x.example', '--reason', 'r', '--failures=-1'], /--failures must be an integer >= 0/],
  ];
  for (const [args, re] of cases) {
    const r = await owrl(args, unreachable);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re, args.join(' '));
  }
  const down = await owrl(['blacklist', 'list'], unreachable);
  assert.equal(down.code, 1);
  assert.match(down.stderr, /cannot connect to NATS at nats:\/\/127\.0\.0\.1:1/);
});

void test('add, list (table and JSON) and remove against a real server', { timeout: 60_000 }, async () => {
  const env = { NATS_URL: nats.url };
  // A fresh server: the first add creates the topology.
  const empty = await owrl(['blacklist', 'list'], env);
  assert.deepEqual([empty.code, empty.stdout.trim()], [0, 'no hosts are blacklisted']);
  const t0 = Date.now();
  const added = await owrl(['blacklist', 'add', 'Shop.Example.com:8443', '--reason', 'bot_wall', '--ttl', '2h', '--failures', '3'], env);
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /^blacklisted shop\.example\.com:8443 until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(bot_wall\)/);
  assert.match(added.stderr, /bucket drops entries 1h 00m after they are written/, 'a TTL beyond the bucket TTL is flagged');
  const viaUrl = await owrl(['blacklist', 'add', 'https://Walled.example/start?x=1', '--reason', 'manual', '--nats', nats.url], { NATS_URL: 'nats://127.0.0.1:1' });
  assert.equal(viaUrl.code, 0, viaUrl.stderr);
  assert.equal(viaUrl.stderr, '', 'the default 30m is within the bucket TTL');

  let bus: Bus | null = null;
  try {
    bus = await connectBus({ servers: nats.url, name: 'cli-test' });
    const bl = await Blacklist.open(bus);
    assert.equal(await bl.isBlocked('shop.example.com:8443'), true, 'the learner and actors see the entry');
    await bl.add('gone.example', { reason: 'init_error:dns', failures: 5, untilMs: Date.now() - 1000 });
  } finally {
    await bus?.close();
  }

  const tableRun = await owrl(['blacklist', 'list'], env);
  assert.equal(tableRun.code, 0, tableRun.stderr);
  const lines = tableRun.stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /^HOST\s+REASON\s+FAILURES\s+UNTIL\s+REMAINING$/);
  assert.equal(lines.length, 4);
  assert.match(lines[1] ?? '', /^gone\.example\s+init_error:dns\s+5\s+\S+Z\s+expired$/);
  assert.match(lines[2] ?? '', /^shop\.example\.com:8443\s+bot_wall\s+3\s+\S+Z\s+1h 59m$|^shop\.example\.com:8443\s+bot_wall\s+3\s+\S+Z\s+2h 00m$/);
  assert.match(lines[3] ?? '', /^walled\.example\s+manual\s+0\s+\S+Z\s+(29m \d\ds|30m 00s)$/);

  const jsonRun = await owrl(['blacklist', 'list', '--json'], env);
  assert.equal(jsonRun.code, 0, jsonRun.stderr);
  const rows = JSON.parse(jsonRun.stdout) as Array<{ host: string; reason: string; failures: number; untilMs: number; until: string; remainingMs: number; blocking: boolean }>;
  assert.deepEqual(
    rows.map((r) => [r.host, r.reason, r.failures, r.blocking]),
    [
      ['gone.example', 'init_error:dns', 5, false],
      ['shop.example.com:8443', 'bot_wall', 3, true],
      ['walled.example', 'manual', 0, true],
    ],
  );
  const shop = rows[1]!;
  assert.ok(shop.untilMs >= t0 + 7_200_000 && shop.untilMs <= Date.now() + 7_200_000, `untilMs ${shop.untilMs}`);
  assert.equal(shop.until, new Date(shop.untilMs).toISOString().replace(/\.\d{3}Z$/, 'Z'));
  assert.equal(rows[0]!.remainingMs, 0);

  const removed = await owrl(['blacklist', 'remove', 'SHOP.example.com:8443'], env);
  assert.deepEqual([removed.code, removed.stdout.trim()], [0, 'removed shop.example.com:8443 from the blacklist']);
  const again = await owrl(['blacklist', 'remove', 'shop.example.com:8443'], env);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /shop\.example\.com:8443 is not blacklisted/);
  const after = JSON.parse((await owrl(['blacklist', 'list', '--json'], env)).stdout) as Array<{ host: string }>;
  assert.deepEqual(after.map((r) => r.host), ['gone.example', 'walled.example']);
});
