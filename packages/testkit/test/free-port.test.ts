import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { freePort, freePorts } from '@owrl/testkit';

async function canListen(port: number): Promise<boolean> {
  return await new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

void test('freePorts: n distinct ports, each free, none handed out twice by this process across calls', async () => {
  const first = await freePorts(8);
  assert.equal(first.length, 8);
  assert.equal(new Set(first).size, 8, `ports repeat: ${first.join(',')}`);
  for (const p of first) assert.ok(await canListen(p), `port ${p} is not free`);
  const seen = new Set(first);
  // Many single calls: the kernel would offer a just-released port again sooner or later.
  for (let i = 0; i < 400; i++) {
    const p = await freePort();
    assert.ok(!seen.has(p), `port ${p} handed out twice`);
    seen.add(p);
  }
});

void test('freePorts: a count that is not a positive integer is refused by name', async () => {
  await assert.rejects(freePorts(0), /n must be a positive integer, got 0/);
  await assert.rejects(freePorts(1.5), /n must be a positive integer, got 1.5/);
});
