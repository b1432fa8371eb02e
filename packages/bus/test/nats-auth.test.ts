// NATS settings from the environment (one reader for every service and the CLI) and the
// authentication they carry, against real nats-servers that require a password, a token or an
// nkey: the right credentials connect, wrong ones fail with BUS_AUTH_FAILED and no secret shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nkeys } from '@nats-io/nats-core';
import { ConfigError } from '@owrl/core';
import { startNatsServer } from './harness.js';
import { BusError, connectBus, describeNatsSettings, readNatsSettings, redactUrl, type NatsSettings } from '../src/index.js';

function configError(variable: string, message: RegExp) {
  return (e: unknown) => e instanceof ConfigError && e.variable === variable && message.test(e.message);
}

void test('readNatsSettings: URLs, one authentication method, errors naming the variable', () => {
  assert.deepEqual(readNatsSettings({}), { servers: ['nats://127.0.0.1:4222'], auth: { kind: 'none' } });
  assert.deepEqual(readNatsSettings({ NATS_URL: 'nats://a:4222, tls://b:4443,c:4222' }).servers, ['nats://a:4222', 'tls://b:4443', 'c:4222']);
  const up = readNatsSettings({ NATS_USER: 'owrl', NATS_PASSWORD: 'pw' });
  assert.equal(up.auth.kind, 'user-password');
  assert.equal(up.auth.kind === 'user-password' && up.auth.password.reveal(), 'pw');
  const tok = readNatsSettings({ NATS_TOKEN: 'tok' });
  assert.equal(tok.auth.kind === 'token' && tok.auth.token.reveal(), 'tok');

  assert.throws(() => readNatsSettings({ NATS_URL: 'http://a:1' }), configError('NATS_URL', /has scheme http:/));
  assert.throws(() => readNatsSettings({ NATS_URL: 'a b' }), configError('NATS_URL', /is not host\[:port\] or a nats:\/\/ URL/));
  assert.throws(() => readNatsSettings({ NATS_URL: ' , ' }), configError('NATS_URL', /names no server/));
  assert.throws(() => readNatsSettings({ NATS_USER: 'owrl' }), configError('NATS_PASSWORD', /NATS_USER="owrl" is set but NATS_PASSWORD is not/));
  assert.throws(() => readNatsSettings({ NATS_PASSWORD: 'pw' }), configError('NATS_USER', /NATS_PASSWORD is set but NATS_USER is not/));
  assert.throws(() => readNatsSettings({ NATS_USER: 'u', NATS_PASSWORD: 'pw', NATS_TOKEN: 'tok' }), configError('NATS_TOKEN', /set one of NATS_USER\/NATS_PASSWORD, NATS_TOKEN, not 2/));
  assert.throws(() => readNatsSettings({ NATS_CREDS: '/nonexistent/owrl.creds' }), configError('NATS_CREDS', /NATS_CREDS="\/nonexistent\/owrl.creds" cannot be read/));
  assert.throws(() => readNatsSettings({ NATS_NKEY_SEED: 'SUnotaseed' }), (e: unknown) => configError('NATS_NKEY_SEED', /not a valid nkey seed/)(e) && !(e as Error).message.includes('SUnotaseed'));
  assert.throws(() => readNatsSettings({ NATS_NKEY_SEED: 'SAxyz' }), configError('NATS_NKEY_SEED', /not a user nkey seed/));
});

void test('creds and nkey seed files are read and checked at start-up; logs show only the public parts', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-nats-auth-'));
  try {
    const user = nkeys.createUser();
    const seed = new TextDecoder().decode(user.getSeed());
    const seedFile = path.join(dir, 'user.nk');
    fs.writeFileSync(seedFile, `${seed}\n`);
    const s = readNatsSettings({ NATS_NKEY_SEED_FILE: seedFile });
    assert.deepEqual(describeNatsSettings(s), { servers: ['nats://127.0.0.1:4222'], auth: 'nkey', publicKey: user.getPublicKey() });
    assert.equal(s.auth.kind === 'nkey' && s.auth.seed.reveal(), seed);
    assert.ok(!JSON.stringify(s).includes(seed), 'the settings serialise without the seed');
    assert.throws(() => readNatsSettings({ NATS_NKEY_SEED_FILE: seedFile, NATS_NKEY_SEED: seed }), configError('NATS_NKEY_SEED_FILE', /not both/));

    const creds = path.join(dir, 'owrl.creds');
    fs.writeFileSync(creds, 'not a creds file\n');
    assert.throws(() => readNatsSettings({ NATS_CREDS: creds }), configError('NATS_CREDS', /is not a creds file/));
    fs.writeFileSync(creds, `-----BEGIN NATS USER JWT-----\neyJ0\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`);
    const c = readNatsSettings({ NATS_CREDS: creds });
    assert.deepEqual(describeNatsSettings(c), { servers: ['nats://127.0.0.1:4222'], auth: 'creds', file: creds });
    assert.ok(!JSON.stringify(c).includes(seed));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(redactUrl('nats://owrl:pw@h:4222'), 'nats://owrl:[redacted]@h:4222');
  assert.equal(redactUrl('nats://h:4222'), 'nats://h:4222');
});

async function refused(settings: NatsSettings, secret: string): Promise<void> {
  await assert.rejects(
    connectBus({ servers: settings.servers, auth: settings.auth, name: 'auth-test', timeoutMs: 3000 }),
    (e: unknown) => e instanceof BusError && e.code === 'BUS_AUTH_FAILED' && /refused the credentials/.test(e.message) && !e.message.includes(secret),
  );
}

async function connects(settings: NatsSettings): Promise<void> {
  const bus = await connectBus({ servers: settings.servers, auth: settings.auth, name: 'auth-test', timeoutMs: 3000 });
  try {
    assert.ok((await bus.jsm.getAccountInfo()).limits !== undefined, 'JetStream answers an authenticated client');
  } finally {
    await bus.close();
  }
}

void test('user/password and token servers: the right secret connects, a wrong or missing one is refused', async () => {
  await using userServer = await startNatsServer({ extraConfig: ['authorization { user: owrl, password: "right-pass" }'] });
  await connects(readNatsSettings({ NATS_URL: userServer.url, NATS_USER: 'owrl', NATS_PASSWORD: 'right-pass' }));
  await refused(readNatsSettings({ NATS_URL: userServer.url, NATS_USER: 'owrl', NATS_PASSWORD: 'wrong-pass' }), 'wrong-pass');
  await refused(readNatsSettings({ NATS_URL: userServer.url }), 'right-pass');

  await using tokenServer = await startNatsServer({ extraConfig: ['authorization { token: "right-token" }'] });
  await connects(readNatsSettings({ NATS_URL: tokenServer.url, NATS_TOKEN: 'right-token' }));
  await refused(readNatsSettings({ NATS_URL: tokenServer.url, NATS_TOKEN: 'wrong-token' }), 'wrong-token');
});

void test('nkey server: the user seed connects, another user seed is refused', async () => {
  const user = nkeys.createUser();
  const other = nkeys.createUser();
  await using server = await startNatsServer({ extraConfig: [`authorization { users: [ { nkey: ${user.getPublicKey()} } ] }`] });
  const seedOf = (k: typeof user) => new TextDecoder().decode(k.getSeed());
  await connects(readNatsSettings({ NATS_URL: server.url, NATS_NKEY_SEED: seedOf(user) }));
  await refused(readNatsSettings({ NATS_URL: server.url, NATS_NKEY_SEED: seedOf(other) }), seedOf(other));
});
