// The browser's processes, on the /proc readers of @owrl/core: find the Chromium browser process by
// its marker switch, kill a tree, and wait until it is gone.
import { isProcessAlive, listProcesses, readCmdline } from '@owrl/core';

/** Pid of the process whose command line holds `marker`, preferring a child of `parent`. */
export function findByMarker(marker: string, parent: number = process.pid): number | null {
  const procs = listProcesses();
  let fallback: number | null = null;
  for (const p of procs) {
    if (!readCmdline(p.pid).includes(marker)) continue;
    if (p.ppid === parent) return p.pid;
    // the browser process is the one whose parent does not carry the marker
    if (!readCmdline(p.ppid).includes(marker)) fallback = p.pid;
  }
  return fallback;
}

/** SIGKILLs the given pids (and the process group led by `groupLeader`), ignoring those already gone. */
export function killAll(pids: readonly number[], groupLeader?: number): void {
  if (groupLeader !== undefined) {
    try {
      process.kill(-groupLeader, 'SIGKILL');
    } catch {
      /* no such group */
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/** Waits until none of `pids` runs any more (a SIGKILL lands when the kernel gets to it), at most `ms`. */
export async function waitGone(pids: readonly number[], ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (pids.some(isProcessAlive) && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
}
