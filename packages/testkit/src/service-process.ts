// One service of a test system as a child process: a Node script started in its own process group
// with a given environment, stdout and stderr captured to a log file, signals sent to the whole
// group, and restart with the same script and environment. Processes that left the group
// (Playwright runs Chromium in a group of its own) are found as descendants before each signal
// and their groups are killed once the service has exited, so nothing outlives a kill or stop.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { isProcessAlive, procDescendants } from '@owrl/core';

export interface ServiceExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcessOptions {
  /** Name used in messages and as the log file's stem. */
  name: string;
  /** Script run by the current Node binary. */
  script: string;
  /** Whole environment of the child (not merged with anything). */
  env: Record<string, string>;
  /** File that receives the child's stdout and stderr (appended across restarts). */
  logFile: string;
  /** Extra arguments for node before the script (e.g. --max-old-space-size). */
  nodeArgs?: string[];
}

/** A service child process; see the module comment. */
export class ServiceProcess {
  readonly name: string;
  readonly logFile: string;
  private child: ChildProcess | null = null;
  private exitPromise: Promise<ServiceExit> = Promise.resolve({ code: null, signal: null });
  private lastExit: ServiceExit | null = null;
  private expectExit_ = false;
  private starts = 0;
  private snapshot = new Set<number>();

  /** Called when the process exits without kill()/stop() having been asked for. */
  onUnexpectedExit: ((p: ServiceProcess, exit: ServiceExit) => void) | null = null;

  constructor(private readonly opts: ServiceProcessOptions) {
    this.name = opts.name;
    this.logFile = opts.logFile;
  }

  /** Environment the process runs with (a copy). */
  get env(): Record<string, string> {
    return { ...this.opts.env };
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** How the last run ended; null while running or before the first start. */
  get exit(): ServiceExit | null {
    return this.lastExit;
  }

  /** How many times the process has been started. */
  get startCount(): number {
    return this.starts;
  }

  /** Starts the process. @throws Error when it is already running. */
  start(): void {
    if (this.running) throw new Error(`${this.name} is already running (pid ${this.child?.pid})`);
    const fd = fs.openSync(this.logFile, 'a');
    this.expectExit_ = false;
    this.lastExit = null;
    const child = spawn(process.execPath, [...(this.opts.nodeArgs ?? []), this.opts.script], {
      env: this.opts.env,
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    fs.closeSync(fd);
    this.child = child;
    this.starts++;
    this.exitPromise = new Promise<ServiceExit>((resolve) => {
      child.once('exit', (code, signal) => {
        const exit = { code, signal };
        this.lastExit = exit;
        // Whatever the service left in its group goes with it, and so do the groups of the
        // descendants seen before the last signal (browsers).
        signalGroup(child, 'SIGKILL');
        this.killSnapshot();
        if (!this.expectExit_) this.onUnexpectedExit?.(this, exit);
        resolve(exit);
      });
    });
  }

  /** Resolves when the current run ends (at once if not running). */
  exited(): Promise<ServiceExit> {
    return this.exitPromise;
  }

  /**
   * Sends `signal` to the process group and waits for the process to exit; with `expect: false`
   * the exit is reported as unexpected (for a signal the test does not mean to end it with).
   */
  async kill(signal: NodeJS.Signals = 'SIGKILL', opts: { expect?: boolean } = {}): Promise<ServiceExit> {
    const c = this.child;
    if (!c || !this.running) return this.lastExit ?? { code: null, signal: null };
    this.expectExit_ = opts.expect ?? true;
    this.takeSnapshot();
    signalGroup(c, signal);
    return await this.exitPromise;
  }

  /** Marks the current run's end as expected (a process told to end itself, e.g. a crash-point test). */
  expectExit(): void {
    this.expectExit_ = true;
  }

  /** Changes the environment of later starts: a value sets the variable, undefined removes it. */
  setEnv(patch: Record<string, string | undefined>): void {
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) delete this.opts.env[k];
      else this.opts.env[k] = v;
    }
  }

  /** Sends a signal without waiting (e.g. SIGTERM, then watch the drain). */
  signal(signal: NodeJS.Signals): void {
    if (!this.child || !this.running) return;
    this.expectExit_ = true;
    this.takeSnapshot();
    signalGroup(this.child, signal);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit. */
  async stop(graceMs = 10_000): Promise<ServiceExit> {
    const c = this.child;
    if (!c || !this.running) return this.lastExit ?? { code: null, signal: null };
    this.expectExit_ = true;
    this.takeSnapshot();
    signalGroup(c, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(c, 'SIGKILL'), graceMs);
    try {
      return await this.exitPromise;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Pids of the live descendants of the process (Chromium and its helpers for an actor). */
  descendantPids(): number[] {
    return this.child?.pid === undefined || !this.running ? [] : procDescendants(this.child.pid).map((p) => p.pid);
  }

  private takeSnapshot(): void {
    if (this.child?.pid === undefined) return;
    for (const p of procDescendants(this.child.pid)) this.snapshot.add(p.pgid === this.child.pid ? p.pid : -p.pgid);
  }

  private killSnapshot(): void {
    for (const target of this.snapshot) {
      if (target > 0 && !isProcessAlive(target)) continue;
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    this.snapshot.clear();
  }

  /** The whole log so far (every run). */
  log(): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  /** The last `lines` lines of the log. */
  tail(lines = 30): string {
    return this.log().trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** Log lines that parse as JSON objects (pino lines), in order. */
  jsonLines(): Array<Record<string, unknown>> {
    const out: Array<Record<string, unknown>> = [];
    for (const line of this.log().split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const v: unknown = JSON.parse(line);
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
      } catch {
        // a partial line being written
      }
    }
    return out;
  }
}

function signalGroup(c: ChildProcess, signal: NodeJS.Signals): void {
  if (c.pid === undefined) return;
  try {
    process.kill(-c.pid, signal);
  } catch {
    // the group is gone already
  }
}
