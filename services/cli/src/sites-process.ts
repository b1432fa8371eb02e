// A bundled sites server for a one-off command (sft export, warm-up, eval): the given URL, or the
// sites service started as a child process on a free port and stopped with the command.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from '@owrl/nats-server';
import { ProcessGroup } from './demo/processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const serviceMain = (name: string): string => path.join(ROOT, 'services', name, 'dist', 'src', 'main.js');

export async function waitHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface SitesHandle {
  url: string;
  /** host:port the browser must be allowed to reach. */
  host: string;
  close(): Promise<void>;
}

/** `url` when given (checked for health), else a sites server started for this command. */
export async function useSites(url: string | undefined): Promise<SitesHandle> {
  if (url !== undefined && url !== '') {
    const u = new URL(url);
    await waitHttp(new URL('/__owrl/health', u).href, 10_000);
    return { url: u.origin, host: u.host, close: () => Promise.resolve() };
  }
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-sites-'));
  const procs = new ProcessGroup(logDir);
  const port = await freePort();
  procs.start('sites', serviceMain('sites'), { OWRL_SITES_PORT: String(port), OWRL_SITES_HOST: '127.0.0.1', OWRL_LOG_LEVEL: 'warn' });
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitHttp(`${origin}/__owrl/health`, 30_000);
  } catch (e) {
    await procs.stopAll();
    throw e;
  }
  return {
    url: origin,
    host: `127.0.0.1:${port}`,
    close: async () => {
      await procs.stopAll();
      fs.rmSync(logDir, { recursive: true, force: true });
    },
  };
}
