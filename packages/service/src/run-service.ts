// The one startup path of every owrl service main. In order: shutdown signals are taken at once;
// every setting (the shared ones and the service's own) is read and checked before anything
// starts, a bad one exiting with status 2 and naming the variable; the logger and the meter are
// bound (pino, prom-client); /metrics and /healthz are served; the first NATS connection is
// awaited; then the service starts. Shutdown (a signal, the service ending, a fatal error) stops
// the service, drains the bus, closes the metrics server, flushes the log and only then exits:
// 0 after a signal or a normal end, 1 after a fatal error, 2 for bad configuration.
import { connectBus, describeNatsSettings, isBrokerUnavailable, type Bus } from '@owrl/bus';
import { ConfigError, envOneOf, type Env, type Logger, type Meter } from '@owrl/core';
import { isRunFileError, overlayEnv, readRunFile, runFileSettings, SERVICE_NAMES, type ServiceName } from '@owrl/run-file';
import { createLogger, LOG_LEVELS, PromMeter, startMetricsServer, type MetricsServer, type ServiceLogger } from '@owrl/telemetry';
import { Health } from './health.js';
import { readServiceSettings, type ServiceSettings } from './service-settings.js';

/** What a service's start() is given. */
export interface ServiceContext<C, B extends boolean = true> {
  /** The service name (`service` on every log line, the metrics' default label). */
  readonly name: string;
  /** The service's own settings, as its config function returned them. */
  readonly config: C;
  /** The service's logger (bound once, with the service's log bindings). */
  readonly logger: Logger;
  /** The service's meter (prom-client behind it, served on /metrics). */
  readonly meter: Meter;
  /** The connected bus (first connection awaited); null for a service declared with `bus: false`. */
  readonly bus: B extends false ? null : Bus;
  /** Named health checks served on /healthz; add the service's own. */
  readonly health: Health;
  /** Aborted when a shutdown begins, also while start() is still running: long start-up work should stop early. */
  readonly stopping: AbortSignal;
  /** Options for ensureTopology shared by every service (consumer ack waits from the environment). */
  readonly topology: ServiceSettings['topology'];
  /** Ends the service because of an error found in the background: stop, then exit 1. */
  fail(err: unknown): void;
}

/** What start() returns: the running service. */
export interface ServiceHandle {
  /** Stops the service's own parts (consumers, servers, browsers); the bus, metrics and log are the startup path's. */
  stop(reason: string): Promise<void>;
  /** Settles when the service ends on its own: resolved exits 0, rejected exits 1. */
  done?: Promise<void>;
}

export interface ServiceSpec<C, B extends boolean = true> {
  /** Service name, e.g. `judge`. */
  name: string;
  /**
   * Reads and checks the service's own settings from `env` (may read files they name).
   * @throws ConfigError naming the variable (the process exits 2).
   */
  config(env: Env): C | Promise<C>;
  /** false for a service without NATS; default true. */
  bus?: B;
  /**
   * Wait for NATS instead of failing (services that may start before NATS, or while it restarts):
   * keep retrying the first connect, and retry connecting and start() with backoff while they fail
   * because the broker is down or not ready yet (isBrokerUnavailable: timeouts, no responders, JetStream not
   * enabled or recovering). start() must then leave nothing running when it throws. Default
   * false: exit 1 when NATS is unreachable or start() fails.
   */
  waitOnFirstConnect?: boolean;
  /** Connection name shown by the NATS server; default `owrl-<name>-<pid>`. */
  connectionName?(config: C): string;
  /** Fields on every log line of the service (e.g. its actor id). */
  logBindings?(config: C): Record<string, unknown>;
  start(ctx: ServiceContext<C, B>): Promise<ServiceHandle>;
}

export interface RunOptions {
  /** Default process.env. */
  env?: Env;
  /** Longest wait for the log to flush before exiting; default 5000 ms. */
  flushTimeoutMs?: number;
  /** Longest wait for the bus to drain before closing it; default 10 000 ms. */
  drainTimeoutMs?: number;
}

export const ExitCode = { ok: 0, failed: 1, badConfig: 2 } as const;

/**
 * Runs a service as the process: settings, logger, meter, metrics server, bus, start, and the
 * shutdown on SIGTERM/SIGINT (a second signal exits at once with 1). Never returns control: the
 * process exits through it.
 */
export function runService<C, B extends boolean = true>(spec: ServiceSpec<C, B>, opts: RunOptions = {}): void {
  new ServiceRun<C, B>(spec, opts).begin();
}

class ServiceRun<C, B extends boolean> {
  readonly #spec: ServiceSpec<C, B>;
  #env: Env;
  readonly #opts: RunOptions;
  readonly #abort = new AbortController();
  readonly #health = new Health();
  #base: ServiceLogger | null = null;
  #log: Logger | null = null;
  #server: MetricsServer | null = null;
  #bus: Bus | null = null;
  #handle: ServiceHandle | null = null;
  #startup: Promise<void> = Promise.resolve();
  #stopping: Promise<void> | null = null;

  constructor(spec: ServiceSpec<C, B>, opts: RunOptions) {
    this.#spec = spec;
    this.#opts = opts;
    this.#env = opts.env ?? process.env;
  }

  begin(): void {
    // The process lives until the service stops and exits through #exit: a service that holds no
    // socket or timer (one without NATS, between its start and a signal) must not end on its own,
    // nor be caught by a signal while Node is tearing down, when handlers are gone.
    setInterval(() => {}, 1 << 30);
    for (const s of ['SIGTERM', 'SIGINT'] as const) process.on(s, () => this.#onSignal(s));
    process.on('uncaughtException', (e) => this.#fatal('uncaught exception', e));
    process.on('unhandledRejection', (e) => this.#fatal('unhandled rejection', e));
    this.#startup = this.#start().catch((e: unknown) => {
      if (e instanceof BadConfig) return this.#badConfig(e.error);
      this.#shutdown(ExitCode.failed, 'start failed', e);
    });
  }

  async #start(): Promise<void> {
    const spec = this.#spec;
    let runFile: string | null = null;
    let runFileError: ConfigError | null = null;
    try {
      runFile = this.#readRunFile();
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      runFileError = e; // reported once the logger is bound
    }
    // The level first, so that even a configuration error is logged at the level asked for.
    let level: (typeof LOG_LEVELS)[number] = 'info';
    try {
      level = envOneOf('OWRL_LOG_LEVEL', 'info', LOG_LEVELS, this.#env);
    } catch {
      // reported below by readServiceSettings
    }
    this.#base = createLogger(spec.name, { level });
    this.#log = this.#base;
    if (runFileError) throw new BadConfig(runFileError);
    let settings: ServiceSettings;
    let config: C;
    try {
      settings = readServiceSettings(this.#env, { bus: spec.bus !== false });
      config = await spec.config(this.#env);
    } catch (e) {
      throw e instanceof ConfigError ? new BadConfig(e) : e;
    }
    const log = (this.#log = spec.logBindings ? this.#base.child(spec.logBindings(config)) : this.#base);
    if (this.#abort.signal.aborted) return;
    log.info({ nats: settings.nats ? describeNatsSettings(settings.nats) : null, metricsPort: settings.metricsPort, runFile }, 'starting');

    const meter = new PromMeter(spec.name);
    this.#health.set('started', false);
    if (settings.metricsPort > 0) {
      this.#server = await startMetricsServer(meter, { port: settings.metricsPort, host: settings.metricsHost, health: () => this.#health.failing() });
    }
    if (settings.nats) {
      this.#health.check('nats', () => this.#bus !== null && !this.#bus.nc.isClosed());
      const nats = settings.nats;
      // A signal while waiting for NATS ends the wait: there is nothing to stop yet.
      const bus = await this.#untilBrokerReady('connecting', log, async () => {
        const connecting = connectBus({
          servers: nats.servers,
          auth: nats.auth,
          name: spec.connectionName?.(config) ?? `owrl-${spec.name}-${process.pid}`,
          logger: log,
          waitOnFirstConnect: spec.waitOnFirstConnect ?? false,
        });
        const b = await Promise.race([connecting, aborted(this.#abort.signal)]);
        if (b === null) connecting.then((late) => late.close(), () => {}).catch(() => {});
        return b;
      });
      if (bus === null) return;
      this.#bus = bus;
      bus.closed().then(
        () => {
          if (!this.#stopping) this.#shutdown(ExitCode.failed, 'nats connection closed', new Error('the NATS connection closed for good'));
        },
        () => {},
      );
    }
    if (this.#abort.signal.aborted) return;

    const ctx: ServiceContext<C, B> = {
      name: spec.name,
      config,
      logger: log,
      meter,
      bus: this.#bus as ServiceContext<C, B>['bus'],
      health: this.#health,
      stopping: this.#abort.signal,
      topology: settings.topology,
      fail: (err) => this.#shutdown(ExitCode.failed, 'failed', err),
    };
    this.#handle = await this.#untilBrokerReady('starting', log, () => spec.start(ctx));
    if (this.#handle === null || this.#abort.signal.aborted) return;
    this.#health.set('started', true);
    log.info({ metricsPort: this.#server?.port ?? 0 }, 'started');
    this.#handle.done?.then(
      () => this.#shutdown(ExitCode.ok, 'finished'),
      (e: unknown) => this.#shutdown(ExitCode.failed, 'failed', e),
    );
  }

  /**
   * OWRL_RUN_FILE: the run file's settings for this service under the environment's own (a
   * variable set in the environment wins). Returns the file's path, or null without one.
   * @throws ConfigError naming OWRL_RUN_FILE with the file's problems (FILE:LINE:COL: key: message).
   */
  #readRunFile(): string | null {
    const file = this.#env['OWRL_RUN_FILE'];
    if (file === undefined || file === '') return null;
    try {
      const loaded = readRunFile(file);
      const service = (SERVICE_NAMES as readonly string[]).includes(this.#spec.name) ? (this.#spec.name as ServiceName) : undefined;
      this.#env = overlayEnv(runFileSettings(loaded, this.#env, service).vars, this.#env);
      return loaded.file;
    } catch (e) {
      if (isRunFileError(e)) throw new ConfigError('OWRL_RUN_FILE', `OWRL_RUN_FILE=${file}:\n${e.message}`, { cause: e });
      throw e;
    }
  }

  /**
   * `fn()`, retried while it fails because the broker is unavailable (isBrokerUnavailable), when
   * the service waits for NATS: backoff 1 s doubling to 15 s, until it succeeds or a shutdown
   * begins (then null). Any other failure is thrown at once.
   */
  async #untilBrokerReady<T>(phase: string, log: Logger, fn: () => Promise<T | null>): Promise<T | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        if (!this.#spec.waitOnFirstConnect || !isBrokerUnavailable(e) || this.#bus?.nc.isClosed() === true) throw e;
        if (this.#abort.signal.aborted) return null;
        const waitMs = Math.min(1000 * 2 ** Math.min(attempt - 1, 4), 15_000);
        log.warn({ err: e, phase, attempt, waitMs }, 'NATS not ready (broker down or restarting); retrying');
        const slept = await Promise.race([new Promise<boolean>((r) => setTimeout(() => r(true), waitMs)), aborted(this.#abort.signal)]);
        if (slept === null) return null;
      }
    }
  }

  #onSignal(signal: NodeJS.Signals): void {
    if (this.#stopping) {
      this.#log?.warn({ signal }, 'second signal: exiting without finishing the shutdown');
      void this.#exit(ExitCode.failed);
      return;
    }
    this.#shutdown(ExitCode.ok, signal);
  }

  #fatal(what: string, e: unknown): void {
    if (this.#stopping) {
      this.#log?.error({ err: e }, `${what} while stopping`);
      return;
    }
    this.#shutdown(ExitCode.failed, what, e);
  }

  /** Starts the shutdown once; later calls only wait for it. */
  #shutdown(code: number, reason: string, err?: unknown): void {
    if (this.#stopping) return;
    this.#abort.abort(reason);
    this.#health.set('started', false);
    if (err !== undefined) {
      if (this.#log) this.#log.error({ reason, err }, 'fatal error');
      else process.stderr.write(`${this.#spec.name}: ${reason}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
    this.#stopping = this.#stop(code, reason);
  }

  async #stop(code: number, reason: string): Promise<void> {
    const log = this.#log;
    log?.info({ reason }, 'stopping');
    // A half-started service is never abandoned: its start() is awaited, then it is stopped.
    await this.#startup;
    let exit = code;
    if (this.#handle) {
      try {
        await this.#handle.stop(reason);
      } catch (e) {
        log?.error({ err: e }, 'stop failed');
        exit = ExitCode.failed;
      }
    }
    if (this.#bus) {
      const bus = this.#bus;
      const drained = await within(bus.drain().then(() => true), this.#opts.drainTimeoutMs ?? 10_000).catch((e: unknown) => {
        log?.warn({ err: e }, 'bus drain failed');
        return false;
      });
      if (drained !== true) await bus.close().catch(() => {});
    }
    await this.#server?.close();
    log?.info({ reason, code: exit }, 'stopped');
    await this.#exit(exit);
  }

  #badConfig(e: ConfigError): Promise<void> {
    process.stderr.write(`${this.#spec.name}: bad configuration: ${e.message}\n`);
    this.#log?.error({ variable: e.variable, err: e.message }, 'bad configuration');
    return this.#exit(ExitCode.badConfig);
  }

  async #exit(code: number): Promise<never> {
    if (this.#base) await within(this.#base.flush(), this.#opts.flushTimeoutMs ?? 5000).catch(() => {});
    process.exit(code);
  }
}

/** A ConfigError of the settings phase (a ConfigError thrown later is a start failure like any other). */
class BadConfig {
  constructor(readonly error: ConfigError) {}
}

/** Resolves null once `signal` is aborted (never rejects). */
function aborted(signal: AbortSignal): Promise<null> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(null);
    else signal.addEventListener('abort', () => resolve(null), { once: true });
  });
}

/** `p`, or undefined after `ms` (the timer does not hold the process open). */
function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const t = setTimeout(() => resolve(undefined), ms);
    t.unref();
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
