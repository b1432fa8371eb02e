// Whole-system harness for tests: a fresh nats-server, the bundled sites, the learner, the judge
// and N actors as separate child processes started from their built mains
// (services/<name>/dist/src/main.js), each on free ports with its own log file. Tests kill and
// restart processes (kill, restart), stop and restart the broker, and await what matters (the
// learner reachable over gRPC, a run phase, rounds finished, actors registered in KV owrl_actors,
// a log line). Disposal kills whole process groups, so no Chromium outlives a test.
//
//   await using sys = await startSystem({ actors: 2, slots: 2, learnerEnv: { OWRL_ROUNDS: '2' } });
//   await sys.waitForActors(2);
//   await sys.kill('actor-1', 'SIGKILL');
//   const state = await sys.waitForPhase(RunPhase.FINISHED);
//
// An unexpected exit of any process (one not asked for by kill/stop/restart) makes every wait
// fail at once with that process's log tail, instead of running into a timeout.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { health, RunPhase, type RunState } from '@owrl/proto';
import { freePort, freePorts } from '@owrl/nats-server';
import { LearnerProbe } from './learner-probe.js';
import { startNatsServer, type NatsServer, type NatsServerOptions } from './nats-server.js';
import { ServiceProcess, type ServiceExit } from './service-process.js';
import { waitUntil, type WaitOptions } from './wait.js';

/** The kinds of service the harness knows how to wire. */
export type ServiceKind = 'sites' | 'learner' | 'judge' | 'actor';

export interface SystemOptions {
  /** Repository root holding services/<name>/dist/src/main.js. Default: found from this file. */
  root?: string;
  /** Use this NATS instead of starting one (e.g. a server with users configured). */
  natsUrl?: string;
  /** Options of the nats-server started when `natsUrl` is unset. Default `maxPayload` 8 MiB. */
  nats?: NatsServerOptions;
  /** Connection options of the harness's own NATS client (credentials, when the server needs them). */
  natsClient?: Partial<ConnectionOptions>;
  /** Run id of the learner. Default `sys-<pid>-<n>`. */
  runId?: string;
  /** Actors started at once (`actor-1` … `actor-N`). Default 1. */
  actors?: number;
  /** Browser slots per actor. Default 2. */
  slots?: number;
  /** Environment for every service, over the harness's wiring (e.g. NATS credentials, log level). */
  env?: Record<string, string>;
  sitesEnv?: Record<string, string>;
  learnerEnv?: Record<string, string>;
  judgeEnv?: Record<string, string>;
  /** Environment of every actor. */
  actorEnv?: Record<string, string>;
  /** Services started by startSystem; the others are defined and can be started later with start(). Default all. */
  autostart?: { sites?: boolean; learner?: boolean; judge?: boolean; actors?: boolean };
  /** Folder of the log files. Default a fresh temporary folder, removed on dispose unless keepLogs. */
  logDir?: string;
  /** Keep the log folder after dispose (also when OWRL_KEEP_LOGS=1). */
  keepLogs?: boolean;
  /** SIGTERM grace per process on dispose before SIGKILL. Default 10 s. */
  stopGraceMs?: number;
}

/** A live actor as read from KV owrl_actors. */
export interface RegisteredActor {
  actorId: string;
  slots: number;
  busy: number;
  policyVersion: number;
  episodes: number;
  updatedAtMs: number;
}

export interface OwrlSystem extends AsyncDisposable {
  readonly runId: string;
  readonly natsUrl: string;
  /** The nats-server the harness started; null when `natsUrl` was given. */
  readonly nats: NatsServer | null;
  readonly sitesUrl: string;
  /** host:port of the learner's gRPC server. */
  readonly grpcAddress: string;
  readonly logDir: string;
  /** Folder of the learner's checkpoints and artifacts (kept across learner restarts). */
  readonly learnerDataDir: string;
  /** Names of every defined process, in start order. */
  names(): string[];
  /** The process called `name` (`sites`, `learner`, `judge`, `actor-<i>`). @throws Error on an unknown name. */
  process(name: string): ServiceProcess;
  /** `http://127.0.0.1:<port>` of a service's metrics server (/metrics, /healthz). */
  metricsUrl(name: string): string;
  /** Starts a defined process that is not running. */
  start(name: string): void;
  /** Defines and starts another actor (`actor-<n+1>` unless `id` is given); returns its name. */
  addActor(opts?: { id?: string; env?: Record<string, string> }): Promise<string>;
  /** Sends `signal` to the process group of `name` and waits for it to exit. */
  kill(name: string, signal?: NodeJS.Signals): Promise<ServiceExit>;
  /** Stops `name` (SIGTERM, then SIGKILL after `graceMs`) unless already stopped, then starts it again with the same environment and ports. */
  restart(name: string, opts?: { graceMs?: number; signal?: NodeJS.Signals }): Promise<void>;
  /** The harness's gRPC client of the learner. */
  learner(): LearnerProbe;
  runState(timeoutMs?: number): Promise<RunState>;
  /** Resolves once the learner answers health checks as SERVING. */
  waitForLearner(opts?: WaitOptions): Promise<void>;
  /** Resolves with the run state once its phase is one of `phases`; a FAILED phase not asked for rejects. */
  waitForPhase(phases: RunPhase | RunPhase[], opts?: WaitOptions): Promise<RunState>;
  /** Resolves with the run state once at least `n` rounds are finished. */
  waitForRounds(n: number, opts?: WaitOptions): Promise<RunState>;
  /** Resolves with the run state once `probe` holds for it. */
  waitForState(what: string, probe: (s: RunState) => boolean, opts?: WaitOptions): Promise<RunState>;
  /** Live actors in KV owrl_actors (sorted by id). */
  actors(): Promise<RegisteredActor[]>;
  /** Resolves once at least `n` actors (or exactly the given ids) are live in KV owrl_actors. */
  waitForActors(n: number | string[], opts?: WaitOptions): Promise<RegisteredActor[]>;
  /** Resolves with the first pino line of `name` for which `match` holds (lines already written count). */
  waitForLog(name: string, match: (line: Record<string, unknown>) => boolean, opts?: WaitOptions): Promise<Record<string, unknown>>;
  /** The harness's NATS connection (reconnects across server restarts). */
  natsConnection(): Promise<NatsConnection>;
  /** The first unexpected exit, as an error with the log tail; null while all is well. */
  failure(): Error | null;
  /** Stops every process (whole groups), the harness's clients and the nats-server it started. */
  dispose(): Promise<void>;
}

interface Spec {
  kind: ServiceKind;
  proc: ServiceProcess;
  metricsPort: number;
}

const DEFAULT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
let systems = 0;

/** Environment of the test runner without owrl's and NATS's own variables (so nothing leaks in by accident). */
function baseEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('OWRL_') || k.startsWith('NATS_')) continue;
    out[k] = v;
  }
  return out;
}

/** Starts a whole owrl system as child processes; see the module comment. */
export async function startSystem(opts: SystemOptions = {}): Promise<OwrlSystem> {
  const root = opts.root ?? DEFAULT_ROOT;
  const main = (name: string) => {
    const p = path.join(root, 'services', name, 'dist', 'src', 'main.js');
    if (!fs.existsSync(p)) throw new Error(`${p} is missing: run npm run build first`);
    return p;
  };
  const runId = opts.runId ?? `sys-${process.pid}-${++systems}`;
  const logDir = opts.logDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-sys-'));
  fs.mkdirSync(logDir, { recursive: true });
  const keepLogs = opts.keepLogs ?? process.env['OWRL_KEEP_LOGS'] === '1';
  const learnerDataDir = path.join(logDir, 'learner-data');
  const nats = opts.natsUrl === undefined ? await startNatsServer({ maxPayload: 8 * 1024 * 1024, ...opts.nats }) : null;
  const natsUrl = opts.natsUrl ?? (nats as NatsServer).url;
  const [sitesPort, grpcPort, artifactPort] = (await freePorts(3)) as [number, number, number];
  const sitesUrl = `http://127.0.0.1:${sitesPort}`;
  const grpcAddress = `127.0.0.1:${grpcPort}`;
  const slots = opts.slots ?? 2;
  const common: Record<string, string> = {
    ...baseEnv(),
    NATS_URL: natsUrl,
    OWRL_LOG_LEVEL: 'info',
    OWRL_MAX_PAYLOAD: String(opts.nats?.maxPayload ?? 8 * 1024 * 1024),
    ...opts.env,
  };

  const specs = new Map<string, Spec>();
  let firstFailure: Error | null = null;
  let disposing = false;
  const onUnexpectedExit = (p: ServiceProcess, exit: ServiceExit) => {
    if (disposing) return;
    firstFailure ??= new Error(`${p.name} exited unexpectedly (code ${exit.code}, signal ${exit.signal}); last lines of ${p.logFile}:\n${p.tail()}`);
  };
  const define = async (name: string, kind: ServiceKind, env: Record<string, string>): Promise<Spec> => {
    if (specs.has(name)) throw new Error(`a process called ${name} already exists`);
    const metricsPort = kind === 'sites' ? 0 : await freePort();
    const proc = new ServiceProcess({
      name,
      script: main(kind),
      env: { ...common, ...(metricsPort > 0 ? { OWRL_METRICS_PORT: String(metricsPort) } : {}), ...env },
      logFile: path.join(logDir, `${name}.log`),
    });
    proc.onUnexpectedExit = onUnexpectedExit;
    const spec = { kind, proc, metricsPort };
    specs.set(name, spec);
    return spec;
  };
  const get = (name: string): Spec => {
    const s = specs.get(name);
    if (!s) throw new Error(`no process called ${name}; there are: ${[...specs.keys()].join(', ')}`);
    return s;
  };

  await define('sites', 'sites', { OWRL_SITES_HOST: '127.0.0.1', OWRL_SITES_PORT: String(sitesPort), ...opts.sitesEnv });
  await define('learner', 'learner', {
    OWRL_RUN_ID: runId,
    OWRL_SITES_URL: sitesUrl,
    OWRL_GRPC_HOST: '127.0.0.1',
    OWRL_GRPC_PORT: String(grpcPort),
    OWRL_ARTIFACT_HOST: '127.0.0.1',
    OWRL_ARTIFACT_PORT: String(artifactPort),
    OWRL_ADVERTISE_HOST: '127.0.0.1',
    OWRL_DATA_DIR: learnerDataDir,
    ...opts.learnerEnv,
  });
  await define('judge', 'judge', { ...opts.judgeEnv });
  let actorCount = 0;
  const actorEnv = (id: string, extra: Record<string, string> = {}) => ({
    OWRL_ACTOR_ID: id,
    OWRL_SLOTS: String(slots),
    OWRL_ALLOW_HOSTS: `127.0.0.1:${sitesPort}`,
    ...opts.actorEnv,
    ...extra,
  });
  const actorNames: string[] = [];
  for (let i = 0; i < (opts.actors ?? 1); i++) {
    const id = `actor-${++actorCount}`;
    await define(id, 'actor', actorEnv(id));
    actorNames.push(id);
  }

  let probe: LearnerProbe | null = null;
  let nc: NatsConnection | null = null;
  const learner = () => (probe ??= new LearnerProbe(grpcAddress));
  const natsConnection = async () =>
    (nc ??= await connect({ servers: natsUrl, name: `owrl-testkit-${runId}`, maxReconnectAttempts: -1, reconnectTimeWait: 250, ...opts.natsClient }));
  const abort = () => firstFailure;
  const withAbort = (o: WaitOptions | undefined): WaitOptions => ({ abort, ...o });

  const actors = async (): Promise<RegisteredActor[]> => {
    const kv = await new Kvm(await natsConnection()).open('owrl_actors');
    const out: RegisteredActor[] = [];
    for await (const key of await kv.keys()) {
      const e = await kv.get(key);
      if (e === null || e.operation !== 'PUT') continue;
      try {
        out.push(e.json<RegisteredActor>());
      } catch {
        // not an actor record
      }
    }
    return out.sort((a, b) => a.actorId.localeCompare(b.actorId));
  };
  const waitForState = (what: string, test: (s: RunState) => boolean, o?: WaitOptions) =>
    waitUntil(
      what,
      async () => {
        const s = await learner().getRunState(3000);
        if (test(s)) return s;
        if (s.phase === RunPhase.FAILED) throw new Error(`the run failed (${s.failureCode}): ${s.message}`);
        return undefined;
      },
      { timeoutMs: 300_000, intervalMs: 250, ...withAbort(o) },
    );

  const sys: OwrlSystem = {
    runId,
    natsUrl,
    nats,
    sitesUrl,
    grpcAddress,
    logDir,
    learnerDataDir,
    names: () => [...specs.keys()],
    process: (name) => get(name).proc,
    metricsUrl: (name) => {
      const s = get(name);
      if (s.metricsPort === 0) throw new Error(`${name} serves no metrics`);
      return `http://127.0.0.1:${s.metricsPort}`;
    },
    start: (name) => get(name).proc.start(),
    addActor: async (o = {}) => {
      const id = o.id ?? `actor-${++actorCount}`;
      (await define(id, 'actor', actorEnv(id, o.env))).proc.start();
      return id;
    },
    kill: (name, signal = 'SIGKILL') => get(name).proc.kill(signal),
    restart: async (name, o = {}) => {
      const p = get(name).proc;
      if (p.running) {
        if (o.signal) await p.kill(o.signal);
        else await p.stop(o.graceMs ?? 10_000);
      }
      p.start();
    },
    learner,
    runState: (t = 5000) => learner().getRunState(t),
    waitForLearner: async (o) => {
      await waitUntil(
        'the learner to serve gRPC',
        async () => ((await learner().healthCheck('', 2000)) === health.HealthCheckResponse_ServingStatus.SERVING ? true : undefined),
        { timeoutMs: 60_000, intervalMs: 200, ...withAbort(o) },
      );
    },
    waitForPhase: (phases, o) => {
      const want = Array.isArray(phases) ? phases : [phases];
      return waitForState(`run phase ${want.map((p) => RunPhase[p]).join(' or ')}`, (s) => want.includes(s.phase), o);
    },
    waitForRounds: (n, o) => waitForState(`${n} rounds finished`, (s) => s.rounds.length >= n, o),
    waitForState,
    actors,
    waitForActors: (n, o) =>
      waitUntil(
        typeof n === 'number' ? `${n} actors registered` : `actors ${n.join(', ')} registered`,
        async () => {
          const live = await actors();
          const ids = new Set(live.map((a) => a.actorId));
          const ok = typeof n === 'number' ? live.length >= n : n.every((id) => ids.has(id));
          return ok ? live : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 250, ...withAbort(o) },
      ),
    waitForLog: (name, match, o) => {
      const p = get(name).proc;
      return waitUntil(`a matching log line of ${name}`, () => p.jsonLines().find(match), { timeoutMs: 60_000, intervalMs: 100, ...withAbort(o) });
    },
    natsConnection,
    failure: () => firstFailure,
    dispose: async () => {
      if (disposing) return;
      disposing = true;
      probe?.close();
      const procs = [...specs.values()].map((s) => s.proc).reverse();
      await Promise.all(procs.map((p) => p.stop(opts.stopGraceMs ?? 10_000)));
      await nc?.close().catch(() => {});
      await nats?.dispose();
      if (!keepLogs && opts.logDir === undefined) fs.rmSync(logDir, { recursive: true, force: true });
    },
    [Symbol.asyncDispose]: () => sys.dispose(),
  };

  const auto = { sites: true, learner: true, judge: true, actors: true, ...opts.autostart };
  try {
    if (auto.sites) {
      sys.start('sites');
      await waitUntil(
        'the sites to answer /__owrl/health',
        async () => ((await fetch(`${sitesUrl}/__owrl/health`, { signal: AbortSignal.timeout(2000) })).ok ? true : undefined),
        { timeoutMs: 30_000, intervalMs: 100, abort },
      );
    }
    if (auto.learner) sys.start('learner');
    if (auto.judge) sys.start('judge');
    if (auto.actors) for (const a of actorNames) sys.start(a);
  } catch (e) {
    await sys.dispose();
    throw e;
  }
  return sys;
}
