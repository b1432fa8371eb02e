// The pieces of a local owrl stack that the demo, `owrl eval`, `owrl sft export` and the warm-up
// start: a JetStream server (unless NATS_URL names one), the bundled sites, the judge and N actors
// as child processes of a ProcessGroup, with the environment every service shares; and a sites
// server for a one-off command (useSites).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startNatsServer, type NatsServer } from '@owrl/nats-server';
import { ProcessGroup } from './run/processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
/** A run file of this repository's examples/ (`owrl demo` runs demo.yaml). */
export const exampleFile = (name: string): string => path.join(ROOT, 'examples', name);

/** The built entry point of a service of this repository. */
export const serviceMain = (name: string): string => path.join(ROOT, 'services', name, 'dist', 'src', 'main.js');

/** Resolves once `url` answers 2xx. @throws Error naming the URL after `timeoutMs`. */
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

/** Largest message the local stack allows (screenshots travel inside trajectories up to it). */
export const STACK_MAX_PAYLOAD = 8 * 1024 * 1024;

export interface Broker {
  url: string;
  /** Stops the server when this command started it; a no-op for NATS_URL. */
  dispose(): Promise<void>;
}

/** `given` (default NATS_URL) when set, else a JetStream nats-server started for this command (NATS_SERVER_BIN picks the binary). */
export async function startBroker(out: (line: string) => void, given = process.env['NATS_URL'] ?? ''): Promise<Broker> {
  if (given) {
    out(`using NATS at ${given}`);
    return { url: given, dispose: () => Promise.resolve() };
  }
  const nats: NatsServer = await startNatsServer({ maxPayload: STACK_MAX_PAYLOAD });
  out(`started nats-server (${nats.version}) with JetStream at ${nats.url}`);
  return { url: nats.url, dispose: () => nats.dispose() };
}

/** The environment every service of the stack gets. */
export function commonEnv(natsUrl: string): Record<string, string> {
  return { NATS_URL: natsUrl, OWRL_LOG_LEVEL: process.env['OWRL_LOG_LEVEL'] ?? 'info', OWRL_MAX_PAYLOAD: String(STACK_MAX_PAYLOAD) };
}

/** The bundled sites on `port` (a free one when 0); returns its origin. The caller waits for health. */
export async function startSites(procs: ProcessGroup, common: Record<string, string>, port = 0): Promise<{ url: string; host: string }> {
  const p = port || (await freePort());
  procs.start('sites', serviceMain('sites'), { ...common, OWRL_SITES_PORT: String(p), OWRL_SITES_HOST: '127.0.0.1' });
  return { url: `http://127.0.0.1:${p}`, host: `127.0.0.1:${p}` };
}

export function startJudge(procs: ProcessGroup, common: Record<string, string>): void {
  procs.start('judge', serviceMain('judge'), { ...common });
}

/** Debian's old headless shell (package chromium-headless-shell): Chromium without the browser UI. */
export const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';

/**
 * The Chromium for actors on the bundled sites: OWRL_CHROMIUM when set, else the headless shell
 * when installed, else undefined (the actor's default, the full /usr/bin/chromium). On the bundled
 * sites the shell does the same episodes (the same steps, effects and rewards, seed for seed) for
 * about a third less CPU per step: the full browser's UI process and its compositor are most of
 * the difference (`npm run bench -- episode`, docs/sizing.md). On live sites the full browser stays the
 * default: its fingerprint is a real Chrome's, which bot walls check.
 */
export function bundledSitesChromium(env: NodeJS.ProcessEnv = process.env, exists: (p: string) => boolean = fs.existsSync): string | undefined {
  const set = env['OWRL_CHROMIUM'];
  if (set !== undefined && set !== '') return set;
  return exists(HEADLESS_SHELL) ? HEADLESS_SHELL : undefined;
}

export interface ActorsOptions {
  actors: number;
  slots: number;
  /** host:port entries the browsers may reach besides public hosts (the bundled sites). */
  allowHosts: string[];
  /** The actors' Chromium (OWRL_CHROMIUM); the actor's default when unset. */
  chromium?: string | undefined;
  /** Extra settings of every actor (e.g. OWRL_POLICY=openai). */
  env?: Record<string, string>;
}

/** Starts `actor-1` … `actor-N`. */
export function startActors(procs: ProcessGroup, common: Record<string, string>, o: ActorsOptions): void {
  for (let i = 0; i < o.actors; i++) {
    procs.start(`actor-${i + 1}`, serviceMain('actor'), {
      ...common,
      OWRL_ACTOR_ID: `actor-${i + 1}`,
      OWRL_SLOTS: String(o.slots),
      OWRL_ALLOW_HOSTS: o.allowHosts.join(','),
      ...(o.chromium !== undefined ? { OWRL_CHROMIUM: o.chromium } : {}),
      ...(o.env ?? {}),
    });
  }
}

export interface SitesHandle {
  url: string;
  /** host:port the browser must be allowed to reach. */
  host: string;
  close(): Promise<void>;
}

/**
 * `url` when given (checked for health), else a sites server started for this command on `port`
 * (a free one when 0) and stopped by close().
 */
export async function useSites(url: string | undefined, port = 0): Promise<SitesHandle> {
  if (url !== undefined && url !== '') {
    const u = new URL(url);
    await waitHttp(new URL('/__owrl/health', u).href, 10_000);
    return { url: u.origin, host: u.host, close: () => Promise.resolve() };
  }
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-sites-'));
  const procs = new ProcessGroup(logDir);
  const sites = await startSites(procs, { OWRL_LOG_LEVEL: 'warn' }, port);
  try {
    await waitHttp(`${sites.url}/__owrl/health`, 30_000);
  } catch (e) {
    await procs.stopAll();
    throw new Error(`the bundled sites did not start on ${sites.host}: ${(e as Error).message}\n${procs.procs[0] ? procs.tail(procs.procs[0]) : ''}`, { cause: e });
  }
  return {
    ...sites,
    close: async () => {
      await procs.stopAll();
      fs.rmSync(logDir, { recursive: true, force: true });
    },
  };
}
