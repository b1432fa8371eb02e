// The HTTP face of a service's observability: /metrics (Prometheus text of the service's meter)
// and /healthz (200 `ok` while every health check passes, 503 naming the failing checks).
import http from 'node:http';

/** What /metrics serves (PromMeter is one). */
export interface MetricsSource {
  readonly contentType: string;
  render(): Promise<string>;
}

/** Names of the health checks that fail now; empty = healthy. */
export type HealthProbe = () => string[];

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves /metrics and /healthz on `port` (0 = any free port) at `host` (default 0.0.0.0).
 * @throws the listen error (e.g. EADDRINUSE) when the port cannot be bound.
 */
export async function startMetricsServer(source: MetricsSource, opts: { port: number; host?: string; health?: HealthProbe }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const url = (req.url ?? '').split('?')[0];
    if (url === '/metrics') {
      source.render().then(
        (text) => {
          res.writeHead(200, { 'content-type': source.contentType });
          res.end(text);
        },
        (e: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(e));
        },
      );
      return;
    }
    if (url === '/healthz') {
      const failing = opts.health ? opts.health() : [];
      res.writeHead(failing.length === 0 ? 200 : 503, { 'content-type': 'text/plain' });
      res.end(failing.length === 0 ? 'ok\n' : `unhealthy: ${failing.join(', ')}\n`);
      return;
    }
    res.writeHead(404);
    res.end();
  });
  // Keep-alive sockets of a scraper must not hold close() open.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  const port = addr !== null && typeof addr === 'object' ? addr.port : opts.port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
