// Free TCP ports on 127.0.0.1, for local servers (the demo's, the tests').
import net from 'node:net';

async function listenOnAny(): Promise<net.Server> {
  return await new Promise<net.Server>((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  });
}

function portOf(srv: net.Server): number {
  const addr = srv.address();
  if (addr === null || typeof addr === 'string') throw new Error('no port assigned');
  return addr.port;
}

async function closeAll(servers: net.Server[]): Promise<void> {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
}

/** A free port on 127.0.0.1 that this process has not handed out before (freePorts(1)). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/**
 * Ports this process has handed out. A port is free when handed out, but its server may bind it
 * only later; until then the kernel may offer it again, to this process or another. Never handing
 * one out twice closes the race inside one process (a test that takes a port per service, then
 * starts them: two of the deploy test's host ports once came out equal).
 */
const handedOut = new Set<number>();

/**
 * `n` distinct free ports on 127.0.0.1, none handed out before by this process. Every port stays
 * held until all n are found, so the kernel cannot offer one twice.
 * @throws Error naming `n` when it is not a positive integer.
 */
export async function freePorts(n: number): Promise<number[]> {
  if (!Number.isInteger(n) || n < 1) throw new Error(`freePorts: n must be a positive integer, got ${n}`);
  const held: net.Server[] = [];
  const ports: number[] = [];
  try {
    // A port handed out before is held too, so the kernel moves on; 1000 such tries bound a
    // process that has taken most of the range.
    for (let tries = 0; ports.length < n; tries++) {
      if (tries >= n + 1000) throw new Error(`freePorts: found ${ports.length} of ${n} ports not handed out before`);
      const srv = await listenOnAny();
      held.push(srv);
      const port = portOf(srv);
      if (!handedOut.has(port)) ports.push(port);
    }
    for (const p of ports) handedOut.add(p);
    return ports;
  } finally {
    await closeAll(held);
  }
}
