// A free TCP port on 127.0.0.1, for local servers (the demo's, the tests').
import net from 'node:net';

export async function freePort(): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      if (addr === null || typeof addr === 'string') {
        srv.close();
        reject(new Error('no port assigned'));
        return;
      }
      srv.close(() => resolve(addr.port));
    });
  });
}
