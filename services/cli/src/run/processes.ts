// Child service processes of a local run: spawned with their environment, logs to files, and
// supervised (an unexpected exit aborts the run with the tail of that service's log).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<number | null>;
}

export class ProcessGroup {
  readonly procs: ServiceProcess[] = [];
  private stopping = false;
  private onCrash: ((p: ServiceProcess, code: number | null) => void) | null = null;

  constructor(private readonly logDir: string) {
    fs.mkdirSync(logDir, { recursive: true });
  }

  crashed(fn: (p: ServiceProcess, code: number | null) => void): void {
    this.onCrash = fn;
  }

  start(name: string, script: string, env: Record<string, string>): ServiceProcess {
    const logFile = path.join(this.logDir, `${name}.log`);
    const fd = fs.openSync(logFile, 'a');
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    fs.closeSync(fd);
    const exited = new Promise<number | null>((resolve) => {
      child.once('exit', (code) => {
        if (!this.stopping) this.onCrash?.(p, code);
        resolve(code);
      });
    });
    const p: ServiceProcess = { name, child, logFile, exited };
    this.procs.push(p);
    return p;
  }

  tail(p: ServiceProcess, lines = 20): string {
    try {
      return fs.readFileSync(p.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  /** SIGTERM to every process group, then SIGKILL after `graceMs`. */
  async stopAll(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    const live = this.procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    for (const p of [...live].reverse()) signal(p, 'SIGTERM');
    const timer = setTimeout(() => {
      for (const p of live) signal(p, 'SIGKILL');
    }, graceMs);
    await Promise.all(live.map((p) => p.exited));
    clearTimeout(timer);
    // Whatever a service left in its process group (e.g. a browser) goes too.
    for (const p of this.procs) signal(p, 'SIGKILL');
  }
}

function signal(p: ServiceProcess, sig: NodeJS.Signals): void {
  if (p.child.pid === undefined) return;
  try {
    process.kill(-p.child.pid, sig);
  } catch {
    /* already gone */
  }
}

/**
 * What ends a run of the CLI early: the first unexpected exit of one of `procs`, or SIGINT/SIGTERM
 * (taken, so that repeated signals while stopping never kill the CLI before its children are
 * stopped). `close()` gives the signals back.
 */
export class StopWatch {
  error: Error | null = null;
  private readonly onSignal = (): void => {
    this.error ??= new Error('interrupted');
  };

  constructor(procs: ProcessGroup) {
    procs.crashed((p, code) => {
      this.error = new Error(`${p.name} exited unexpectedly (code ${code}); last lines of ${p.logFile}:\n${procs.tail(p)}`);
    });
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  /** @throws the error that ended the run, if any. */
  check(): void {
    if (this.error) throw this.error;
  }

  close(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}
