// NATS connection settings, read in one place from the environment a service is given: the
// server URLs and at most one authentication method. Secrets are held as core `Secret`s so the
// settings can be logged whole, and files (creds, nkey seed) are read and checked here, at
// start-up, so a bad one stops the service before anything starts.
//
//   NATS_URL              server URL(s), comma-separated (default nats://127.0.0.1:4222)
//   NATS_USER, NATS_PASSWORD   user and password
//   NATS_TOKEN            authentication token
//   NATS_CREDS            path of a creds file (user JWT + nkey seed, as nsc writes it)
//   NATS_NKEY_SEED        user nkey seed (SU...), or NATS_NKEY_SEED_FILE: a file holding it
import fs from 'node:fs';
import { ConfigError, envSecret, envString, Secret, type Env } from '@owrl/core';
import { nkeys } from '@nats-io/nats-core';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** How the client proves who it is; `none` for a server without authorization. */
export type NatsAuth =
  | { kind: 'none' }
  | { kind: 'user-password'; user: string; password: Secret }
  | { kind: 'token'; token: Secret }
  | { kind: 'creds'; file: string; creds: Secret }
  | { kind: 'nkey'; publicKey: string; seed: Secret };

export interface NatsSettings {
  servers: string[];
  auth: NatsAuth;
}

const SCHEMES = ['nats:', 'tls:', 'ws:', 'wss:'];

/**
 * The NATS settings of `env` (see the module header for the variables).
 * @throws ConfigError naming the variable: a URL that does not parse, two authentication
 *   methods at once, a user without a password, an unreadable or malformed creds or seed file.
 */
export function readNatsSettings(env: Env): NatsSettings {
  const servers = envString('NATS_URL', DEFAULT_NATS_URL, env)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (servers.length === 0) throw new ConfigError('NATS_URL', 'NATS_URL names no server');
  for (const s of servers) checkServer(s);

  const user = envString('NATS_USER', '', env);
  const password = envSecret('NATS_PASSWORD', env);
  const token = envSecret('NATS_TOKEN', env);
  const credsFile = envString('NATS_CREDS', '', env);
  const seed = envSecret('NATS_NKEY_SEED', env);
  const seedFile = envString('NATS_NKEY_SEED_FILE', '', env);

  const methods = [
    user !== '' || password.isSet ? 'NATS_USER/NATS_PASSWORD' : '',
    token.isSet ? 'NATS_TOKEN' : '',
    credsFile !== '' ? 'NATS_CREDS' : '',
    seed.isSet || seedFile !== '' ? 'NATS_NKEY_SEED' : '',
  ].filter((m) => m !== '');
  if (methods.length > 1) {
    throw new ConfigError(methods[1] as string, `NATS authentication: set one of ${methods.join(', ')}, not ${methods.length}`);
  }
  let auth: NatsAuth = { kind: 'none' };
  if (user !== '' || password.isSet) {
    if (user === '') throw new ConfigError('NATS_USER', 'NATS_PASSWORD is set but NATS_USER is not');
    if (!password.isSet) throw new ConfigError('NATS_PASSWORD', `NATS_USER=${JSON.stringify(user)} is set but NATS_PASSWORD is not`);
    auth = { kind: 'user-password', user, password };
  } else if (token.isSet) {
    auth = { kind: 'token', token };
  } else if (credsFile !== '') {
    const text = readSetting('NATS_CREDS', credsFile);
    if (!/-----BEGIN NATS USER JWT-----/.test(text) || !/BEGIN USER NKEY SEED/.test(text)) {
      throw new ConfigError('NATS_CREDS', `NATS_CREDS=${JSON.stringify(credsFile)} is not a creds file (no user JWT and nkey seed blocks)`);
    }
    auth = { kind: 'creds', file: credsFile, creds: new Secret(text) };
  } else if (seed.isSet || seedFile !== '') {
    if (seed.isSet && seedFile !== '') throw new ConfigError('NATS_NKEY_SEED_FILE', 'set NATS_NKEY_SEED or NATS_NKEY_SEED_FILE, not both');
    const variable = seed.isSet ? 'NATS_NKEY_SEED' : 'NATS_NKEY_SEED_FILE';
    const text = seed.isSet ? seed.reveal().trim() : readSetting(variable, seedFile).trim();
    auth = { kind: 'nkey', publicKey: userPublicKey(variable, text), seed: new Secret(text) };
  }
  return { servers, auth };
}

/** Settings for logs: URLs without their passwords, the method and the public part of the identity. */
export function describeNatsSettings(s: NatsSettings): { servers: string[]; auth: string; user?: string; publicKey?: string; file?: string } {
  const servers = s.servers.map(redactUrl);
  switch (s.auth.kind) {
    case 'user-password':
      return { servers, auth: s.auth.kind, user: s.auth.user };
    case 'nkey':
      return { servers, auth: s.auth.kind, publicKey: s.auth.publicKey };
    case 'creds':
      return { servers, auth: s.auth.kind, file: s.auth.file };
    default:
      return { servers, auth: s.auth.kind };
  }
}

/** `url` with the password of its user info replaced (nats://u:p@h → nats://u:[redacted]@h). */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:[redacted]@');
}

function checkServer(s: string): void {
  if (!s.includes('://')) {
    if (!/^[^\s/:]+(:\d{1,5})?$/.test(s)) throw new ConfigError('NATS_URL', `NATS_URL: ${JSON.stringify(redactUrl(s))} is not host[:port] or a nats:// URL`);
    return;
  }
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new ConfigError('NATS_URL', `NATS_URL: ${JSON.stringify(redactUrl(s))} is not a URL`);
  }
  if (!SCHEMES.includes(u.protocol)) throw new ConfigError('NATS_URL', `NATS_URL: ${JSON.stringify(redactUrl(s))} has scheme ${u.protocol} (want ${SCHEMES.join(' ')})`);
}

function readSetting(variable: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(variable, `${variable}=${JSON.stringify(file)} cannot be read: ${(e as Error).message}`, { cause: e });
  }
}

/** The public key of a user nkey seed; the message never shows the seed. */
function userPublicKey(variable: string, seed: string): string {
  if (!seed.startsWith('SU')) throw new ConfigError(variable, `${variable} is not a user nkey seed (a user seed starts with SU)`);
  try {
    return nkeys.fromSeed(new TextEncoder().encode(seed)).getPublicKey();
  } catch {
    throw new ConfigError(variable, `${variable} is not a valid nkey seed (checksum or encoding)`);
  }
}
