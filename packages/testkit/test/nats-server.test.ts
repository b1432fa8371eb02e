// The launcher takes the nats-server binary from $NATS_SERVER_BIN when no path is given, as its
// "not found" error tells a user to set it: every caller (tests, `owrl stack`) gets it from there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer } from '@owrl/testkit';

void test('startNatsServer runs the binary $NATS_SERVER_BIN names', async () => {
  const real = execFileSync('sh', ['-c', 'command -v nats-server || ls /usr/sbin/nats-server'], { encoding: 'utf8' }).trim();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-nats-bin-'));
  const marker = path.join(dir, 'ran');
  const wrapper = path.join(dir, 'nats-server');
  fs.writeFileSync(wrapper, `#!/bin/sh\necho "$@" >> ${JSON.stringify(marker)}\nexec ${JSON.stringify(real)} "$@"\n`, { mode: 0o755 });
  const before = process.env['NATS_SERVER_BIN'];
  process.env['NATS_SERVER_BIN'] = wrapper;
  try {
    const server = await startNatsServer();
    try {
      assert.ok(fs.existsSync(marker), 'the wrapper named by NATS_SERVER_BIN was started');
      assert.match(fs.readFileSync(marker, 'utf8'), /-c|--config/);
    } finally {
      await server.dispose();
    }
  } finally {
    if (before === undefined) delete process.env['NATS_SERVER_BIN'];
    else process.env['NATS_SERVER_BIN'] = before;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
