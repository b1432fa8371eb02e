// A benchmark stopped by a signal stops what it started. Without this a bench killed with
// SIGTERM (a CI job's timeout, `kill`) exited at once and left its children running: the demo's
// services and Chromium browsers, the fleet bench's nats-server, learner, judge and actors, each
// still holding cores and ports after the bench was gone.
//
// installStopOnSignal(): on the first SIGINT or SIGTERM the bench notes every process below it
// (procDescendants of @owrl/core, from /proc), passes the signal on to its own children (the demo CLI
// and the services stop what they started when told to), waits up to `graceMs` for every noted
// process to end (a zombie counts as ended), kills the ones still there with SIGKILL and, once
// those have ended too (up to 5 s more), exits with 128 + the signal's number. A second signal
// skips the grace period. A noted process is only killed while it is still the same process (its
// start time is compared), never a later one that reused its pid.
// Without /proc (not Linux; the benches read /proc for their CPU figures anyway) the bench exits
// on the signal as before.
import os from 'node:os';
import { procDescendants, readProcStat, type ProcInfo } from '@owrl/core';

/**
 * Whether the noted process is still running: the same one (its start time unchanged), not a
 * zombie (ended, waiting for its parent to collect its status) or dead.
 */
function alive(p: ProcInfo): boolean {
  const now = readProcStat(p.pid);
  return now !== null && now.start === p.start && now.state !== 'Z' && now.state !== 'X';
}

/** Waits until no noted process is alive, `stop()` says so, or `ms` have passed. */
async function waitGone(noted: ProcInfo[], ms: number, stop: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!stop() && noted.some(alive) && Date.now() < deadline) await new Promise<void>((r) => setTimeout(r, 100));
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Gone already.
  }
}

export interface StopOnSignalOptions {
  /** How long the processes below get to end after the signal, ms; default 20 000. */
  graceMs?: number;
}

let installed = false;
let stopping = false;

/**
 * Whether a signal is stopping the bench: a bench whose work fails because its processes were
 * stopped under it leaves the exit to the handler (128 + the signal), not to its own error.
 */
export function stoppingOnSignal(): boolean {
  return stopping;
}

/** Installs the SIGINT/SIGTERM handling described above (once per process). */
export function installStopOnSignal(opts: StopOnSignalOptions = {}): void {
  if (installed) return;
  installed = true;
  const graceMs = opts.graceMs ?? 20_000;
  let hurry = false;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (stopping) {
      hurry = true;
      return;
    }
    stopping = true;
    const code = 128 + (os.constants.signals[sig] ?? 0);
    const noted = procDescendants(process.pid);
    if (noted.length === 0 && readProcStat(process.pid) === null) process.exit(code);
    process.stderr.write(`bench: ${sig}: stopping the ${noted.length} processes below the bench\n`);
    for (const p of noted) if (p.ppid === process.pid) signal(p.pid, sig);
    void (async () => {
      await waitGone(noted, graceMs, () => hurry);
      for (const p of noted) if (alive(p)) signal(p.pid, 'SIGKILL');
      // A killed process takes a moment to end (its memory freed): the bench exits after them.
      await waitGone(noted, 5000, () => false);
      process.exit(code);
    })();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
