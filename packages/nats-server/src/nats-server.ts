// A real nats-server with JetStream (or without, on request) as a child process: on a free port, with its own store
// directory; can be stopped and restarted on the same port and store (fault tests).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';

export interface NatsServerOptions {
  /** Path of the nats-server binary; default: $NATS_SERVER_BIN, then the Debian paths, then `nats-server` on PATH. */
  bin?: string;
  /** Maximum message payload in bytes (server default 1 MiB). */
  maxPayload?: number;
  /** Extra config file lines. */
  extraConfig?: string[];
  /** false: a server without JetStream (what a client meets while a broker's JetStream is not ready yet). Default true. */
  jetstream?: boolean;
  /** Listen on this port (e.g. one a test held with a server of its own); default a free one. */
  port?: number;
}

export interface NatsServer extends AsyncDisposable {
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  readonly version: string;
  /** Kills the server (SIGKILL when `hard`), keeping its store. */
  stop(hard?: boolean): Promise<void>;
  /** Starts it again on the same port and store. */
  restart(): Promise<void>;
  /** Stops it and removes its store. */
  dispose(): Promise<void>;
}

function findBinary(bin: string | undefined): string {
  const candidates = [bin, process.env['NATS_SERVER_BIN'], '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];
  for (const c of candidates) if (c && fs.existsSync(c)) return c;
  try {
    return execFileSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`nats-server not found${bin ? ` at ${bin}` : ''}: install it (Debian: apt-get install nats-server) or set NATS_SERVER_BIN`);
  }
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with code ${child.exitCode} before listening`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`);
}

/** Starts a JetStream-enabled nats-server on a free port. */
export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServer> {
  const bin = findBinary(opts.bin);
  const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  const port = opts.port ?? (await freePort());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-nats-'));
  const storeDir = path.join(dir, 'js');
  const conf = path.join(dir, 'nats.conf');
  const lines = [
    `listen: 127.0.0.1:${port}`,
    ...(opts.jetstream === false ? [] : [`jetstream { store_dir: ${JSON.stringify(storeDir)} }`]),
    ...(opts.maxPayload ? [`max_payload: ${opts.maxPayload}`] : []),
    ...(opts.extraConfig ?? []),
  ];
  fs.writeFileSync(conf, lines.join('\n') + '\n');
  let child: ChildProcess | null = null;
  let stderr = '';

  const start = async () => {
    stderr = '';
    const c = spawn(bin, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    c.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    child = c;
    try {
      await waitForPort(port, c, 10_000);
    } catch (e) {
      c.kill('SIGKILL');
      throw new Error(`${(e as Error).message}\n${stderr}`);
    }
  };
  const stop = async (hard = false) => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill(hard ? 'SIGKILL' : 'SIGTERM');
    await exited;
    child = null;
  };
  await start();
  const server: NatsServer = {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    version,
    stop,
    restart: start,
    dispose: async () => {
      await stop(true);
      fs.rmSync(dir, { recursive: true, force: true });
    },
    [Symbol.asyncDispose]: async () => server.dispose(),
  };
  return server;
}
