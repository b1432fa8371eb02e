// Metrics: a prom-client registry per service (no global default registry), histogram buckets
// sized for episodes, and a small HTTP server for /metrics and /healthz.
import http from 'node:http';
import { Registry, collectDefaultMetrics, Counter, Gauge, Histogram } from 'prom-client';

export { Registry, Counter, Gauge, Histogram };

/** Seconds: from 50 ms steps to 30-minute episodes. */
export const EPISODE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800];
/** Seconds: fast operations (judging, a step). */
export const FAST_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createRegistry(service: string, opts: { defaultMetrics?: boolean } = {}): Registry {
  const reg = new Registry();
  reg.setDefaultLabels({ service });
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: reg, prefix: 'owrl_' });
  return reg;
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves /metrics (Prometheus text) and /healthz (200 while `healthy()` is true). Port 0 = any free port. */
export async function startMetricsServer(reg: Registry, opts: { port: number; host?: string; healthy?: () => boolean }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.url === '/metrics') {
      reg.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': reg.contentType });
          res.end(text);
        },
        (e: unknown) => {
          res.writeHead(500);
          res.end(String(e));
        },
      );
      return;
    }
    if (req.url === '/healthz') {
      const ok = opts.healthy ? opts.healthy() : true;
      res.writeHead(ok ? 200 : 503);
      res.end(ok ? 'ok' : 'unhealthy');
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => resolve());
  });
  const addr = server.address();
  const port = addr !== null && typeof addr === 'object' ? addr.port : opts.port;
  return { port, close: () => new Promise<void>((r) => server.close(() => r())) };
}
